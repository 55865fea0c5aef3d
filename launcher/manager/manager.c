/* Manager side of the fxtrun protocol (the Fuchsia Tracing System Design, "Transport Protocol"):
 * providers connect to the session socket and say STARTED (version checked, and only for the
 * peer's own pid: SO_PEERCRED); their buffer files are mapped read-only. On SAVE_BUFFER the
 * provider's new records go into the archive (launcher/manager/saver.c) and BUFFER_SAVED answers; a
 * provider that ends (its connection closes) gets its last records and drop report written and its
 * buffer deleted at once, so a long process tree holds only the live processes' buffers. The
 * archive file is written from the first save on: nothing is spooled and copied again. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/manager.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/clock.h"
#include "common/proc.h"
#include "common/protocol.h"
#include "launcher/manager/accept.h"
#include "launcher/manager/msg.h"
#include "launcher/manager/saver.h"
#include "writer/buffer.h"

struct provider {
	uint32_t n;		/* buffer file "<pid>.<n>.buf" */
	int conn;		/* connection, -1 once closed */
	int refused;		/* unknown protocol version: ignored */
	void *map;		/* read-only shared mapping, NULL until attached or once done */
	size_t size;
	int done;		/* finished: in the archive, buffer unmapped and deleted */
	const char *unreadable;	/* its header was bad when first read: why (none of it saved) */
	uint64_t taken_at_save;	/* chunks its writers had taken at its last save */
	struct fxt_saved s;
};

struct fxt_manager {
	char dir[PATH_MAX];
	int listen_fd;
	struct provider *p;
	size_t np, cap;
	int *pending;		/* accepted connections that have not said STARTED yet */
	size_t npending, pending_cap;
	int reserve;		/* for accepting with no descriptor left (launcher/manager/accept.h) */
	int tsc;		/* invariant TSC: providers timestamp with it (as preload/base/clock.c) */
	struct fxt_clock_pair t0;	/* the providers' clock and CLOCK_MONOTONIC at the start */
	uint64_t saved, refused, impostors;
	struct fxt_out *out;
	int noted;		/* untraced and unreadable processes said in the archive so far */
	struct fxt_saver_clock clock;	/* saver_clock() */
	int ahead_ms;			/* the next look for records to save ahead (ms) */
};

/* The longest wait between two looks for records to save ahead: the look backs off from 1 ms
 * while a streaming provider writes too little to save. */
#define AHEAD_MS_MAX 256

/* The providers' clock and CLOCK_MONOTONIC now (TSC: fxt_tsc_pair(); else one read, exact). */
static struct fxt_clock_pair clock_pair(const struct fxt_manager *m)
{
	struct fxt_clock_pair p;
	uint64_t width;
	if (m->tsc)
		fxt_tsc_pair(&p.ticks, &p.ns, &width);
	else
		p.ticks = p.ns = fxt_mono_ns();
	return p;
}

struct fxt_manager *fxt_manager_new(const char *dir, int out_fd, int listen_fd)
{
	struct fxt_manager *m = calloc(1, sizeof(*m));
	struct fxt_out *o = malloc(sizeof(*o));
	int rc = m && o ? fxt_out_start(o, out_fd) : -ENOMEM;
	if (m && o && rc < 0)
		fxt_out_end(o);
	if (rc < 0) {
		free(m);
		free(o);
		return NULL;
	}
	m->out = o;
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	m->listen_fd = listen_fd;
	m->reserve = fxt_accept_reserve();
	m->tsc = fxt_invariant_tsc();
	m->t0 = clock_pair(m);
	return m;
}

/* The manager's readings for a provider that did not store its own clock (launcher/manager/saver.h):
 * the same clock it used, calibrated by the manager over the session. */
static const struct fxt_saver_clock *saver_clock(struct fxt_manager *m)
{
	struct fxt_saver_clock *c = &m->clock;
	c->start = m->t0;
	c->now = clock_pair(m);
	uint64_t ns = c->now.ns - c->start.ns;
	c->tps = !m->tsc || ns < 1000000 ? 1000000000ULL
					 : fxt_ticks_per_second(c->now.ticks - c->start.ticks, ns);
	return c;
}

