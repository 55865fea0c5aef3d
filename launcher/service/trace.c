/* The service's trace (service.h): one at a time. TRACE makes a session
 * (launcher/manager/session.c: buffers on /dev/shm) and an fxt_manager writing the archive, and
 * sends START to every chosen provider (through v->up: service.h), and later to each one that
 * registers and is chosen by the same rule (a fork child of a traced process is in the trace from
 * birth). A TRACE choosing nobody is refused. The start is a barrier: TRACE is answered once every
 * chosen provider said RECORDING (or stopped, or SVC_START_WAIT_MS passed: those not recording yet
 * are named). END STOP (or the attached client leaving, or SIGTERM) sends STOP and waits at most
 * SVC_STOP_WAIT_MS for the providers; an attached trace (record) is ended only by its own
 * connection or a forced END. Then the archive is written into the client's file (passed with
 * SCM_RIGHTS: the service never opens a path a client chose; the file of TRACE with an output
 * path, `fxt start -o`, is renamed from its ".part" name here, whoever ended the trace), synced,
 * and the REPLY says which file holds it and what it holds. A trace nobody gave a file (fxt start
 * without -o, then SIGTERM) leaves its archive in the runtime directory as trace-<id>.fxt, logged
 * and told. Streaming writes the client's file from the start; the other modes write a temporary
 * file of the runtime directory, copied into the client's file at the end. A snapshot (END
 * SNAPSHOT, or a provider's snapshot trigger, cut at the trigger's tick) reads the buffers afresh
 * and leaves the trace as it is. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/outpath.h"
#include "launcher/manager/msg.h"
#include "launcher/service/service.h"
#include "writer/buffer.h"

#define DEFAULT_BUFFER_SIZE (64ULL << 20)

/* Whether the trace chooses provider p (common/registry.h, TRACE). */
static int chooses(const struct svc_trace *t, const struct svc_provider *p)
{
	if (p->state != FXT_PROVIDER_IDLE)
		return 0;
	if (t->req->pid)
		return (uint32_t)p->pid == t->req->pid;
	return !t->req->name[0] || !strcmp(p->name, t->req->name);
}

static int has_trigger(const struct fxt_msg_trace *req, uint32_t kind)
{
	const struct fxt_trigger *t = (const struct fxt_trigger *)(req + 1);
	for (uint32_t i = 0; i < req->ntriggers; i++)
		if (t[i].kind == kind)
			return 1;
	return 0;
}

/* Starts every chosen provider (from the end: a provider that fails is removed, the last one
 * taking its place). Returns how many were started. */
static int start_chosen(struct svc *v)
{
	int n = 0;
	for (size_t i = v->np; i-- > 0;)
		if (chooses(v->trace, &v->p[i]) && v->up->start(v, &v->p[i], v->trace) == 0)
			n++;
	return n;
}

static void free_trace(struct svc *v)
{
	struct svc_trace *t = v->trace;
	fxt_manager_free(t->m);
	fxt_session_remove(&t->session);
	if (t->out_fd >= 0)
		close(t->out_fd);
	if (t->file_fd >= 0)
		close(t->file_fd);
	free(t->req);
	free(t->waiting);
	free(t);
	v->trace = NULL;
}

