/* Manager side of the fxtrun protocol and the archive of a session. Providers connect to the
 * session socket and say STARTED (version checked); their buffer files are mapped read-only.
 * A chunk is read by a "sweep": chunks in sequence order, each from where the last sweep of the
 * same sequence number stopped up to its first zero or torn header, kept only if word 0 still
 * holds that sequence afterwards. Streaming sweeps go to a spool file per provider on
 * SAVE_BUFFER; the final sweep goes to the archive after the spool, so nothing is saved twice. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager.h"

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
#include <x86intrin.h>

#include "common/clock.h"
#include "common/protocol.h"
#include "writer/archive.h"
#include "writer/buffer.h"
#include "writer/fields.h"
#include "writer/records.h"

/* How far a chunk (by index) was saved: its sequence number then, and the bytes written. */
struct saved_chunk {
	uint64_t seq;
	uint64_t bytes;
};

struct provider {
	int pid, ppid;		/* ppid 0: unknown */
	uint32_t n;		/* buffer file "<pid>.<n>.buf" */
	int conn;		/* connection, -1 once closed */
	int refused;		/* unknown protocol version: ignored */
	void *map;		/* read-only shared mapping, NULL until attached */
	size_t size;
	struct fxt_buf buf;
	struct saved_chunk *chunks;
	int spool;		/* streaming data saved so far (-1: none yet); once done, the
				 * provider's whole archive section */
	uint64_t spooled, events;
	uint32_t id;		/* provider id in the archive */
	int done;		/* finished: section in the spool, buffer unmapped and deleted */
	struct fxt_manager_stats st;	/* what its section holds */
};

struct fxt_manager {
	char dir[PATH_MAX], spool[PATH_MAX];
	int listen_fd;
	struct provider *p;
	size_t np, cap;
	int *pending;		/* accepted connections that have not said STARTED yet */
	size_t npending, pending_cap;
	int tsc;		/* invariant TSC: providers timestamp with it (as preload/init.c) */
	uint64_t t0_tsc, t0_ns;
	uint64_t saved, refused;
};

struct fxt_manager *fxt_manager_new(const char *dir, const char *spool, int listen_fd)
{
	struct fxt_manager *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	snprintf(m->spool, sizeof(m->spool), "%s", spool);
	m->listen_fd = listen_fd;
	m->tsc = fxt_invariant_tsc();
	m->t0_tsc = __rdtsc();
	m->t0_ns = fxt_mono_ns();
	return m;
}

/* Ticks per second for a provider killed before it calibrated: the same clock it used,
 * calibrated by the manager over the session. */
static uint64_t fallback_tps(const struct fxt_manager *m)
{
	uint64_t ns = fxt_mono_ns() - m->t0_ns;
	if (!m->tsc || ns < 1000000)
		return 1000000000ULL;
	return (uint64_t)((unsigned __int128)(__rdtsc() - m->t0_tsc) * 1000000000ULL / ns);
}

static struct provider *find(struct fxt_manager *m, int pid, uint32_t n)
{
	for (size_t i = 0; i < m->np; i++)
		if (m->p[i].pid == pid && m->p[i].n == n)
			return &m->p[i];
	return NULL;
}

static struct provider *add(struct fxt_manager *m, int pid, uint32_t n)
{
	struct provider *p = find(m, pid, n);
	if (p)
		return p;
	if (m->np == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct provider *q = realloc(m->p, cap * sizeof(*q));
		if (!q)
			return NULL;
		m->p = q;
		m->cap = cap;
	}
	p = &m->p[m->np++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->n = n;
	p->conn = p->spool = -1;
	p->id = (uint32_t)m->np;
	return p;
}

static int parent_of(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *e = strrchr(buf, ')');
	int ppid = 0;
	return e && sscanf(e + 1, " %*c %d", &ppid) == 1 ? ppid : 0;
}

/* Maps the provider's buffer file read-only. Fails: -errno (not a buffer yet, gone). */
static int attach(struct fxt_manager *m, struct provider *p)
{
	if (p->map)
		return 0;
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, m->dir, p->pid, p->n);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
	if ((rc = fxt_buf_attach(&p->buf, map, (size_t)st.st_size)) < 0 ||
	    !(p->chunks = calloc(p->buf.hdr->nchunks, sizeof(*p->chunks)))) {
		munmap(map, (size_t)st.st_size);
		return rc < 0 ? rc : -ENOMEM;
	}
	p->map = map;
	p->size = (size_t)st.st_size;
	return 0;
}

