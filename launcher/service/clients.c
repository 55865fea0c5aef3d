/* The service's control connections (service.h): clients of our user only; LIST answered from
 * the registry (with each tracing provider's buffer use), TRACE and END handed to the trace,
 * REPLY built here. A descriptor is taken only with TRACE and END; anything off-contract
 * closes the connection and is counted. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/outpath.h"
#include "launcher/manager/accept.h"
#include "launcher/manager/msg.h"
#include "launcher/service/service.h"

/* A client shed for want of descriptors is told why. */
static void tell_shed(int fd, void *arg)
{
	svc_reply(arg, fd, -EMFILE, NULL,
		  "the manager is out of descriptors (too many connections): refused");
}

void svc_clients_accept(struct svc *v)
{
	int fd;
	while ((fd = svc_accept(v, v->ctl_fd, "client", NULL, tell_shed)) >= 0) {
		if (v->nclients >= SVC_MAX_CLIENTS) {
			svc_reply(v, fd, -EUSERS, NULL,
				  "the manager has %d client connections open, the most it "
				  "takes: refused",
				  SVC_MAX_CLIENTS);
			if (v->shed++ % 1000 == 0)
				svc_log(v, "client connection refused: %d open already (%llu shed "
					   "so far)",
					SVC_MAX_CLIENTS, (unsigned long long)v->shed);
			close(fd);
			continue;
		}
		if (fxt_accepted_add(&v->clients, &v->nclients, &v->ccap, fd) < 0)
			close(fd);
	}
}

/* Removes client fd from the list (the caller closes it). */
static void forget(struct svc *v, int fd)
{
	for (size_t i = 0; i < v->nclients; i++)
		if (v->clients[i] == fd) {
			v->clients[i] = v->clients[--v->nclients];
			return;
		}
}

void svc_reply(struct svc *v, int fd, int status, const struct svc_answer *a, const char *fmt,
	       ...)
{
	static struct fxt_msg_reply r;
	r = (struct fxt_msg_reply){ .h = fxt_msg_hdr(FXT_MSG_REPLY, sizeof(r)), .status = status };
	if (a) {
		r.session = a->session;
		r.flags = a->flags;
		r.recorded_ns = a->recorded_ns;
		if (a->archive)
			snprintf(r.archive, sizeof(r.archive), "%s", a->archive);
	}
	const struct fxt_manager_stats *st = a ? a->st : NULL;
	if (st) {
		r.processes = st->processes;
		r.threads = st->threads;
		r.events = st->events;
		r.bytes = st->bytes;
		r.dropped = st->dropped;
		r.drop_reasons = st->drop_reasons;
		r.corrupt = (uint32_t)st->corrupt;
		r.overwritten = st->overwritten;
		r.overwritten_records = st->overwritten_records;
		r.kept_ns = st->kept_ns;
		r.span_ns = st->span_ns;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r.message, sizeof(r.message), fmt, ap);
	va_end(ap);
	int rc = fxt_msg_send(fd, &r, sizeof(r), -1);
	if (rc < 0)
		svc_log(v, "client: reply not sent (%s)", strerror(-rc));
}

static void list(struct svc *v, int fd)
{
	size_t max = (FXT_MSG_MAX - sizeof(struct fxt_msg_list)) / sizeof(struct fxt_list_entry);
	struct fxt_msg_list *m = calloc(1, FXT_MSG_MAX);
	if (!m) {
		svc_reply(v, fd, -ENOMEM, NULL, "out of memory");
		return;
	}
	struct fxt_list_entry *e = (struct fxt_list_entry *)(m + 1);
	for (size_t i = 0; i < v->np && m->count < max; i++) {
		const struct svc_provider *p = &v->p[i];
		if (!p->state)
			continue;	/* no HELLO yet */
		struct fxt_list_entry *o = &e[m->count++];
		o->pid = (uint32_t)p->pid;
		o->state = (p->state == FXT_PROVIDER_TRACING || p->state == FXT_PROVIDER_ARMED) &&
					   !p->recording
				   ? FXT_PROVIDER_STARTING
				   : p->state;
		memcpy(o->name, p->name, sizeof(o->name));
		if (v->trace && p->session == v->trace->id)
			fxt_manager_usage(v->trace->m, p->pid, &o->buffer_used, &o->buffer_size);
	}
	if (v->trace) {
		m->session = v->trace->id;
		m->session_state = 1;
	}
	size_t len = sizeof(*m) + m->count * sizeof(*e);
	m->h = fxt_msg_hdr(FXT_MSG_LIST_REPLY, len);
	int rc = fxt_msg_send(fd, m, len, -1);
	if (rc < 0)
		svc_log(v, "client: list not sent (%s)", strerror(-rc));
	free(m);
}

void svc_clients_read(struct svc *v, int fd)
{
	uint64_t buf[FXT_MSG_MAX / 8];
	int file;
	long n = fxt_msg_recv(fd, buf, sizeof(buf), &file);
	if (n == -EAGAIN)
		return;
	if (n <= 0 && n != -EMSGSIZE) {
		forget(v, fd);
		svc_trace_client_gone(v, fd);
		close(fd);
		return;
	}
	const char *why = "packet larger than any";
	int type = n > 0 ? fxt_msg_check(buf, (size_t)n, FXT_FROM_CLIENT, &why) : -EBADMSG;
	if (type > 0 && file >= 0 && type == FXT_MSG_LIST)
		type = -EBADMSG, why = "a descriptor with LIST";
	if (type < 0) {
		if (file >= 0)
			close(file);
		forget(v, fd);
		svc_trace_client_gone(v, fd);
		svc_refuse(v, fd, "client", why);
		return;
	}
	const char *bad_file;
	if (file >= 0 && fxt_outfd_check(file, &bad_file) < 0) {
		close(file);
		svc_reply(v, fd, -EINVAL, NULL, "the archive file passed %s", bad_file);
		return;
	}
	switch (type) {
	case FXT_MSG_LIST:
		list(v, fd);
		break;
	case FXT_MSG_TRACE:
		svc_trace_begin(v, fd, (const struct fxt_msg_trace *)buf, (size_t)n, file);
		break;
	case FXT_MSG_END:
		svc_trace_end(v, fd, (const struct fxt_msg_end *)buf, file);
		break;
	}
}