/* A temporary file of the runtime directory, already unlinked. Fails: -1 with errno. */
static int temp_file(const struct svc *v)
{
	return open(v->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

void svc_trace_begin(struct svc *v, int fd, const struct fxt_msg_trace *req, size_t len,
		     int file)
{
	const char *why = NULL;
	int status = 0;
	if (v->trace)
		status = -EBUSY, why = "a trace is running already (stop it first: fxt stop)";
	else if (v->quit)
		status = -ESHUTDOWN, why = "the manager is shutting down";
	else if (req->mode == FXT_BUF_STREAMING && file < 0)
		status = -EINVAL, why = "streaming needs the archive file at the start (-o FILE)";
	else if (has_trigger(req, FXT_TRIGGER_SNAPSHOT) &&
		 (file < 0 || req->mode == FXT_BUF_STREAMING))
		status = -EINVAL, why = "a snapshot trigger needs oneshot or circular mode and the "
					"archive file at the start (-o FILE)";
	if (status) {
		if (file >= 0)
			close(file);
		v->up->reply(v, fd, status, NULL, "%s", why);
		return;
	}
	struct svc_trace *t = calloc(1, sizeof(*t));
	int rc = t && (t->req = malloc(len)) ? 0 : -ENOMEM;
	if (t) {
		t->out_fd = -1;
		t->file_fd = file;
		t->file_by = file >= 0 ? fd : -1;
		t->starter = -1;
		t->owner = req->flags & FXT_TRACE_ATTACHED ? fd : -1;
		if (t->owner >= 0)
			fxt_msg_peer_ok(fd, &t->owner_pid);
		t->session.listen_fd = -1;
	}
	if (!rc) {
		memcpy(t->req, req, len);
		t->req_len = len;
		if (!t->req->buffer_size)
			t->req->buffer_size = DEFAULT_BUFFER_SIZE;
		t->id = ++v->next_session;
		fxt_session_clean(NULL);	/* sessions of managers that were killed */
		rc = fxt_session_create(&t->session);
	}
	if (!rc) {
		t->out_fd = req->mode == FXT_BUF_STREAMING ? fcntl(file, F_DUPFD_CLOEXEC, 3)
							   : temp_file(v);
		if (t->out_fd < 0)
			rc = -errno;
	}
	if (!rc && !(t->m = fxt_manager_new(t->session.dir, t->out_fd, t->session.listen_fd)))
		rc = errno ? -errno : -ENOMEM;
	if (rc < 0) {
		if (t) {
			v->trace = t;
			free_trace(v);
		} else if (file >= 0) {
			close(file);
		}
		v->up->reply(v, fd, rc, NULL, "cannot start the trace: %s", strerror(-rc));
		return;
	}
	v->trace = t;
	t->begun_ns = fxt_mono_ns();
	int n = start_chosen(v);
	if (!n) {
		free_trace(v);
		char what[FXT_NAME_MAX + 32] = "";
		if (req->pid)
			snprintf(what, sizeof(what), " (--pid %u)", req->pid);
		else if (req->name[0])
			snprintf(what, sizeof(what), " (--name %s)", req->name);
		v->up->reply(v, fd, -ESRCH, NULL,
			     "no registered program matches%s: no trace started (fxt list shows "
			     "them)", what);
		return;
	}
	t->chosen = (unsigned)n;
	t->starter = fd;
	t->start_deadline_ms = t->begun_ns / 1000000 + SVC_START_WAIT_MS;
	svc_log(v, "trace %llu: START sent to %d provider%s", (unsigned long long)t->id, n,
		n == 1 ? "" : "s");
}

/* The start's barrier passed (or ran out, or the trace is stopping): answers the client that
 * started it. None of the chosen recording: the trace is dropped and the start refused. */
static void answer_start(struct svc *v)
{
	struct svc_trace *t = v->trace;
	unsigned in = 0, rec = 0;
	char late[256] = "";
	size_t at = 0;
	for (size_t i = 0; i < v->np; i++) {
		const struct svc_provider *p = &v->p[i];
		if (p->session != t->id)
			continue;
		in++;
		rec += (unsigned)p->recording;
		if (!p->recording && at < sizeof(late) - 1)
			at += (size_t)snprintf(late + at, sizeof(late) - at, "%s%d (%s)",
					       at ? ", " : "", p->pid, p->name);
	}
	int fd = t->starter;
	uint64_t now = fxt_mono_ns(), took = now - t->begun_ns;
	struct svc_answer a = { .session = t->id, .recorded_ns = took };
	t->starter = -1;
	t->started_ns = now;
	if (!rec && !t->stopping) {
		svc_log(v, "trace %llu: none of %u chosen provider%s could record: dropped",
			(unsigned long long)t->id, t->chosen, t->chosen == 1 ? "" : "s");
		for (size_t i = v->np; i-- > 0;)
			if (v->p[i].session == t->id && v->p[i].state != FXT_PROVIDER_IDLE)
				v->up->stop(v, &v->p[i]);
		for (size_t i = 0; i < v->np; i++)
			if (v->p[i].session == t->id)
				v->p[i].session = 0, v->p[i].state = FXT_PROVIDER_IDLE;
		unsigned chosen = t->chosen;
		free_trace(v);
		v->up->reply(v, fd, -EIO, &a,
			     "none of the %u chosen program%s could start recording%s%s (see %s "
			     "stderr): no trace started",
			     chosen, chosen == 1 ? "" : "s", late[0] ? ": " : "", late,
			     chosen == 1 ? "its" : "their");
		return;
	}
	unsigned long long id = (unsigned long long)t->id;
	if (rec == in && in == t->chosen)
		v->up->reply(v, fd, 0, &a,
			     "trace %llu started: %u provider%s recording (in %.0f ms)", id, rec,
			     rec == 1 ? "" : "s", (double)took / 1e6);
	else if (rec == in)
		v->up->reply(v, fd, 0, &a,
			     "trace %llu started: %u provider%s recording (in %.0f ms; %u of the "
			     "%u chosen could not start: see %s stderr)",
			     id, rec, rec == 1 ? "" : "s", (double)took / 1e6, t->chosen - in,
			     t->chosen, t->chosen - in == 1 ? "its" : "their");
	else
		v->up->reply(v, fd, 0, &a,
			     "trace %llu started: %u of %u provider%s recording after %.1f s; not "
			     "yet: %s",
			     id, rec, in, in == 1 ? "" : "s", (double)took / 1e9, late);
	svc_log(v, "trace %llu started: %u of %u provider%s recording after %llu ms",
		(unsigned long long)t->id, rec, t->chosen, t->chosen == 1 ? "" : "s",
		(unsigned long long)(took / 1000000));
}

void svc_trace_joined(struct svc *v, struct svc_provider *p)
{
	if (v->trace && !v->trace->stopping && chooses(v->trace, p))
		v->up->start(v, p, v->trace);
}

void svc_trace_born_in(struct svc *v, struct svc_provider *p)
{
	const struct svc_trace *t = v->trace;
	if (t && t->id == p->session && !t->stopping)
		return;	/* its parent's trace: in it, stopped with it */
	svc_log(v, "provider %d: born in trace %llu, which is not running: stopped", p->pid,
		(unsigned long long)p->session);
	v->up->stop(v, p);
}

void svc_trace_stop(struct svc *v)
{
	struct svc_trace *t = v->trace;
	if (!t || t->stopping)
		return;
	t->stopping = 1;
	t->deadline_ms = svc_now_ms() + SVC_STOP_WAIT_MS;
	for (size_t i = v->np; i-- > 0;)
		if (v->p[i].session == t->id && v->p[i].state != FXT_PROVIDER_IDLE)
			v->up->stop(v, &v->p[i]);
	svc_log(v, "trace %llu: stopping", (unsigned long long)t->id);
}

/* Adds fd to the connections answered at the end. Fails: -ENOMEM. */
static int wait_for_end(struct svc_trace *t, int fd)
{
	for (size_t i = 0; i < t->nwaiting; i++)
		if (t->waiting[i] == fd)
			return 0;
	int *w = realloc(t->waiting, (t->nwaiting + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	t->waiting = w;
	t->waiting[t->nwaiting++] = fd;
	return 0;
}

/* Writes a snapshot into fd (from offset 0) and syncs it. Fails: -errno. */
static int snapshot(struct svc_trace *t, int fd, uint64_t cutoff, struct fxt_manager_stats *st)
{
	int rc = lseek(fd, 0, SEEK_SET) < 0 || ftruncate(fd, 0) < 0 ? -errno : 0;
	if (!rc)
		rc = fxt_manager_snapshot(t->m, fd, cutoff, st);
	if (!rc && fsync(fd) < 0 && errno != EINVAL)
		rc = -errno;
	return rc;
}

void svc_trace_end(struct svc *v, int fd, const struct fxt_msg_end *end, int file)
{
	struct svc_trace *t = v->trace;
	if (!t) {
		if (file >= 0)
			close(file);
		v->up->reply(v, fd, -ESRCH, NULL, "no trace running");
		return;
	}
	struct svc_answer a = { .session = t->id };
	if (end->what == FXT_END_SNAPSHOT) {
		struct fxt_manager_stats st;
		int rc = file < 0 ? -EINVAL : snapshot(t, file, 0, &st);
		if (file >= 0)
			close(file);
		a.st = &st;
		a.flags = FXT_REPLY_IN_FILE;
		a.recorded_ns = t->started_ns ? fxt_mono_ns() - t->started_ns : 0;
		if (rc < 0)
			v->up->reply(v, fd, rc, NULL, "snapshot not written: %s",
				     file < 0 ? "no file passed" : strerror(-rc));
		else
			v->up->reply(v, fd, 0, &a, "snapshot of trace %llu written",
				     (unsigned long long)t->id);
		return;
	}
	if (t->owner >= 0 && fd != t->owner && !(end->flags & FXT_END_FORCE)) {
		if (file >= 0)
			close(file);
		v->up->reply(v, fd, -EPERM, &a,
			     "trace %llu belongs to the fxt record of pid %d, which stops it and "
			     "writes its archive (fxt stop --force ends it now)",
			     (unsigned long long)t->id, t->owner_pid);
		return;
	}
	if (t->file_fd < 0 && file < 0 && !t->snapped) {
		v->up->reply(v, fd, -EINVAL, &a,
			     "no archive file: the trace was started without one (pass -o FILE)");
		return;
	}
	if (t->file_fd < 0) {
		t->file_fd = file;
		t->file_by = fd;
	} else if (file >= 0) {
		close(file);	/* the start's file is the archive */
	}
	if (wait_for_end(t, fd) < 0) {
		v->up->reply(v, fd, -ENOMEM, &a, "out of memory");
		return;
	}
	svc_trace_stop(v);
}

void svc_trace_triggered(struct svc *v, struct svc_provider *p,
			 const struct fxt_msg_triggered *m)
{
	struct svc_trace *t = v->trace;
	svc_log(v, "trace %llu: provider %d fired a %s trigger", (unsigned long long)t->id,
		p->pid, m->kind == FXT_TRIGGER_START  ? "start"
			: m->kind == FXT_TRIGGER_STOP ? "stop"
						      : "snapshot");
	if (m->kind == FXT_TRIGGER_START &&
	    (p->state == FXT_PROVIDER_ARMED || p->state == FXT_PROVIDER_FIRED))
		p->state = FXT_PROVIDER_TRACING;
	else if (m->kind == FXT_TRIGGER_STOP && p->state == FXT_PROVIDER_TRACING)
		p->state = FXT_PROVIDER_FIRED;
	if (m->kind != FXT_TRIGGER_SNAPSHOT || t->snapped || t->stopping || t->file_fd < 0)
		return;
	/* The flight recorder: what the buffers hold up to the trigger, at once (before a
	 * circular buffer overwrites it), then the trace ends with that as its archive. */
	int rc = snapshot(t, t->file_fd, m->ticks, &t->snap);
	t->snapped = rc < 0 ? rc : 1;
	if (t->owner >= 0)
		wait_for_end(t, t->owner);
	svc_trace_stop(v);
}

void svc_trace_client_gone(struct svc *v, int fd)
{
	struct svc_trace *t = v->trace;
	if (!t)
		return;
	for (size_t i = 0; i < t->nwaiting; i++)
		if (t->waiting[i] == fd)
			t->waiting[i--] = t->waiting[--t->nwaiting];
	if (t->starter == fd)
		t->starter = -1;
	if (t->file_by == fd)
		t->file_by = -1;
	if (t->owner == fd) {
		t->owner = -1;
		svc_trace_stop(v);
	}
}

/* Copies the temporary archive into the client's file. Fails: -errno. */
static int copy_out(int from, int to)
{
	char buf[1 << 16];
	off_t at = 0;
	ssize_t n;
	while ((n = pread(from, buf, sizeof(buf), at)) > 0) {
		int rc = fxt_write_all(to, buf, (size_t)n);
		if (rc < 0)
			return rc;
		at += n;
	}
	return n < 0 ? -errno : 0;
}

/* Where a complete archive nobody named goes: the runtime directory's trace-<id>.fxt, linked
 * from the temporary (path: its name). Fails: -errno. */
static int keep_in_runtime_dir(struct svc *v, struct svc_trace *t, char *path, size_t size)
{
	char proc[64];
	if (snprintf(path, size, "%s/trace-%llu.fxt", v->dir, (unsigned long long)t->id) >=
	    (int)size)
		return -ENAMETOOLONG;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", t->out_fd);
	unlink(path);	/* a manager's of an earlier life: ids start at 1 again */
	return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/* Writes the archive and answers everyone waiting: each is told which file holds it. */
static void finish(struct svc *v)
{
	struct svc_trace *t = v->trace;
	struct fxt_manager_stats st = { 0 };
	char where[FXT_PATH_MAX + 8] = "";
	int rc = 0;
	/* late STARTED and SAVE_BUFFER packets, as fxtrun reads them at its end */
	for (int i = 0; i < 8 && fxt_manager_poll(t->m, -1, 0) >= 0; i++)
		;
	if (t->snapped) {
		st = t->snap;
		rc = t->snapped < 0 ? t->snapped : 0;
	} else {
		rc = fxt_manager_write(t->m, &st);
		if (!rc && t->file_fd < 0)
			rc = keep_in_runtime_dir(v, t, where, sizeof(where));
		else if (!rc && t->req->mode != FXT_BUF_STREAMING)
			rc = lseek(t->file_fd, 0, SEEK_SET) < 0 || ftruncate(t->file_fd, 0) < 0
				     ? -errno
				     : copy_out(t->out_fd, t->file_fd);
		if (!rc && t->file_fd >= 0 && fsync(t->file_fd) < 0 && errno != EINVAL)
			rc = -errno;
	}
	if (!rc && t->req->output[0]) {
		/* fxt start -o: complete, renamed here whoever ended the trace */
		char part[FXT_PATH_MAX + 8];
		const char *why;
		(void)fxt_outpath_part(t->req->output, part, sizeof(part));	/* fits */
		if (fxt_outpath_commit(part, t->req->output, &why) == 0)
			snprintf(where, sizeof(where), "%s", t->req->output);
		else
			snprintf(where, sizeof(where), "%s", part),
				svc_log(v, "trace %llu: %s %s: the complete archive stays in %s",
					(unsigned long long)t->id, t->req->output, why, part);
	}
	uint64_t now = fxt_mono_ns();
	svc_log(v, "trace %llu: ended (%s%s%s), %llu events", (unsigned long long)t->id,
		rc ? strerror(-rc) : "archive written", where[0] ? " to " : "", where,
		(unsigned long long)st.events);
	if (t->owner >= 0)
		wait_for_end(t, t->owner);
	const char *how = !t->snapped	     ? "stopped"
			  : st.events	     ? "ended by its snapshot trigger"
					     : "ended by its snapshot trigger, which fired before "
					       "anything was recorded";
	for (size_t i = 0; i < t->nwaiting; i++) {
		int fd = t->waiting[i];
		struct svc_answer a = {
			.session = t->id, .st = &st,
			.flags = where[0] ? 0 : fd == t->file_by ? FXT_REPLY_IN_FILE
								   : FXT_REPLY_IN_START,
			.recorded_ns = t->started_ns ? now - t->started_ns : 0,
			.archive = where,
		};
		if (rc < 0)
			v->up->reply(v, fd, rc, &a, "archive not written: %s", strerror(-rc));
		else
			v->up->reply(v, fd, 0, &a, "trace %llu %s", (unsigned long long)t->id, how);
	}
	for (size_t i = 0; i < v->np; i++)
		if (v->p[i].session == t->id) {
			v->p[i].session = 0;
			v->p[i].state = FXT_PROVIDER_IDLE;
			v->p[i].recording = 0;
		}
	free_trace(v);
}

void svc_trace_check(struct svc *v)
{
	struct svc_trace *t = v->trace;
	if (!t)
		return;
	uint64_t now = svc_now_ms();
	if (t->starter >= 0) {
		int pending = 0;
		for (size_t i = 0; i < v->np; i++)
			pending |= v->p[i].session == t->id && !v->p[i].recording;
		if (!pending || t->stopping || now >= t->start_deadline_ms)
			answer_start(v);
		if (!(t = v->trace))
			return;
	}
	if (!t->stopping)
		return;
	int pending = 0;
	for (size_t i = 0; i < v->np; i++)
		pending |= v->p[i].session == t->id;
	if (!pending || now >= t->deadline_ms)
		finish(v);
}

int svc_trace_timeout_ms(const struct svc *v)
{
	const struct svc_trace *t = v->trace;
	uint64_t at = !t		   ? 0
		      : t->stopping	   ? t->deadline_ms
		      : t->starter >= 0 ? t->start_deadline_ms
					   : 0;
	if (!at)
		return -1;
	uint64_t now = svc_now_ms();
	return now >= at ? 0 : (int)(at - now);
}