/* ---- sweeping chunks ---- */

static uint64_t record_words(uint64_t h)
{
	return fxt_field_get(FXT_RECORD_TYPE, h) == FXT_RT_LARGE
		       ? fxt_field_get(FXT_LARGE_RECORD_SIZE, h)
		       : fxt_field_get(FXT_RECORD_SIZE, h);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct threads named by thread kernel object records in a valid run (a renamed thread has
 * several records). */
static uint64_t count_threads(const uint64_t *p, size_t words)
{
	size_t n = 0, cap = 0;
	uint64_t *koids = NULL, distinct = 0;
	for (size_t at = 0; at < words; at += record_words(p[at])) {
		if (fxt_field_get(FXT_RECORD_TYPE, p[at]) != FXT_RT_KERNEL_OBJECT ||
		    fxt_field_get(FXT_KOBJ_TYPE, p[at]) != FXT_OBJ_TYPE_THREAD ||
		    record_words(p[at]) < 2)
			continue;
		if (n == cap) {
			uint64_t *k = realloc(koids, (cap = cap ? cap * 2 : 64) * sizeof(*k));
			if (!k)
				break;
			koids = k;
		}
		koids[n++] = p[at + 1];
	}
	if (koids)
		qsort(koids, n, sizeof(*koids), by_u64);
	for (size_t i = 0; i < n; i++)
		distinct += !i || koids[i] != koids[i - 1];
	free(koids);
	return distinct;
}

/* fxt_archive_valid_prefix() resumed at word `from` (a record boundary found by an earlier
 * sweep) and counting event records on the way: the manager walks every record it saves once.
 * Returns the end of the valid records in bytes. */
static size_t valid_end(const uint64_t *p, size_t from, size_t words, uint64_t *events)
{
	size_t at = from;
	uint64_t ev = 0;
	while (at < words) {
		uint64_t h = __atomic_load_n(&p[at], __ATOMIC_ACQUIRE);
		uint64_t n = record_words(h);
		if (!h || !n || n > words - at)
			break;
		ev += fxt_field_get(FXT_RECORD_TYPE, h) == FXT_RT_EVENT;
		at += n;
	}
	*events = ev;
	return at * 8;
}

struct order {
	uint64_t seq;
	uint32_t idx;
};

static int by_seq(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const uint64_t *chunk_at(const struct provider *p, uint32_t i)
{
	return fxt_buf_chunk(&p->buf, i);
}

/* Emits what every chunk gained since the last sweep, in sequence order. A continued chunk is
 * re-opened with its thread record (thread indexes are per chunk). Fails: emit's error. */
static int sweep(struct provider *p, fxt_archive_emit_fn emit, void *ctx)
{
	const struct fxt_buf_hdr *h = p->buf.hdr;
	struct order *ord = malloc((size_t)h->nchunks * sizeof(*ord));
	uint64_t *copy = malloc(h->chunk_size + 24);
	int rc = ord && copy ? 0 : -ENOMEM;
	size_t k = 0, words = h->chunk_size / 8 - 1;
	for (uint32_t i = 0; !rc && i < h->nchunks; i++) {
		uint64_t w0 = __atomic_load_n(chunk_at(p, i), __ATOMIC_ACQUIRE);
		uint64_t seq = fxt_chunk_word_seq(w0);
		if (seq)
			ord[k++] = (struct order){ seq, i };
	}
	if (!rc)
		qsort(ord, k, sizeof(*ord), by_seq);
	for (size_t j = 0; !rc && j < k; j++) {
		const uint64_t *c = chunk_at(p, ord[j].idx);
		uint64_t w0 = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
		uint64_t seq = fxt_chunk_word_seq(w0);
		struct saved_chunk *sc = &p->chunks[ord[j].idx];
		if (!seq)
			continue;
		if (sc->seq != seq)
			*sc = (struct saved_chunk){ seq, 0 };
		uint64_t events;
		size_t len = valid_end(c + 1, sc->bytes / 8, words, &events);
		if (len <= sc->bytes)
			continue;
		size_t at = 0;
		if (sc->bytes && fxt_field_get(FXT_RECORD_TYPE, c[1]) == FXT_RT_THREAD &&
		    fxt_field_get(FXT_RECORD_SIZE, c[1]) == 3) {
			memcpy(copy, c + 1, 24);
			at = 24;
		}
		memcpy((char *)copy + at, (const char *)(c + 1) + sc->bytes, len - sc->bytes);
		atomic_thread_fence(memory_order_acquire);
		if ((__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) & FXT_CHUNK_SEQ_MASK) !=
		    (w0 & FXT_CHUNK_SEQ_MASK))
			continue;	/* reused while read: its old records were saved before */
		/* Events stamped after the provider's stop (threads still running while its exit
		 * flush closed their frames) would overlap the closed frames: leave them out. */
		rc = fxt_archive_emit_records(copy, (at + len - sc->bytes) / 8,
					      __atomic_load_n(&h->stop_ticks, __ATOMIC_ACQUIRE), emit, ctx);
		p->events += events;
		sc->bytes = len;
	}
	free(ord);
	free(copy);
	return rc;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *s = data;
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int emit_spool(void *ctx, const void *data, size_t len)
{
	struct provider *p = ctx;
	int rc = write_all(p->spool, data, len);
	if (!rc)
		p->spooled += len;
	return rc;
}

/* SAVE_BUFFER: everything new goes to the spool, then BUFFER_SAVED with the same values. */
static void save(struct fxt_manager *m, struct provider *p, const trace_provider_packet_t *req)
{
	if (p->spool < 0) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), "%s/%d.%u.spool", m->spool, p->pid, p->n);
		p->spool = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
	uint64_t before = p->spooled;
	int rc = p->spool < 0 ? -errno : attach(m, p);
	if (!rc)
		rc = sweep(p, emit_spool, p);
	m->saved += p->spooled - before;
	if (rc < 0)
		return;	/* not saved (disk full?): no BUFFER_SAVED, so the provider drops */
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

static void on_started(struct fxt_manager *m, int fd, const trace_provider_packet_t *pk)
{
	int pid = (int)(uint32_t)pk->data64;
	uint32_t n = (uint32_t)(pk->data64 >> 32);
	struct provider *p = add(m, pid, n);
	if (!p || pk->request != TRACE_PROVIDER_STARTED || pk->reserved ||
	    pk->data32 != TRACE_PROVIDER_FIFO_PROTOCOL_VERSION) {
		/* tracing-system.md: an unknown protocol: close our side, ignore its data */
		if (p && !p->refused) {
			p->refused = 1;
			m->refused++;
		}
		close(fd);
		return;
	}
	p->conn = fd;
	p->ppid = parent_of(pid);
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
		if (p->map && (__atomic_load_n(&p->buf.hdr->state, __ATOMIC_ACQUIRE) ==
				       FXT_BUF_STOPPED ||
			       (kill(p->pid, 0) < 0 && errno == ESRCH)))
			finish(m, p);
		return;
	}
	if (pk.request == TRACE_PROVIDER_SAVE_BUFFER)
		save(m, p, &pk);
}