/* The live provider of buffer file (pid, n). A finished one's file is deleted, so the name may
 * come again: a later image of the pid after exec (or after a failed exec) is a new provider. */
static struct provider *find(struct fxt_manager *m, int pid, uint32_t n)
{
	for (size_t i = 0; i < m->np; i++)
		if (m->p[i].s.pid == pid && m->p[i].n == n && !m->p[i].done)
			return &m->p[i];
	return NULL;
}

static struct provider *add(struct fxt_manager *m, int pid, uint32_t n)
{
	struct provider *p = find(m, pid, n);
	if (p)
		return p;
	if (FXT_GROW(m->p, &m->cap, m->np + 1) < 0)
		return NULL;
	p = &m->p[m->np++];
	memset(p, 0, sizeof(*p));
	p->s.pid = pid;
	p->n = n;
	p->conn = -1;
	p->s.id = (uint32_t)m->np;
	return p;
}

static int parent_of(int pid)
{
	char buf[512];
	const char *e = fxt_proc_stat(pid, buf, sizeof(buf));
	int ppid = 0;
	return e && sscanf(e, " %*c %d", &ppid) == 1 ? ppid : 0;
}

/* Maps the provider's buffer file read-only. Fails: -errno (not a buffer yet, gone);
 * -EBADMSG, -EPROTONOSUPPORT: its header is not one this manager can read (overwritten by the
 * provider before it was first read, another fxtauto's), for good: p->unreadable says why. */
static int attach(struct fxt_manager *m, struct provider *p)
{
	if (p->map || p->done || p->unreadable)
		return p->map ? 0 : p->unreadable ? -EBADMSG : -ENOENT;
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, m->dir, p->s.pid, p->n);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = fstat(fd, &st) < 0 ? -errno : 0;
	void *map = MAP_FAILED;
	if (!rc && st.st_size >= FXT_BUF_HDR_SIZE)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return rc ? rc : -EINVAL;
	/* Only the header and what the provider reserved are read: the rest may be holes. */
	madvise(map, (size_t)st.st_size, MADV_RANDOM);
	/* The header is copied once: a provider scribbling over it later cannot move the areas
	 * (or the sizes of what is allocated here) under the manager. */
	if ((rc = fxt_buf_attach_copy(&p->s.buf, map, (size_t)st.st_size, &p->s.layout)) < 0 ||
	    !(p->s.chunks = calloc(p->s.layout.nchunks + 1, sizeof(*p->s.chunks)))) {
		munmap(map, (size_t)st.st_size);
		if (rc == -EBADMSG)
			p->unreadable = "buffer header overwritten before its first save: none of its "
					"records kept";
		else if (rc == -EPROTONOSUPPORT)
			p->unreadable = "its buffer was laid out by another fxtauto version: none of "
					"its records kept";
		return rc < 0 ? rc : -ENOMEM;
	}
	p->s.live = map;
	p->map = map;
	p->size = (size_t)st.st_size;
	return 0;
}

/* Everything new of an attached provider goes to the archive. Fails: as fxt_saver_save(). */
static int save_new(struct fxt_manager *m, struct provider *p)
{
	uint64_t before = m->out->bytes;
	p->taken_at_save = __atomic_load_n(&p->s.live->next_chunk, __ATOMIC_RELAXED);
	int rc = fxt_saver_save(m->out, &p->s, 0, saver_clock(m));
	m->saved += m->out->bytes - before;
	return rc;
}

