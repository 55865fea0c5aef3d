/* pthread_create as a flow: the creating thread gets a `pthread_create` duration (category
 * `pthread`) covering the real call, with a flow begin inside it; the new thread is set up
 * before its start routine (so every thread is named, also in uninstrumented programs) and
 * opens with a short `thread_start` duration holding the flow end, so viewers draw an arrow from
 * the creation to the thread (not in circular mode, where either half may be overwritten).
 * Perfetto binds a flow record to the innermost slice open on its thread when it reads the
 * record, in time order (ties: archive order): so each flow record lies fxtp_tick_gap after its
 * slice's start (another nanosecond), and that slice starts in a nanosecond of its own after
 * the enclosing frame's (fxtp_after). Flow ids are unique in the process. A flow whose thread
 * has not started when the process exits is ended by the exit flush (fxtp_spawn_flush), inside
 * a short `unstarted thread` duration of the flushing thread, so no flow is left half-written
 * and every flow end lies in a slice of a thread of the archive; its slot in `pending` decides,
 * by one atomic exchange, who writes the end: the new thread writes its span first, its flow
 * end already in place but committed only once it won the slot. The start routine's return
 * value, pthread_exit and cancellation pass through the trampoline unchanged. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/real.h"
#include "preload/hot/thread.h"
#include "preload/events/record.h"
#include "preload/events/spawn.h"

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

static struct fxt_event flow_event(struct fxt_thread th, unsigned flow_type, uint64_t ts,
				   uint64_t id)
{
	return FXT_EVENT_INIT(flow_type, th, fxtp_cstr(&s_thread), fxtp_cstr(&s_flow), ts, id);
}

static void write_flow(struct fxtp_thread *t, unsigned flow_type, uint64_t ts, uint64_t id)
{
	struct fxt_event e = flow_event(fxtp_thread_ref(t), flow_type, ts, id);
	fxtp_rec_event(t, &e);
}

static struct fxt_event span_event(struct fxt_thread th, struct fxt_str name, uint64_t start,
				   uint64_t end)
{
	return fxt_ev_complete(th, fxtp_cstr(&s_thread), name, start, end);
}

/* The start of a span of t beginning now, inside t's innermost open frame. */
static uint64_t span_start(const struct fxtp_thread *t)
{
	return fxtp_after(t->base && t->top > t->base ? t->top[-1].start : 0, fxtp_now());
}

/* The end of a span that began at start and holds a flow record at start + fxtp_tick_gap: now, or
 * later to hold it; or the stop time when the trace stopped meanwhile (the archive leaves out
 * events stamped after it, a span too when its end is: its flow record would lose its slice).
 * 0: the flow record itself is after the stop. */
static uint64_t span_end(uint64_t start, uint64_t now)
{
	uint64_t min = start + fxtp_tick_gap, end = (int64_t)(now - min) > 0 ? now : min;
	uint64_t stop = __atomic_load_n(&fxtp.buf.hdr->stop_ticks, __ATOMIC_SEQ_CST);
	if (!stop || (int64_t)(stop - end) >= 0)
		return end;
	return (int64_t)(stop - min) >= 0 ? stop : 0;
}

/* The new thread's span, then the flow end inside it, committed only if the slot is still ours
 * (else the exit flush ended the flow: the reserved words become padding). */
static void thread_started(struct fxtp_thread *t, const struct start *st, uint64_t t0)
{
	uint64_t end = span_end(t0, fxtp_now());
	if (!end)
		return;	/* after the stop: the exit flush ends the flow */
	struct fxt_event span = span_event(fxtp_thread_ref(t), fxtp_cstr(&s_start), t0, end);
	fxtp_rec_event(t, &span);
	if (!st->flow)
		return;
	uint64_t rec[16];
	struct fxt_event e = flow_event(fxtp_thread_ref(t), FXT_ET_FLOW_END, t0 + fxtp_tick_gap,
					st->flow);
	uint32_t words = fxt_event_words(&e);
	uint64_t *r = words >= 2 && words <= 16 ? fxt_chunk_reserve(&t->w, words) : NULL;
	if (!r || fxt_event_write(rec, &e) < 0)
		return;	/* dropped: the slot stays for the exit flush */
	memcpy(r + 1, rec + 1, (words - 1) * 8);
	fxt_chunk_commit(r, pending_claim(st->slot, st->flow) ? rec[0] : fxt_padding_hdr(words));
}

/* Without ASan redzones: a cancelled thread unwinds this frame without unpoisoning it. */
__attribute__((no_sanitize_address)) static void *trampoline(void *p)
{
	struct start st = *(struct start *)p;
	uint64_t t0 = fxtp_now();
	int saved = errno;

	free(p);
	fxtp_thread_alive();
	struct fxtp_thread *t = fxtp_rec_enter();
	if (t) {
		/* The chunk first (taking one may block in the file system): the records are
		 * then written at once, before an exit() elsewhere ends us. */
		fxt_chunk_ensure(&t->w, 32);
		thread_started(t, &st, t0);
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
	uint64_t id = __atomic_fetch_add(&next_flow, 1, __ATOMIC_RELAXED), t0 = 0;
	unsigned slot = PENDING_FLOWS;
	int saved = errno, traced = 0;
	struct fxtp_thread *t = fxtp_rec_enter();
	if (t) {
		traced = 1;
		t0 = span_start(t);
		/* Circular mode: overwritten chunks would leave halves of flows. */
		if (fxtp.buf.hdr->mode != FXT_BUF_CIRCULAR)
			slot = pending_take(id);
		if (slot < PENDING_FLOWS)
			write_flow(t, FXT_ET_FLOW_BEGIN, t0 + fxtp_tick_gap, id);
		else
			id = 0;
		fxtp_leave(t);
	} else {
		id = 0;
	}
	errno = saved;
	*st = (struct start){ fn, arg, id, slot };	/* the new thread frees it */
	int rc = fxtp_real.pthread_create(th, attr, trampoline, st);
	if (rc != 0)
		free(st);
	if (traced && (t = fxtp_rec_enter())) {
		uint64_t t1 = span_end(t0, fxtp_now());
		/* No thread: the flow ends where it began (unless the exit flush ended it). */
		if (t1 && rc != 0 && id && pending_claim(slot, id))
			write_flow(t, FXT_ET_FLOW_END, t1, id);
		struct fxt_event span = span_event(fxtp_thread_ref(t), fxtp_cstr(&s_create), t0, t1);
		if (t1)
			fxtp_rec_event(t, &span);
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
	/* The span ends at the stop time: the archive keeps nothing stamped after it. */
	uint64_t start = now - 2 * fxtp_tick_gap;
	int spanned = 0;
	for (unsigned i = 0; i < PENDING_FLOWS; i++) {
		uint64_t id = __atomic_exchange_n(&pending[i], 0, __ATOMIC_ACQ_REL);
		if (!id)
			continue;
		/* Inline name: the flush takes no lock (the strings of the flow are interned). */
		struct fxt_event e[2] = { span_event(self, fxt_str_inl("unstarted thread", 16),
						     start, now),
					  flow_event(self, FXT_ET_FLOW_END, start + fxtp_tick_gap, id) };
		for (int k = spanned; k < 2; k++) {
			uint64_t *r = fxt_chunk_reserve(w, fxt_event_words(&e[k]));
			if (r)
				fxt_event_write(r, &e[k]);
		}
		spanned = 1;
	}
}
