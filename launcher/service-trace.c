/* The service's trace (service.h): one at a time. TRACE makes a session (launcher/session.c:
 * buffers on /dev/shm) and an fxt_manager writing the archive, and sends START to every chosen
 * provider, and later to each one that registers and is chosen by the same rule. END STOP (or
 * the attached client leaving, or SIGTERM) sends STOP and waits at most SVC_STOP_WAIT_MS for
 * the providers; then the archive is written into the client's file (passed with SCM_RIGHTS:
 * the service never opens a path a client chose), synced, and the REPLY carries what it holds.
 * Streaming writes the client's file from the start; the other modes write a temporary file of
 * the runtime directory, copied into the client's file at the end. A snapshot (END SNAPSHOT,
 * or a provider's snapshot trigger, cut at the trigger's tick) reads the buffers afresh and
 * leaves the trace as it is. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "launcher/service.h"
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
		if (chooses(v->trace, &v->p[i]) && svc_provider_start(v, &v->p[i], v->trace) == 0)
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
		svc_reply(v, fd, status, 0, NULL, "%s", why);
		return;
	}
	struct svc_trace *t = calloc(1, sizeof(*t));
	int rc = t && (t->req = malloc(len)) ? 0 : -ENOMEM;
	if (t) {
		t->out_fd = -1;
		t->file_fd = file;
		t->owner = req->flags & FXT_TRACE_ATTACHED ? fd : -1;
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
		svc_reply(v, fd, rc, 0, NULL, "cannot start the trace: %s", strerror(-rc));
		return;
	}
	v->trace = t;
	int n = start_chosen(v);
	svc_log(v, "trace %llu started: %d provider%s", (unsigned long long)t->id, n,
		n == 1 ? "" : "s");
	svc_reply(v, fd, 0, t->id, NULL, "trace %llu started: %d provider%s",
		  (unsigned long long)t->id, n, n == 1 ? "" : "s");
}

void svc_trace_joined(struct svc *v, struct svc_provider *p)
{
	if (v->trace && !v->trace->stopping && chooses(v->trace, p))
		svc_provider_start(v, p, v->trace);
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
			svc_provider_stop(v, &v->p[i]);
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
		svc_reply(v, fd, -ESRCH, 0, NULL, "no trace running");
		return;
	}
	if (end->what == FXT_END_SNAPSHOT) {
		struct fxt_manager_stats st;
		int rc = file < 0 ? -EINVAL : snapshot(t, file, 0, &st);
		if (file >= 0)
			close(file);
		if (rc < 0)
			svc_reply(v, fd, rc, t->id, NULL, "snapshot not written: %s",
				  file < 0 ? "no file passed" : strerror(-rc));
		else
			svc_reply(v, fd, 0, t->id, &st, "snapshot of trace %llu written",
				  (unsigned long long)t->id);
		return;
	}
	if (t->file_fd < 0 && file < 0 && !t->snapped) {
		svc_reply(v, fd, -EINVAL, t->id, NULL,
			  "no archive file: the trace was started without one (pass -o FILE)");
		return;
	}
	if (t->file_fd < 0)
		t->file_fd = file;
	else if (file >= 0)
		close(file);	/* the start's file is the archive */
	if (wait_for_end(t, fd) < 0) {
		svc_reply(v, fd, -ENOMEM, t->id, NULL, "out of memory");
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
	if (m->kind == FXT_TRIGGER_START && p->state == FXT_PROVIDER_ARMED)
		p->state = FXT_PROVIDER_TRACING;
	else if (m->kind == FXT_TRIGGER_STOP && p->state == FXT_PROVIDER_TRACING)
		p->state = FXT_PROVIDER_ARMED;
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

/* Writes the archive and answers everyone waiting. */
static void finish(struct svc *v)
{
	struct svc_trace *t = v->trace;
	struct fxt_manager_stats st;
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
			rc = -ENOENT;	/* nobody gave a file: the archive goes */
		else if (!rc && t->req->mode != FXT_BUF_STREAMING)
			rc = lseek(t->file_fd, 0, SEEK_SET) < 0 || ftruncate(t->file_fd, 0) < 0
				     ? -errno
				     : copy_out(t->out_fd, t->file_fd);
		if (!rc && fsync(t->file_fd) < 0 && errno != EINVAL)
			rc = -errno;
	}
	svc_log(v, "trace %llu: ended (%s), %llu events", (unsigned long long)t->id,
		rc ? strerror(-rc) : "archive written", (unsigned long long)st.events);
	if (t->owner >= 0)
		wait_for_end(t, t->owner);
	for (size_t i = 0; i < t->nwaiting; i++) {
		if (rc < 0)
			svc_reply(v, t->waiting[i], rc, t->id, NULL, "archive not written: %s",
				  strerror(-rc));
		else
			svc_reply(v, t->waiting[i], 0, t->id, &st, "trace %llu %s",
				  (unsigned long long)t->id,
				  t->snapped ? "ended by its snapshot trigger" : "stopped");
	}
	for (size_t i = 0; i < v->np; i++)
		if (v->p[i].session == t->id) {
			v->p[i].session = 0;
			v->p[i].state = FXT_PROVIDER_IDLE;
		}
	free_trace(v);
}

void svc_trace_check(struct svc *v)
{
	struct svc_trace *t = v->trace;
	if (!t || !t->stopping)
		return;
	int pending = 0;
	for (size_t i = 0; i < v->np; i++)
		pending |= v->p[i].session == t->id;
	if (!pending || svc_now_ms() >= t->deadline_ms)
		finish(v);
}

int svc_trace_timeout_ms(const struct svc *v)
{
	if (!v->trace || !v->trace->stopping)
		return -1;
	uint64_t now = svc_now_ms();
	return now >= v->trace->deadline_ms ? 0 : (int)(v->trace->deadline_ms - now);
}
