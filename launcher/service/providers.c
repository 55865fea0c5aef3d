/* The service's registry of providers (service.h): connections accepted only from our user, a
 * HELLO only for the peer's own pid and only once, then RECORDING, STOPPED and TRIGGERED for
 * the trace the provider is in. START and STOP go out without waiting: a provider whose queue is full or whose
 * connection broke is removed. Anything off-contract closes the connection and is counted. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/grow.h"
#include "launcher/manager/msg.h"
#include "launcher/service/service.h"

static struct svc_provider *find(struct svc *v, int fd)
{
	for (size_t i = 0; i < v->np; i++)
		if (v->p[i].fd == fd)
			return &v->p[i];
	return NULL;
}

/* Removes p from the registry (its connection closed by the caller or here). */
static void drop(struct svc *v, struct svc_provider *p, int close_fd)
{
	if (close_fd)
		close(p->fd);
	*p = v->p[--v->np];
}

void svc_providers_accept(struct svc *v)
{
	int fd, pid;
	while ((fd = svc_accept(v, v->reg_fd, "provider", &pid, NULL)) >= 0) {
		if (FXT_GROW(v->p, &v->pcap, v->np + 1) < 0) {
			close(fd);
			continue;
		}
		v->p[v->np++] = (struct svc_provider){ .fd = fd, .pid = pid };
	}
}

/* Sends pkt to p; on failure p is removed (as if gone). */
static int send_to(struct svc *v, struct svc_provider *p, const void *pkt, size_t len)
{
	int rc = fxt_msg_send(p->fd, pkt, len, -1);
	if (rc < 0) {
		svc_log(v, "provider %d: cannot send to it (%s): dropped", p->pid, strerror(-rc));
		drop(v, p, 1);
	}
	return rc;
}

int svc_provider_start(struct svc *v, struct svc_provider *p, const struct svc_trace *t)
{
	const struct fxt_msg_trace *req = t->req;
	size_t trig = (size_t)req->ntriggers * sizeof(struct fxt_trigger);
	size_t len = sizeof(struct fxt_msg_start) + trig;
	size_t dir_len = strlen(t->session.dir);
	struct fxt_msg_start *m = dir_len < sizeof(m->session_dir) ? calloc(1, len) : NULL;
	if (!m)
		return dir_len < sizeof(m->session_dir) ? -ENOMEM : -ENAMETOOLONG;
	m->h = fxt_msg_hdr(FXT_MSG_START, len);
	m->session = t->id;
	m->buffer_size = req->buffer_size;
	m->mode = req->mode;
	m->ntriggers = req->ntriggers;
	memcpy(m->session_dir, t->session.dir, dir_len + 1);
	memcpy(m->categories, req->categories, sizeof(m->categories));
	memcpy(m + 1, req + 1, trig);
	int armed = 0;
	for (uint32_t i = 0; i < req->ntriggers; i++)
		armed |= ((const struct fxt_trigger *)(req + 1))[i].kind == FXT_TRIGGER_START;
	uint64_t id = t->id;
	int pid = p->pid;
	int rc = send_to(v, p, m, len);
	free(m);
	if (rc < 0)
		return rc;
	p->state = armed ? FXT_PROVIDER_ARMED : FXT_PROVIDER_TRACING;
	p->session = id;
	p->recording = 0;
	svc_log(v, "trace %llu: provider %d started", (unsigned long long)id, pid);
	return 0;
}

int svc_provider_stop(struct svc *v, struct svc_provider *p)
{
	struct fxt_msg_session m = { .h = fxt_msg_hdr(FXT_MSG_STOP, sizeof(m)),
				     .session = p->session };
	int rc = send_to(v, p, &m, sizeof(m));
	if (!rc)
		p->state = FXT_PROVIDER_STOPPING;
	return rc;
}

void svc_providers_read(struct svc *v, int fd)
{
	struct svc_provider *p = find(v, fd);
	if (!p)
		return;
	union {
		uint64_t words[FXT_MSG_MAX / 8];
		struct fxt_msg_hello hello;
		struct fxt_msg_session session;
		struct fxt_msg_triggered triggered;
	} u;
	long n = fxt_msg_recv(fd, &u, sizeof(u), NULL);
	if (n == -EAGAIN)
		return;
	if (n <= 0 && n != -EMSGSIZE) {	/* gone: exit, crash, or it closed */
		drop(v, p, 1);
		return;
	}
	const char *why = "packet larger than any";
	int type = n > 0 ? fxt_msg_check(&u, (size_t)n, FXT_FROM_PROVIDER, &why) : -EBADMSG;
	if (type == FXT_MSG_HELLO) {
		if (p->state)
			why = "HELLO twice", type = -EBADMSG;
		else if ((int)u.hello.pid != p->pid)
			why = "HELLO for a pid not its own", type = -EBADMSG;
	} else if (type > 0 && !p->state) {
		why = "no HELLO first", type = -EBADMSG;
	}
	if (type < 0) {
		svc_refuse(v, fd, "provider", why);
		drop(v, p, 0);
		return;
	}
	int ours = v->trace && p->session == v->trace->id;
	switch (type) {
	case FXT_MSG_HELLO:
		memcpy(p->name, u.hello.name, sizeof(p->name));
		p->state = u.hello.state;
		p->session = u.hello.session;
		p->recording = p->session != 0;
		svc_log(v, "provider %d (%s) registered%s", p->pid, p->name,
			p->session ? ", born in a trace" : "");
		if (p->session)
			svc_trace_born_in(v, p);
		else
			svc_trace_joined(v, p);
		break;
	case FXT_MSG_STOPPED:	/* a late one of an earlier trace is no news */
		if (u.session.session == p->session) {
			p->state = FXT_PROVIDER_IDLE;
			p->session = 0;
			p->recording = 0;
		}
		break;
	case FXT_MSG_RECORDING:
		p->recording |= u.session.session == p->session;
		break;
	case FXT_MSG_TRIGGERED:
		if (ours && u.triggered.session == p->session)
			svc_trace_triggered(v, p, &u.triggered);
		break;
	}
}