/* SAVE_BUFFER: everything new goes to the archive, then BUFFER_SAVED with the same values. */
static void save(struct fxt_manager *m, struct provider *p, const trace_provider_packet_t *req)
{
	int rc = attach(m, p);
	if (!rc)
		rc = save_new(m, p);
	if (rc < 0 && !m->out->err)
		return;	/* not saved: no BUFFER_SAVED; the provider stops waiting */
	/* Saved, or the archive cannot be written any more (full disk, file size limit): the
	 * provider waiting for this save would wait for nothing. */
	trace_provider_packet_t ack = { .request = TRACE_PROVIDER_BUFFER_SAVED,
					.data32 = req->data32,
					.data64 = req->data64 };
	if (send(p->conn, &ack, sizeof(ack), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the provider is gone: its buffer is read at the end */
	}
}

static int finish(struct fxt_manager *m, struct provider *p);

/* ---- connections ---- */

static void drop_pending(struct fxt_manager *m, size_t i)
{
	m->pending[i] = m->pending[--m->npending];
}

/* Whether the peer of fd is the process pid of our user (SO_PEERCRED: the process that
 * connected). A provider speaks only for itself: another process of the same user claiming a
 * traced pid would take over that provider's connection. */
static int peer_is(int fd, int pid)
{
	int peer;
	return fxt_msg_peer_ok(fd, &peer) && peer == pid;
}

static void on_started(struct fxt_manager *m, int fd, const trace_provider_packet_t *pk)
{
	int pid = (int)(uint32_t)pk->data64;
	uint32_t n = (uint32_t)(pk->data64 >> 32);
	if (pid <= 0 || !peer_is(fd, pid)) {
		m->impostors++;	/* its claim is ignored; the real provider's buffer is kept */
		close(fd);
		return;
	}
	struct provider *p = add(m, pid, n);
	if (!p || pk->request != TRACE_PROVIDER_STARTED || pk->reserved ||
	    pk->data32 != TRACE_PROVIDER_FIFO_PROTOCOL_VERSION) {
		/* Fuchsia Tracing System Design: an unknown protocol: close our side, ignore its data */
		if (p && !p->refused) {
			p->refused = 1;
			m->refused++;
		}
		close(fd);
		return;
	}
	p->conn = fd;
	p->s.ppid = parent_of(pid);
	attach(m, p);
}

static void on_packet(struct fxt_manager *m, struct provider *p)
{
	trace_provider_packet_t pk;
	ssize_t n = recv(p->conn, &pk, sizeof(pk), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != sizeof(pk)) {
		close(p->conn);	/* exit, crash or exec */
		p->conn = -1;
		/* Stopped or gone: its section is final; free its buffer now, so a long tree of
		 * processes holds only the live ones' buffers. */
		if (p->map && (__atomic_load_n(&p->s.live->state, __ATOMIC_ACQUIRE) ==
				       FXT_BUF_STOPPED ||
			       (kill(p->s.pid, 0) < 0 && errno == ESRCH)))
			finish(m, p);
		return;
	}
	if (pk.request == TRACE_PROVIDER_SAVE_BUFFER)
		save(m, p, &pk);
}

/* Out of descriptors with no reserve left, the oldest connection that has not said STARTED
 * yet is given up for one (launcher/manager/accept.h): else the listening socket, readable, spins. */
static void accept_all(struct fxt_manager *m)
{
	int fd;
	while ((fd = fxt_accept(m->listen_fd, &m->reserve, NULL, NULL)) != -EAGAIN) {
		if (fd == -EMFILE && m->reserve < 0) {
			if (!m->npending)
				return;	/* nothing to give up: polled again later */
			close(m->pending[0]);	/* a descriptor for the reserve */
			m->pending[0] = m->pending[--m->npending];
			m->reserve = fxt_accept_reserve();
		}
		if (fd == -EMFILE)
			continue;
		if (fd < 0)
			return;
		if (fxt_accepted_add(&m->pending, &m->npending, &m->pending_cap, fd) < 0)
			close(fd);
	}
}

size_t fxt_manager_nfds(const struct fxt_manager *m)
{
	return 1 + m->npending + m->np;
}

size_t fxt_manager_fds(const struct fxt_manager *m, struct pollfd *fds)
{
	size_t n = 0;
	fds[n++] = (struct pollfd){ .fd = m->listen_fd, .events = POLLIN };
	for (size_t i = 0; i < m->npending; i++)
		fds[n++] = (struct pollfd){ .fd = m->pending[i], .events = POLLIN };
	for (size_t i = 0; i < m->np; i++)	/* -1 once closed: poll ignores it */
		fds[n++] = (struct pollfd){ .fd = m->p[i].conn, .events = POLLIN };
	return n;
}

void fxt_manager_handle(struct fxt_manager *m, const struct pollfd *fds, size_t n)
{
	size_t first_conn = 1 + m->npending;
	/* Providers first: a SAVE_BUFFER is answered before new connections are read. */
	for (size_t i = first_conn; i < n; i++)
		if (fds[i].fd >= 0 && fds[i].revents)
			for (size_t j = 0; j < m->np; j++)
				if (m->p[j].conn == fds[i].fd)
					on_packet(m, &m->p[j]);
	for (size_t i = 1; i < first_conn && i < n; i++) {	/* in connection order */
		if (!fds[i].revents)
			continue;
		trace_provider_packet_t pk;
		ssize_t r = recv(fds[i].fd, &pk, sizeof(pk), MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		size_t at = 0;
		while (m->pending[at] != fds[i].fd)
			at++;
		drop_pending(m, at);
		if (r == sizeof(pk))
			on_started(m, fds[i].fd, &pk);
		else
			close(fds[i].fd);
	}
	if (n && fds[0].revents)
		accept_all(m);
}

int fxt_manager_ahead(struct fxt_manager *m, int timeout_ms)
{
	int saved = 0, streaming = 0;
	for (size_t i = 0; i < m->np; i++) {
		struct provider *p = &m->p[i];
		if (!p->map || p->done || p->conn < 0 || p->s.layout.mode != FXT_BUF_STREAMING ||
		    (p->s.vet && fxt_vet_problem(p->s.vet)))
			continue;
		streaming = 1;
		uint64_t taken = __atomic_load_n(&p->s.live->next_chunk, __ATOMIC_RELAXED);
		/* an eighth of a half: a few saves per half, each of many chunks' records */
		if (taken - p->taken_at_save < (p->s.layout.nchunks + 15) / 16)
			continue;
		save_new(m, p);
		saved = 1;
	}
	if (saved) {
		m->ahead_ms = 1;
		return 0;	/* more may have come meanwhile */
	}
	if (m->ahead_ms < AHEAD_MS_MAX)
		m->ahead_ms = m->ahead_ms ? m->ahead_ms * 2 : 1;
	return streaming && (timeout_ms < 0 || timeout_ms > m->ahead_ms) ? m->ahead_ms : timeout_ms;
}

int fxt_manager_poll(struct fxt_manager *m, int extra_fd, int timeout_ms)
{
	struct pollfd *fds = calloc(1 + fxt_manager_nfds(m), sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	timeout_ms = fxt_manager_ahead(m, timeout_ms);
	fds[0] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	size_t n = fxt_manager_fds(m, fds + 1);
	int rc = poll(fds, 1 + n, timeout_ms);
	if (rc <= 0) {
		free(fds);
		return rc < 0 && errno != EINTR ? -errno : 0;
	}
	fxt_manager_handle(m, fds + 1, n);
	rc = extra_fd >= 0 && fds[0].revents;
	free(fds);
	return rc;
}

int fxt_manager_usage(struct fxt_manager *m, int pid, uint64_t *used, uint64_t *size)
{
	int found = 0;
	*used = *size = 0;
	for (size_t i = 0; i < m->np; i++) {
		struct provider *p = &m->p[i];
		if (p->s.pid != pid || p->done || p->refused || attach(m, p) < 0)
			continue;
		const struct fxt_buf_hdr *h = &p->s.layout;
		uint64_t durable = __atomic_load_n(&p->s.live->durable_used, __ATOMIC_RELAXED);
		uint64_t chunks = __atomic_load_n(&p->s.live->next_chunk, __ATOMIC_RELAXED);
		*used += (durable < h->durable_size ? durable : h->durable_size) +
			 (chunks < h->nchunks ? chunks : h->nchunks) * h->chunk_size;
		*size += h->size;
		found = 1;
	}
	return found;
}

/* ---- the archive ---- */

/* Writes the provider's last records and drop report, then unmaps and deletes its buffer.
 * Fails: -errno of the archive (the provider stays as it was). */
static int finish(struct fxt_manager *m, struct provider *p)
{
	int rc = fxt_saver_finish(m->out, &p->s, 0, saver_clock(m));
	if (rc < 0)
		return rc;
	munmap(p->map, p->size);
	p->map = NULL;
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, m->dir, p->s.pid, p->n);
	unlink(path);
	p->done = 1;
	return 0;
}

/* Says process pid in the archive with no records of its own: an instant `event` saying why,
 * in the manager's own section (at most 1000 of them). */
static void note(struct fxt_manager *m, int pid, const char *name, const char *event,
		 const char *why)
{
	if (m->noted < 1000 && fxt_saver_note(m->out, (uint32_t)m->np + 1, saver_clock(m),
					      !m->noted, pid, name, event, why) == 0)
		m->noted++;
}

/* A process that runs untraced (common/protocol.h, FXT_SESSION_UNTRACED_SUFFIX): counted, the
 * first of each kind named; when m is given, said in the archive (at most 1000 of them). */
static void untraced(struct fxt_manager *m, int dir, const char *name, int pid,
		     struct fxt_manager_stats *st)
{
	char line[600] = "", what[520] = "";
	int err, fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return;
	line[n] = 0;
	char why[700];
	if (sscanf(line, "shed %519[^\n]", what) == 1) {
		if (!st->shed++) {
			st->shed_pid = pid;
			snprintf(st->shed_path, sizeof(st->shed_path), "%.199s", what);
		}
		snprintf(why, sizeof(why), "it exec'd %s without LD_PRELOAD", what);
	} else if (sscanf(line, "%d %519[^\n]", &err, what) >= 1) {
		if (!st->untraced++) {
			st->untraced_errno = err;
			st->untraced_pid = pid;
			snprintf(st->untraced_name, sizeof(st->untraced_name), "%.63s", what);
		}
		snprintf(why, sizeof(why), "no trace buffer: %s", strerror(err));
	} else {
		return;
	}
	if (!m)
		return;
	const char *prog = what;
	if (strchr(prog, '/'))	/* shed: the process is named after what it exec'd */
		prog = strrchr(prog, '/') + 1;
	note(m, pid, prog, "process not traced", why);
}

/* Buffer files no STARTED announced (a provider killed at once): read them too, in pid order.
 * Untraced processes are counted into st, and said in the archive when `note`. */
static void scan_session(struct fxt_manager *m, struct fxt_manager_stats *st, int note)
{
	DIR *d = opendir(m->dir);
	if (!d)
		return;
	size_t first = m->np;
	struct dirent *e;
	while ((e = readdir(d))) {
		int pid;
		unsigned n;
		char tail;
		if (sscanf(e->d_name, "%d.untrace%c", &pid, &tail) == 2 && tail == 'd') {
			untraced(note ? m : NULL, dirfd(d), e->d_name, pid, st);
			continue;
		}
		if (sscanf(e->d_name, "%d.%u.bu%c", &pid, &n, &tail) == 3 && tail == 'f' &&
		    !find(m, pid, n))
			add(m, pid, n);
	}
	closedir(d);
	for (size_t i = first + 1; i < m->np; i++)
		for (size_t j = i; j > first && (m->p[j - 1].s.pid > m->p[j].s.pid ||
						 (m->p[j - 1].s.pid == m->p[j].s.pid &&
						  m->p[j - 1].n > m->p[j].n));
		     j--) {
			struct provider t = m->p[j];
			m->p[j] = m->p[j - 1];
			m->p[j - 1] = t;
		}
}

/* Counts a provider whose data is corrupt (pid, why) into the summary st: the first named. */
static void count_corrupt(struct fxt_manager_stats *st, int pid, const char *why)
{
	if (!st->corrupt++) {
		st->corrupt_pid = pid;
		snprintf(st->corrupt_why, sizeof(st->corrupt_why), "%s", why);
	}
}

/* Adds what provider s put in the archive to the summary st. */
static void add_stats(struct fxt_manager_stats *st, const struct fxt_saved *s)
{
	st->processes += s->st.processes;
	st->threads += s->st.threads;
	st->events += s->st.events;
	st->dropped += s->st.dropped;
	st->drop_reasons |= s->st.drop_reasons;
	st->overwritten += s->st.overwritten;
	st->overwritten_records += s->st.overwritten_records;
	if (s->st.span_ns && (!st->span_ns || s->st.kept_ns < st->kept_ns)) {
		st->kept_ns = s->st.kept_ns;
		st->span_ns = s->st.span_ns;
	}
	const char *bad = s->vet ? fxt_vet_problem(s->vet) : NULL;
	if (bad)
		count_corrupt(st, s->pid, bad);
}

int fxt_manager_write(struct fxt_manager *m, struct fxt_manager_stats *st)
{
	memset(st, 0, sizeof(*st));
	scan_session(m, st, 0);
	int rc = 0;
	for (size_t i = 0; i < m->np && !rc; i++) {
		struct provider *p = &m->p[i];
		if (!p->done && !p->refused && attach(m, p) == 0)
			rc = finish(m, p);
		if (p->done)
			add_stats(st, &p->s);
		else if (p->unreadable)
			count_corrupt(st, p->s.pid, p->unreadable);
	}
	for (size_t i = 0; i < m->np && !rc; i++)	/* after every provider: ids all given */
		if (m->p[i].unreadable)
			note(m, m->p[i].s.pid, "process", "provider data corrupt", m->p[i].unreadable);
	struct fxt_manager_stats again;	/* counted above: now said in the archive, after
					 * every provider (their ids are all given) */
	if (!rc && (st->untraced || st->shed))
		scan_session(m, &again, 1);
	if (!rc)
		rc = fxt_out_flush(m->out);
	st->bytes = m->out->bytes;
	st->saved = m->saved;
	st->refused = m->refused;
	st->impostors = m->impostors;
	return rc ? rc : m->out->err;
}

int fxt_manager_snapshot(struct fxt_manager *m, int fd, uint64_t cutoff,
			 struct fxt_manager_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct fxt_out *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	int rc = fxt_out_start(o, fd);
	struct fxt_manager_stats untraced = { 0 };
	scan_session(m, &untraced, 0);	/* buffers whose STARTED is not read yet */
	for (size_t i = 0; i < m->np && !rc; i++) {
		struct provider *p = &m->p[i];
		if (p->done || p->refused)
			continue;
		if (attach(m, p) < 0) {
			if (p->unreadable)
				count_corrupt(st, p->s.pid, p->unreadable);
			continue;
		}
		/* A saver state of its own over the same read-only mapping: the trace's state
		 * (what was saved, the vetting) is left as it is. */
		struct fxt_saved f = { .pid = p->s.pid, .ppid = p->s.ppid, .id = p->s.id,
				       .snapshot = 1, .buf = p->s.buf, .layout = p->s.layout,
				       .live = p->s.live };
		if (!(f.chunks = calloc(f.layout.nchunks + 1, sizeof(*f.chunks))))
			rc = -ENOMEM;
		if (!rc)
			rc = fxt_saver_finish(o, &f, cutoff, saver_clock(m));
		if (!rc)
			add_stats(st, &f);
		free(f.chunks);
		free(f.koids);
		fxt_vet_free(f.vet);
	}
	if (!rc)
		rc = fxt_out_flush(o);
	st->bytes = o->bytes;
	rc = rc ? rc : o->err;
	fxt_out_end(o);
	free(o);
	return rc;
}

void fxt_manager_free(struct fxt_manager *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->np; i++) {
		struct provider *p = &m->p[i];
		if (p->conn >= 0)
			close(p->conn);
		if (p->map)
			munmap(p->map, p->size);
		free(p->s.chunks);
		free(p->s.koids);
		fxt_vet_free(p->s.vet);
	}
	for (size_t i = 0; i < m->npending; i++)
		close(m->pending[i]);
	if (m->reserve >= 0)
		close(m->reserve);
	free(m->pending);
	free(m->p);
	fxt_out_end(m->out);
	free(m->out);
	free(m);
}
