/* On-CPU time of threads from context switch records (scheduling type 1, fxtauto --sched):
 * each thread's switches in and out, collected in any order, sorted into on-CPU intervals with
 * prefix sums, so that the on-CPU time of any span [start, end] of a thread is two binary
 * searches; and its off-CPU stretches (a switch out to the next switch in), preempted (switched
 * out running) or blocked. A thread is on CPU before its first record if that record is a
 * switch out, and after its last one if that is a switch in; a thread without records is on
 * CPU throughout. The intervals are built by fxt_oncpu_finish(), again after more switches (a
 * streaming reader's): only threads with new switches are rebuilt; a lookup starts from the
 * thread's last answer (a reader asks about nearby times). Memory: 56 bytes per switch.
 * One object per thread of the caller; no I/O. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

struct sw {
	uint64_t ts;	/* ns */
	uint64_t in;	/* 1: switched in, 0: out */
	uint32_t state;	/* out: the FXT thread state it left in (1 running: preempted) */
};

struct othr {
	struct ckey key;	/* a = tid */
	uint64_t pid;
	struct sw *ev;		/* the switches given */
	uint32_t n;
	size_t cap;		/* room in ev */
	int stale;		/* switches given since the intervals were built */
	struct sw *iv;		/* after finish: on-CPU intervals [iv[i].ts, iv[i].in) */
	uint64_t *cum;		/* cum[i]: on-CPU ns of the intervals before i */
	uint32_t niv;
	struct fxt_offstretch *off;	/* after finish: off-CPU stretches in time order */
	uint32_t noff;
	uint32_t hint;		/* the interval search's last answer (<= niv): a reader asks
				 * about times close to each other, mostly in one interval */
};

struct fxt_oncpu {
	struct ctab thrs;
	uint32_t last;		/* index + 1 of the thread asked about last, 0: none */
	uint64_t switches;
	int finished;
};

int fxt_oncpu_new(struct fxt_oncpu **out)
{
	struct fxt_oncpu *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	ctab_init(&o->thrs, sizeof(struct othr));
	*out = o;
	return 0;
}

static void othr_drop(void *entry)
{
	struct othr *t = entry;
	free(t->ev);
	free(t->iv);
	free(t->cum);
	free(t->off);
}

void fxt_oncpu_free(struct fxt_oncpu *o)
{
	if (!o)
		return;
	ctab_free_each(&o->thrs, othr_drop);
	free(o);
}

static int add(struct fxt_oncpu *o, uint64_t pid, uint64_t tid, uint64_t ts, int in,
	       uint32_t state)
{
	struct othr *t = ctab_ids(&o->thrs, tid, 0, 1);
	if (!t || FXT_GROW(t->ev, &t->cap, (size_t)t->n + 1) < 0)
		return -ENOMEM;
	t->pid = pid;
	t->ev[t->n++] = (struct sw){ ts, (uint64_t)in, state };
	t->stale = 1;
	return 0;
}

int fxt_oncpu_switch(struct fxt_oncpu *o, const struct fxt_koids *out, uint32_t out_state,
		     const struct fxt_koids *in, uint64_t ts_ns)
{
	o->switches++;
	if (out->tid && add(o, out->pid, out->tid, ts_ns, 0, out_state) < 0)
		return -ENOMEM;
	if (in->tid && add(o, in->pid, in->tid, ts_ns, 1, 0) < 0)
		return -ENOMEM;
	return 0;
}

uint64_t fxt_oncpu_switches(const struct fxt_oncpu *o)
{
	return o->switches;
}

static int sw_cmp(const void *x, const void *y)
{
	const struct sw *a = x, *b = y;
	return a->ts < b->ts ? -1 : a->ts > b->ts ? 1 : (int)a->in - (int)b->in;
}

