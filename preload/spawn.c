/* pthread_create as a flow: the creating thread gets a `pthread_create` duration (category
 * `thread`) covering the real call, with a flow begin inside it; the new thread is set up
 * before its start routine (so every thread is named, also in uninstrumented programs) and
 * opens with a `thread_start` duration holding the flow end, so viewers draw an arrow from
 * the creation to the thread (not in circular mode, where either half may be overwritten).
 * Flow ids are unique in the process. The start routine's return
 * value, pthread_exit and cancellation pass through the trampoline unchanged. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "preload/wait.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t flow;	/* 0: not recorded */
};

static uint64_t next_flow = 1;
static struct fxtp_cstr s_thread = FXTP_CSTR("pthread"), s_create = FXTP_CSTR("pthread_create"),
			s_start = FXTP_CSTR("thread_start"), s_flow = FXTP_CSTR("spawn");

static void write_flow(struct fxtp_thread *t, unsigned flow_type, uint64_t ts, uint64_t id)
{
	struct fxt_event e = FXT_EVENT_INIT(flow_type, fxtp_thread_ref(t), fxtp_cstr(&s_thread),
					    fxtp_cstr(&s_flow), ts, id);
	fxtp_rec_event(t, &e);
}

static void write_span(struct fxtp_thread *t, struct fxtp_cstr *name, uint64_t start,
		       uint64_t end)
{
	struct fxt_event e = fxt_ev_complete(fxtp_thread_ref(t), fxtp_cstr(&s_thread),
					     fxtp_cstr(name), start, end > start ? end : start + 1);
	fxtp_rec_event(t, &e);
}

/* Without ASan redzones: a cancelled thread unwinds this frame without unpoisoning it. */
__attribute__((no_sanitize_address)) static void *trampoline(void *p)
{
	struct start st = *(struct start *)p;
	uint64_t t0 = fxtp_now();
	int saved = errno;

	free(p);
	struct fxtp_thread *t = fxtp_rec_enter();
	if (t) {
		if (st.flow)
			write_flow(t, FXT_ET_FLOW_END, t0, st.flow);
		write_span(t, &s_start, t0, fxtp_now());
		fxtp_leave(t);
	}
	errno = saved;
	return st.fn(st.arg);
}

/* The flow begins before the thread exists: the new thread may end the process at once. */
FXTP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			       void *arg)
{
	fxtp_real_init();
	if (!fxtp_real.pthread_create)
		return ENOSYS;
	if (!fxtp_running())
		return fxtp_real.pthread_create(th, attr, fn, arg);
	struct start *st = malloc(sizeof(*st));
	if (!st)
		return fxtp_real.pthread_create(th, attr, fn, arg);
	uint64_t id = __atomic_fetch_add(&next_flow, 1, __ATOMIC_RELAXED), t0 = fxtp_now();
	int saved = errno, traced = 0;
	struct fxtp_thread *t = fxtp_rec_enter();
	if (t) {
		traced = 1;
		if (fxtp.buf.hdr->mode == FXT_BUF_CIRCULAR)
			id = 0;	/* overwritten chunks would leave halves of flows */
		else
			write_flow(t, FXT_ET_FLOW_BEGIN, t0, id);
		fxtp_leave(t);
	} else {
		id = 0;
	}
	errno = saved;
	*st = (struct start){ fn, arg, id };	/* the new thread frees it */
	int rc = fxtp_real.pthread_create(th, attr, trampoline, st);
	uint64_t t1 = fxtp_now();
	if (rc != 0)
		free(st);
	if (traced && (t = fxtp_rec_enter())) {
		if (rc != 0 && id)	/* no thread: the flow ends where it began */
			write_flow(t, FXT_ET_FLOW_END, t1, id);
		write_span(t, &s_create, t0, t1);
		fxtp_leave(t);
	}
	errno = saved;
	return rc;
}
