/* pthread_create as a flow: the creating thread gets a `pthread_create` duration (category
 * `thread`) covering the real call, with a flow begin inside it; the new thread is set up
 * before its start routine (so every thread is named, also in uninstrumented programs) and
 * opens with a `thread_start` duration holding the flow end, so viewers draw an arrow from
 * the creation to the thread (not in circular mode, where either half may be overwritten).
 * Flow ids are unique in the process. A flow whose thread has not started when the process
 * exits is ended by the exit flush (fxtp_spawn_flush), so no flow is left half-written; its
 * slot in `pending` decides, by one atomic exchange, who writes the end. The start routine's
 * return value, pthread_exit and cancellation pass through the trampoline unchanged. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/real.h"
#include "preload/wait.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t flow;	/* 0: not recorded */
	unsigned slot;	/* its slot in pending */
};

static uint64_t next_flow = 1;
/* Flows begun whose thread has not started yet (0: free). Full: the creation gets no flow. */
#define PENDING_FLOWS 256
static uint64_t pending[PENDING_FLOWS];

/* Takes a free slot for flow id; PENDING_FLOWS when none is free. */
static unsigned pending_take(uint64_t id)
{
	for (unsigned i = 0; i < PENDING_FLOWS; i++) {
		uint64_t expected = 0;
		if (__atomic_compare_exchange_n(&pending[i], &expected, id, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return i;
	}
	return PENDING_FLOWS;
}

/* 1 when the caller is the one to end flow id (its slot still held it), freeing the slot. */
static int pending_claim(unsigned slot, uint64_t id)
{
	return slot < PENDING_FLOWS &&
	       __atomic_compare_exchange_n(&pending[slot], &id, 0, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}
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
		/* The chunk first (taking one may block in the file system): once the slot is
		 * claimed, the flow end is written at once, before an exit() elsewhere ends us. */
		fxt_chunk_ensure(&t->w, 16);
		if (st.flow && pending_claim(st.slot, st.flow))
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
	unsigned slot = PENDING_FLOWS;
	int saved = errno, traced = 0;
	struct fxtp_thread *t = fxtp_rec_enter();
	if (t) {
		traced = 1;
		/* Circular mode: overwritten chunks would leave halves of flows. */
		if (fxtp.buf.hdr->mode != FXT_BUF_CIRCULAR)
			slot = pending_take(id);
		if (slot < PENDING_FLOWS)
			write_flow(t, FXT_ET_FLOW_BEGIN, t0, id);
		else
			id = 0;
		fxtp_leave(t);
	} else {
		id = 0;
	}
	errno = saved;
	*st = (struct start){ fn, arg, id, slot };	/* the new thread frees it */
	int rc = fxtp_real.pthread_create(th, attr, trampoline, st);
	uint64_t t1 = fxtp_now();
	if (rc != 0)
		free(st);
	if (traced && (t = fxtp_rec_enter())) {
		/* No thread: the flow ends where it began (unless the exit flush ended it). */
		if (rc != 0 && id && pending_claim(slot, id))
			write_flow(t, FXT_ET_FLOW_END, t1, id);
		write_span(t, &s_create, t0, t1);
		fxtp_leave(t);
	}
	errno = saved;
	return rc;
}

void fxtp_spawn_after_fork(void)
{
	/* The parent's pending flows belong to threads of the parent: the child must not end
	 * them (its archive has no begin for them). */
	memset(pending, 0, sizeof(pending));
}

void fxtp_spawn_flush(struct fxt_chunk_w *w, uint64_t now)
{
	struct fxt_thread self = fxt_thread_inl((uint64_t)fxtp.pid, (uint64_t)gettid());
	for (unsigned i = 0; i < PENDING_FLOWS; i++) {
		uint64_t id = __atomic_exchange_n(&pending[i], 0, __ATOMIC_ACQ_REL);
		if (!id)
			continue;
		struct fxt_event e = FXT_EVENT_INIT(FXT_ET_FLOW_END, self, fxtp_cstr(&s_thread),
						    fxtp_cstr(&s_flow), now, id);
		uint64_t *r = fxt_chunk_reserve(w, fxt_event_words(&e));
		if (r)
			fxt_event_write(r, &e);
	}
}