static void accept_all(struct fxt_manager *m)
{
	int fd;
	while ((fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		if (m->npending == m->pending_cap) {
			size_t cap = m->pending_cap ? m->pending_cap * 2 : 16;
			int *q = realloc(m->pending, cap * sizeof(*q));
			if (!q) {
				close(fd);
				continue;
			}
			m->pending = q;
			m->pending_cap = cap;
		}
		m->pending[m->npending++] = fd;
	}
}

int fxt_manager_poll(struct fxt_manager *m, int extra_fd, int timeout_ms)
{
	size_t max = 2 + m->npending + m->np, n = 0;
	struct pollfd *fds = calloc(max, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	fds[n++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = m->listen_fd, .events = POLLIN };
	size_t first_pending = n;
	for (size_t i = 0; i < m->npending; i++)
		fds[n++] = (struct pollfd){ .fd = m->pending[i], .events = POLLIN };
	size_t first_conn = n;
	for (size_t i = 0; i < m->np; i++)
		fds[n++] = (struct pollfd){ .fd = m->p[i].conn, .events = POLLIN };
	int rc = poll(fds, n, timeout_ms);
	if (rc <= 0) {
		free(fds);
		return rc < 0 && errno != EINTR ? -errno : 0;
	}
	/* Providers first: a SAVE_BUFFER is answered before new connections are read. */
	for (size_t i = first_conn; i < n; i++)
		if (fds[i].fd >= 0 && fds[i].revents)
			for (size_t j = 0; j < m->np; j++)
				if (m->p[j].conn == fds[i].fd)
					on_packet(m, &m->p[j]);
	for (size_t i = first_pending; i < first_conn; i++) {	/* in connection order */
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
	if (fds[1].revents)
		accept_all(m);
	rc = extra_fd >= 0 && fds[0].revents;
	free(fds);
	return rc;
}

/* ---- the archive ---- */

struct out {
	int fd, err;
	size_t n;
	uint64_t bytes;
	char buf[1 << 20];
};

static int out_flush(struct out *o)
{
	if (!o->err && o->n)
		o->err = write_all(o->fd, o->buf, o->n);
	o->n = 0;
	return o->err;
}

static int emit_out(void *ctx, const void *data, size_t len)
{
	struct out *o = ctx;
	o->bytes += len;
	if (o->n + len > sizeof(o->buf) && out_flush(o))
		return o->err;
	if (len > sizeof(o->buf))
		return o->err = write_all(o->fd, data, len);
	memcpy(o->buf + o->n, data, len);
	o->n += len;
	return 0;
}

/* Appends the provider's spool file (copy in the kernel when it can). */
static int copy_spool(struct out *o, struct provider *p)
{
	if (p->spool < 0 || !p->spooled)
		return 0;
	if (out_flush(o))
		return o->err;
	loff_t in = 0;
	while ((uint64_t)in < p->spooled) {
		size_t left = p->spooled - (uint64_t)in;
		ssize_t n = copy_file_range(p->spool, &in, o->fd, NULL, left, 0);
		if (n > 0)
			continue;
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			char buf[65536];
			n = pread(p->spool, buf, sizeof(buf), in);
			if (n > 0 && (o->err = write_all(o->fd, buf, (size_t)n)) == 0) {
				in += n;
				continue;
			}
		}
		return o->err ? o->err : -EIO;
	}
	o->bytes += p->spooled;
	return 0;
}

/* The name of the process kernel object record for pid in the durable records (the preload
 * writes it inline), or "" if there is none. */
static void process_name(const uint64_t *d, size_t words, int pid, char *name, size_t size)
{
	name[0] = 0;
	for (size_t at = 0; at < words; at += record_words(d[at])) {
		uint64_t h = d[at];
		uint64_t ref = fxt_field_get(FXT_KOBJ_NAME_REF, h);
		if (fxt_field_get(FXT_RECORD_TYPE, h) != FXT_RT_KERNEL_OBJECT ||
		    record_words(h) < 2 ||
		    fxt_field_get(FXT_KOBJ_TYPE, h) != FXT_OBJ_TYPE_PROCESS ||
		    d[at + 1] != (uint64_t)pid || !(ref & FXT_STRREF_INLINE))
			continue;
		size_t len = ref & FXT_STRREF_LEN_MASK;
		if (len > size - 1 || 2 + fxt_pad_words((uint32_t)len) > record_words(h))
			continue;
		memcpy(name, &d[at + 2], len);
		name[len] = 0;
	}
}

/* trace-format.md#kernel-object-record: the process, named, with a `parent` koid argument. */
static int emit_process(struct out *o, int pid, int ppid, const char *name)
{
	struct fxt_warg parent = fxt_arg_koid(fxt_str_inl("parent", 6), (uint64_t)ppid);
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_PROCESS, .koid = (uint64_t)pid,
			      .name = fxt_str_inl(name, (uint32_t)strlen(name)),
			      .args = &parent, .nargs = 1 };
	uint64_t rec[64];
	int n = fxt_kobj_words(&k) <= 64 ? fxt_kobj_write(rec, &k) : -EINVAL;
	return n < 0 ? n : emit_out(o, rec, (size_t)n * 8);
}

static int write_provider(struct fxt_manager *m, struct out *o, struct provider *p)
{
	struct fxt_manager_stats *st = &p->st;
	uint32_t id = p->id;
	uint64_t start = o->bytes;
	const struct fxt_buf_hdr *h = p->buf.hdr;
	uint64_t rec[1 + 32];
	char name[256];
	uint64_t used = __atomic_load_n(&h->durable_used, __ATOMIC_ACQUIRE);
	if (used > h->durable_size)
		used = h->durable_size;
	const uint64_t *d = fxt_buf_durable(&p->buf);
	size_t dlen = fxt_archive_valid_prefix(d, used / 8);
	process_name(d, dlen / 8, p->pid, name, sizeof(name));
	if (!name[0])
		snprintf(name, sizeof(name), "pid %d", p->pid);

	int n = fxt_provider_info_write(rec, id, name, (uint32_t)strlen(name));
	emit_out(o, rec, (size_t)n * 8);
	emit_out(o, rec, (size_t)fxt_provider_section_write(rec, id) * 8);
	n = fxt_init_write(rec, h->ticks_per_second ? h->ticks_per_second : fallback_tps(m));
	emit_out(o, rec, (size_t)n * 8);
	emit_out(o, d, dlen);
	st->threads += count_threads(d, dlen / 8);
	if (p->ppid <= 0)
		p->ppid = (int)h->ppid;	/* reaped before STARTED was read: its own word for it */
	if (p->ppid > 0)
		emit_process(o, p->pid, p->ppid, name);
	int rc = copy_spool(o, p);
	if (!rc)
		rc = sweep(p, emit_out, o);
	uint64_t dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
	uint64_t wraps = __atomic_load_n(&h->wraps, __ATOMIC_RELAXED);
	/* Circular mode that wrapped overwrote its oldest records: the archive says so too. */
	if (dropped || (h->mode == FXT_BUF_CIRCULAR && wraps)) {
		n = fxt_provider_event_write(rec, id, FXT_PE_BUFFER_OVERFLOW);
		emit_out(o, rec, (size_t)n * 8);
	}
	st->dropped += dropped;
	st->overwritten += h->mode == FXT_BUF_CIRCULAR && wraps;
	st->events += p->events;
	st->processes++;
	st->bytes = o->bytes - start;
	return rc ? rc : o->err;
}

/* Writes the provider's whole section to a file of the spool directory, which replaces its
 * streaming spool, then unmaps and deletes its buffer. Fails: -errno (it stays as it was). */
static int finish(struct fxt_manager *m, struct provider *p)
{
	char path[PATH_MAX + 64], buf[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%d.%u.section", m->spool, p->pid, p->n);
	struct out *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct out){ .fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) };
	int rc = o->fd < 0 ? -errno : write_provider(m, o, p);
	if (!rc)
		rc = out_flush(o);
	if (rc) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(path);
		memset(&p->st, 0, sizeof(p->st));
		free(o);
		return rc;
	}
	if (p->spool >= 0) {
		close(p->spool);
		snprintf(buf, sizeof(buf), "%s/%d.%u.spool", m->spool, p->pid, p->n);
		unlink(buf);
	}
	p->spool = o->fd;
	p->spooled = o->bytes;
	free(o);
	munmap(p->map, p->size);
	p->map = NULL;
	snprintf(buf, sizeof(buf), "%s/" FXT_SESSION_BUF_FMT, m->dir, p->pid, p->n);
	unlink(buf);
	p->done = 1;
	return 0;
}