/* Builds t's intervals and off-CPU stretches from its switches. Returns 0 or -ENOMEM. */
static int build(struct othr *t)
{
	uint32_t m = 0;
	int open = 0;

	qsort(t->ev, t->n, sizeof(*t->ev), sw_cmp);
	free(t->off);
	free(t->iv);
	free(t->cum);
	t->off = malloc(t->n * sizeof(*t->off));
	t->iv = malloc(t->n * sizeof(*t->iv));
	t->cum = malloc(((size_t)t->n + 1) * sizeof(*t->cum));
	t->noff = t->niv = 0;
	if (!t->off || !t->iv || !t->cum)
		return -ENOMEM;
	/* off-CPU stretches: each switch out to the next switch in */
	for (uint32_t j = 0; j + 1 < t->n; j++)
		if (!t->ev[j].in && t->ev[j + 1].in)
			t->off[t->noff++] = (struct fxt_offstretch){ t->ev[j].ts, t->ev[j + 1].ts, t->ev[j].state };
	/* intervals: an in opens one, an out closes the open one (or one from 0) */
	for (uint32_t j = 0; j < t->n; j++) {
		struct sw e = t->ev[j];
		if (e.in) {
			if (!open)
				t->iv[m] = (struct sw){ e.ts, UINT64_MAX, 0 };
			open = 1;
		} else if (open) {
			t->iv[m++].in = e.ts;
			open = 0;
		} else if (m == 0 && j == 0) {
			t->iv[m++] = (struct sw){ 0, e.ts, 0 };	/* running since the start */
		}
	}
	if (open)
		m++;
	t->niv = m;
	t->hint = 0;
	t->cum[0] = 0;
	for (uint32_t j = 0; j < m; j++)
		t->cum[j + 1] = t->cum[j] + (t->iv[j].in == UINT64_MAX ? 0 : t->iv[j].in - t->iv[j].ts);
	t->stale = 0;
	return 0;
}

int fxt_oncpu_finish(struct fxt_oncpu *o)
{
	o->finished = 1;
	for (uint32_t i = 0; i < o->thrs.n; i++) {
		struct othr *t = ctab_at(&o->thrs, i);
		if (t->stale && build(t) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* On-CPU ns of t in [0, x]. Moves t's hint. */
static uint64_t upto(struct othr *t, uint64_t x)
{
	/* the first interval starting after x */
	uint32_t lo = fxt_upper_bound(t->iv, sizeof(*t->iv), offsetof(struct sw, ts), t->niv,
				      t->hint, x);
	t->hint = lo;
	if (!lo)
		return 0;
	const struct sw *iv = &t->iv[lo - 1];
	return t->cum[lo - 1] + ((x < iv->in ? x : iv->in) - iv->ts);
}

uint64_t fxt_oncpu_time(struct fxt_oncpu *o, uint64_t tid, uint64_t start, uint64_t end)
{
	struct ckey k = { tid, 0, { "", 0 } };
	struct othr *t = o->last ? ctab_at(&o->thrs, o->last - 1) : NULL;
	if (!t || t->key.a != tid) {
		int64_t i = o->finished ? ctab_get(&o->thrs, &k, 0) : -1;
		t = i < 0 ? NULL : ctab_at(&o->thrs, (uint32_t)i);
		o->last = i < 0 ? 0 : (uint32_t)i + 1;
	}
	if (!t || !t->iv || end < start)	/* no switches, or none built yet */
		return end >= start ? end - start : 0;
	if (t->hint && t->iv[t->hint - 1].ts <= start && end <= t->iv[t->hint - 1].in)
		return end - start;	/* inside the interval of the last answer */
	return upto(t, end) - upto(t, start);
}

size_t fxt_oncpu_threads(const struct fxt_oncpu *o)
{
	return o->thrs.n;
}

void fxt_oncpu_offcpu(const struct fxt_oncpu *o, size_t i, uint64_t from, uint64_t to,
		      struct fxt_offcpu *out)
{
	const struct othr *t = ctab_at(&o->thrs, (uint32_t)i);

	memset(out, 0, sizeof(*out));
	out->pid = t->pid;
	out->tid = t->key.a;
	for (uint32_t j = 0; j < t->noff; j++) {
		const struct fxt_offstretch *f = &t->off[j];
		int k = f->state == FXT_THREAD_STATE_RUNNING ? 0 : 1;
		uint64_t d = f->end - f->start;
		if (f->start < from || f->end > to)
			continue;
		out->stretches[k]++;
		out->ns[k] += d;
		if (d > out->max[k])
			out->max[k] = d;
	}
}

const struct fxt_offstretch *fxt_oncpu_stretches(const struct fxt_oncpu *o, size_t i,
						 uint64_t *tid, size_t *n)
{
	const struct othr *t = ctab_at(&o->thrs, (uint32_t)i);

	*tid = t->key.a;
	*n = t->noff;
	return t->off;
}