/* Buffer files no STARTED announced (a provider killed at once): read them too, in pid order. */
static void scan_session(struct fxt_manager *m)
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
		if (sscanf(e->d_name, "%d.%u.bu%c", &pid, &n, &tail) == 3 && tail == 'f' &&
		    !find(m, pid, n))
			add(m, pid, n);
	}
	closedir(d);
	for (size_t i = first + 1; i < m->np; i++)
		for (size_t j = i; j > first && (m->p[j - 1].pid > m->p[j].pid ||
						 (m->p[j - 1].pid == m->p[j].pid &&
						  m->p[j - 1].n > m->p[j].n));
		     j--) {
			struct provider t = m->p[j];
			m->p[j] = m->p[j - 1];
			m->p[j - 1] = t;
		}
}

int fxt_manager_write(struct fxt_manager *m, const char *path, struct fxt_manager_stats *st)
{
	memset(st, 0, sizeof(*st));
	scan_session(m);
	struct out *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->n = 0;
	o->err = 0;
	o->bytes = 0;
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		int rc = -errno;
		free(o);
		return rc;
	}
	uint64_t magic;
	emit_out(o, &magic, (size_t)fxt_magic_write(&magic) * 8);
	int rc = 0;
	for (size_t i = 0; i < m->np && !rc; i++) {
		struct provider *p = &m->p[i];
		if (p->done)
			rc = copy_spool(o, p);
		else if (!p->refused && attach(m, p) == 0)
			rc = write_provider(m, o, p);
		else
			continue;
		st->processes += p->st.processes;
		st->threads += p->st.threads;
		st->events += p->st.events;
		st->dropped += p->st.dropped;
		st->overwritten += p->st.overwritten;
	}
	if (!rc)
		rc = out_flush(o);
	if (close(o->fd) < 0 && !rc)
		rc = -errno;
	st->bytes = o->bytes;
	st->saved = m->saved;
	st->refused = m->refused;
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
		if (p->spool >= 0)
			close(p->spool);
		if (p->map)
			munmap(p->map, p->size);
		free(p->chunks);
	}
	for (size_t i = 0; i < m->npending; i++)
		close(m->pending[i]);
	free(m->pending);
	free(m->p);
	free(m);
}
