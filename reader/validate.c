/* Semantic validation of an archive (fxt/reader.h, fxt_validator_*): the rules that span
 * records. Per (provider, pid, tid): a stack of open duration begins and the disjoint "roots"
 * of the complete events seen so far (a later event must contain, sit inside or miss each of
 * them); per (provider, kind, id): async/flow records counted by step. Pairing is judged at
 * the end, where providers that reported dropped records are excused. Hash tables with open
 * addressing; amortized O(1) per record; no output, no exit. One validator per thread. */
/* SPDX-License-Identifier: MIT */
#include "fxt/reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* Roots kept per thread: when full, the older half is forgotten. Forgetting can only hide an
 * overlap with a forgotten event, never report one that is not there. */
#define MAX_ROOTS 4096u

struct span {
	uint64_t start, end;
};

struct begin {
	uint64_t ts, offset;
};

struct vthread {
	uint32_t provider;
	int used;
	uint64_t pid, tid;
	struct begin *begins;
	size_t nbegins, capbegins;
	struct span *roots;	/* sorted by start, pairwise disjoint */
	size_t nroots, caproots;
	uint64_t orphan_ends, orphan_offset;	/* ends without a begin; the first one's offset */
};

enum { KIND_ASYNC, KIND_FLOW };

/* One record of an async id, for the order check. */
struct astep {
	uint64_t ts, offset;
	unsigned step;	/* 0 begin, 1 instant, 2 end */
};

/* One async or flow id of a provider: its records counted by step; an async id's records also
 * kept (unless lenient) to be put in time order at the end. */
struct vid {
	int used;
	unsigned kind;
	uint32_t provider;
	uint64_t id, offset;		/* offset: first record with this id */
	uint64_t begins, middles, ends;	/* middles: async instants, flow steps */
	struct astep *steps;
	size_t nsteps, capsteps;
};

/* A set of provider ids: open addressing on id + 1 (0: empty slot). */
struct idset {
	uint64_t *keys;
	size_t cap, n;
};

struct fxt_validator {
	struct vthread *threads;	/* open addressing, capacity a power of 2 */
	size_t capthreads, last;
	struct vid *ids;		/* open addressing */
	size_t capids, nids;
	struct idset providers;		/* provider ids seen */
	struct idset dropped;		/* providers that reported dropped records */
	struct fxt_validate_summary sum;
	struct fxt_read_error problem;
	struct fxt_read_error warning;	/* the latest warning */
	int failed;
	int started;	/* a record was fed */
	int lenient;	/* async ids paired by count only (fxt_validator_lenient) */
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* Keeps a one-line message with its offset: a broken rule (warning 0) as the problem, then
 * returns -EBADMSG; a warning (something the spec allows but a tracer of nested calls should
 * not write) as the latest warning, counted, then returns 0 (the record is accepted). */
__attribute__((format(printf, 4, 5))) static int note(struct fxt_validator *v, int warning,
						       uint64_t offset, const char *fmt, ...)
{
	struct fxt_read_error *e = warning ? &v->warning : &v->problem;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->offset = offset;
	if (warning) {
		v->sum.warnings++;
		return 0;
	}
	v->failed = 1;
	return -EBADMSG;
}

#define fail(v, offset, ...) note((v), 0, (offset), __VA_ARGS__)
#define warn(v, offset, ...) note((v), 1, (offset), __VA_ARGS__)

int fxt_validator_new(struct fxt_validator **out)
{
	struct fxt_validator *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	return 0;
}

void fxt_validator_lenient(struct fxt_validator *v)
{
	v->lenient = 1;
}

void fxt_validator_free(struct fxt_validator *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->capthreads; i++) {
		free(v->threads[i].begins);
		free(v->threads[i].roots);
	}
	free(v->threads);
	for (size_t i = 0; i < v->capids; i++)
		free(v->ids[i].steps);
	free(v->ids);
	free(v->providers.keys);
	free(v->dropped.keys);
	free(v);
}

/* ---- sets of provider ids ---- */

/* Adds id to the set; returns 1 if it was new, 0 if present, -ENOMEM. */
static int idset_add(struct idset *set, uint32_t id)
{
	if ((set->n + 1) * 2 > set->cap) {
		size_t oldcap = set->cap, cap = fxt_grow_cap(oldcap, (set->n + 1) * 2);
		uint64_t *old = set->keys, *n = cap ? calloc(cap, sizeof(*n)) : NULL;
		if (!n)
			return -ENOMEM;
		set->keys = n;
		set->cap = cap;
		for (size_t i = 0; i < oldcap; i++)
			for (size_t j = mix(old[i]) & (cap - 1); old[i]; j = (j + 1) & (cap - 1))
				if (!n[j]) {
					n[j] = old[i];
					break;
				}
		free(old);
	}
	uint64_t key = (uint64_t)id + 1;
	for (size_t j = mix(key) & (set->cap - 1);; j = (j + 1) & (set->cap - 1)) {
		if (set->keys[j] == key)
			return 0;
		if (!set->keys[j]) {
			set->keys[j] = key;
			set->n++;
			return 1;
		}
	}
}

static int idset_has(const struct idset *set, uint32_t id)
{
	uint64_t key = (uint64_t)id + 1;
	if (!set->cap)
		return 0;
	for (size_t j = mix(key) & (set->cap - 1); set->keys[j]; j = (j + 1) & (set->cap - 1))
		if (set->keys[j] == key)
			return 1;
	return 0;
}

/* ---- threads ---- */

static size_t thread_slot(const struct fxt_validator *v, uint32_t provider, struct fxt_koids k)
{
	size_t i = mix(k.tid * 31 + k.pid * 0x9e3779b97f4a7c15ULL + provider) & (v->capthreads - 1);
	for (;; i = (i + 1) & (v->capthreads - 1)) {
		const struct vthread *t = &v->threads[i];
		if (!t->used || (t->provider == provider && t->pid == k.pid && t->tid == k.tid))
			return i;
	}
}

static __attribute__((noinline)) struct vthread *thread_lookup(struct fxt_validator *v,
								uint32_t provider,
								struct fxt_koids k)
{
	if ((v->sum.threads + 1) * 2 > v->capthreads) {
		size_t oldcap = v->capthreads, cap = fxt_grow_cap(oldcap, (v->sum.threads + 1) * 2);
		struct vthread *old = v->threads;
		struct vthread *n = cap ? calloc(cap, sizeof(*n)) : NULL;
		if (!n)
			return NULL;
		v->threads = n;
		v->capthreads = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				v->threads[thread_slot(v, old[i].provider,
						       (struct fxt_koids){ old[i].pid, old[i].tid })] = old[i];
		free(old);
	}
	size_t i = thread_slot(v, provider, k);
	struct vthread *t = &v->threads[i];
	if (!t->used) {
		t->used = 1;
		t->provider = provider;
		t->pid = k.pid;
		t->tid = k.tid;
		v->sum.threads++;
	}
	v->last = i;
	return t;
}

/* The thread's state, created on first sight; NULL: out of memory. Consecutive events of one
 * thread (a chunk) hit the cached last slot. */
static inline struct vthread *thread_of(struct fxt_validator *v, uint32_t provider,
					struct fxt_koids k)
{
	if (v->capthreads) {
		struct vthread *t = &v->threads[v->last];
		if (t->tid == k.tid && t->pid == k.pid && t->provider == provider && t->used)
			return t;
	}
	return thread_lookup(v, provider, k);
}

/* A complete event [s, e] against the thread's roots: roots inside it become part of it, a root
 * holding it absorbs it. A root overlapping it partially is a warning, not a violation: the spec
 * has no nesting rule for complete events
 * (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#duration-complete-event); the
 * event is then left out of the roots, which stay pairwise disjoint. */
static int add_complete(struct fxt_validator *v, struct vthread *t, uint64_t s, uint64_t e,
			uint64_t offset)
{
	if (e < s)
		return fail(v, offset, "complete event ends (%" PRIu64 ") before it starts (%" PRIu64 ")",
			    e, s);
	size_t hi = t->nroots, lo;
	while (hi && t->roots[hi - 1].start >= e)
		hi--; /* roots after this event */
	for (lo = hi; lo && t->roots[lo - 1].end > s; lo--)
		; /* [lo, hi): roots that overlap it (they start before e and end after s) */
	for (size_t i = lo; i < hi; i++) {
		struct span r = t->roots[i];
		if (r.start >= s && r.end <= e)
			continue; /* inside: a callee written before its caller */
		if (r.start <= s && r.end >= e && hi - lo == 1)
			return 0; /* it sits inside an earlier root */
		return warn(v, offset,
			    "complete event [%" PRIu64 ", %" PRIu64 "] overlaps [%" PRIu64 ", %" PRIu64
			    "] on thread %" PRIu64 " without nesting", s, e, r.start, r.end, t->tid);
	}
	if (lo == hi) {
		if (t->nroots >= MAX_ROOTS) {
			size_t drop = MAX_ROOTS / 2 < lo ? MAX_ROOTS / 2 : lo;
			memmove(t->roots, t->roots + drop, (t->nroots - drop) * sizeof(*t->roots));
			t->nroots -= drop;
			lo -= drop;
			hi -= drop;
		}
		if (FXT_GROW(t->roots, &t->caproots, t->nroots + 1) < 0)
			return -ENOMEM;
		if (lo < t->nroots)
			memmove(t->roots + lo + 1, t->roots + lo, (t->nroots - lo) * sizeof(*t->roots));
		t->nroots++;
	} else if (hi - lo > 1) {
		if (hi < t->nroots)
			memmove(t->roots + lo + 1, t->roots + hi, (t->nroots - hi) * sizeof(*t->roots));
		t->nroots -= hi - lo - 1;
	}
	t->roots[lo] = (struct span){ s, e };
	return 0;
}

static int add_duration(struct fxt_validator *v, struct vthread *t, const struct fxt_record *rec)
{
	if (rec->u.event.event_type == FXT_ET_DURATION_BEGIN) {
		if (FXT_GROW(t->begins, &t->capbegins, t->nbegins + 1) < 0)
			return -ENOMEM;
		t->begins[t->nbegins++] = (struct begin){ rec->u.event.ts, rec->offset };
		return 0;
	}
	if (!t->nbegins) { /* judged at the end: records may have been dropped before it */
		if (!t->orphan_ends++)
			t->orphan_offset = rec->offset;
		return 0;
	}
	struct begin b = t->begins[--t->nbegins];
	if (rec->u.event.ts < b.ts)
		return fail(v, rec->offset, "duration end (%" PRIu64 ") before its begin (%" PRIu64
			    ", offset %" PRIu64 ")", rec->u.event.ts, b.ts, b.offset);
	return 0;
}

/* ---- async and flow ids ----
 * Paired by counts over the whole archive, not in file order: chunks of different threads
 * interleave, so an id ended on one thread may come before its begin on another. */

static struct vid *id_slot(struct fxt_validator *v, uint32_t provider, unsigned kind, uint64_t id)
{
	uint64_t h = mix(id * 4 + kind) ^ provider;
	for (size_t i = h & (v->capids - 1);; i = (i + 1) & (v->capids - 1)) {
		struct vid *o = &v->ids[i];
		if (!o->used || (o->id == id && o->kind == kind && o->provider == provider))
			return o;
	}
}

static int add_id(struct fxt_validator *v, const struct fxt_record *rec)
{
	unsigned et = rec->u.event.event_type;
	unsigned kind = et >= FXT_ET_FLOW_BEGIN ? KIND_FLOW : KIND_ASYNC;
	unsigned step = et - (kind == KIND_FLOW ? FXT_ET_FLOW_BEGIN : FXT_ET_ASYNC_BEGIN);
	if ((v->nids + 1) * 2 > v->capids) {
		size_t oldcap = v->capids, cap = fxt_grow_cap(oldcap, (v->nids + 1) * 2);
		struct vid *old = v->ids, *n = cap ? calloc(cap, sizeof(*n)) : NULL;
		if (!n)
			return -ENOMEM;
		v->ids = n;
		v->capids = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				*id_slot(v, old[i].provider, old[i].kind, old[i].id) = old[i];
		free(old);
	}
	struct vid *o = id_slot(v, rec->provider_id, kind, rec->u.event.id);
	if (!o->used) {
		*o = (struct vid){ .used = 1, .kind = kind, .provider = rec->provider_id,
				   .id = rec->u.event.id, .offset = rec->offset };
		v->nids++;
	}
	o->begins += step == 0;
	o->middles += step == 1;
	o->ends += step == 2;
	if (kind == KIND_FLOW || v->lenient)
		return 0;
	if (FXT_GROW(o->steps, &o->capsteps, o->nsteps + 1) < 0)
		return -ENOMEM;
	o->steps[o->nsteps++] = (struct astep){ rec->u.event.ts, rec->offset, step };
	return 0;
}

/* Time order, and at one tick: begin, instants, end. */
static int astep_cmp(const void *a, const void *b)
{
	const struct astep *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->step > y->step) - (x->step < y->step);
}

/* An async id whose counts pair: its records in time order must go begin, instants, end (and
 * again, when the id is reused). Returns the record that breaks the order (*why says how), or
 * NULL. Sorts o->steps. */
static const struct astep *async_misordered(struct vid *o, const char **why)
{
	qsort(o->steps, o->nsteps, sizeof(*o->steps), astep_cmp);
	int open = 0;
	for (size_t i = 0; i < o->nsteps; i++) {
		const struct astep *s = &o->steps[i];
		*why = s->step == 0 && open   ? "a second begin before its end"
		       : s->step == 1 && !open ? "an instant outside its begin and end"
		       : s->step == 2 && !open ? "an end before its begin"
					       : NULL;
		if (*why)
			return s;
		open = s->step == 0 ? 1 : s->step == 2 ? 0 : open;
	}
	return NULL;
}

int fxt_validator_add(struct fxt_validator *v, const struct fxt_record *rec)
{
	if (v->failed)
		return -EBADMSG;
	struct fxt_validate_summary *sum = &v->sum;
	if (!v->started) {
		v->started = 1;
		if (!(rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_TRACE_INFO &&
		      rec->u.meta.trace_info_type == FXT_TI_MAGIC && rec->u.meta.magic == FXT_MAGIC))
			return fail(v, rec->offset, "the first record is not the magic number record");
	}
	sum->by_type[rec->type & 15]++;
	switch (rec->type) {
	case FXT_RT_METADATA:
		if (rec->u.meta.meta_type == FXT_MT_PROVIDER_INFO ||
		    rec->u.meta.meta_type == FXT_MT_PROVIDER_SECTION) {
			int added = idset_add(&v->providers, rec->u.meta.provider_id);
			sum->providers = v->providers.n;
			return added < 0 ? added : 0;
		}
		if (rec->u.meta.meta_type == FXT_MT_PROVIDER_EVENT &&
		    rec->u.meta.event_id == FXT_PE_BUFFER_OVERFLOW) {
			int added = idset_add(&v->dropped, rec->u.meta.provider_id);
			sum->dropped_providers = v->dropped.n;
			return added < 0 ? added : 0;
		}
		return 0;
	case FXT_RT_STRING:
		sum->strings++;
		return 0;
	case FXT_RT_THREAD:
		sum->thread_records++;
		return 0;
	case FXT_RT_EVENT:
		break;
	default:
		return 0;
	}
	sum->events++;
	uint64_t lost;
	if (rec->u.event.event_type == FXT_ET_INSTANT && fxt_record_dropped(rec, &lost)) {
		sum->dropped_records += lost;
		int added = idset_add(&v->dropped, rec->provider_id);
		sum->dropped_providers = v->dropped.n;
		return added < 0 ? added : 0;
	}
	struct vthread *t;
	switch (rec->u.event.event_type) {
	case FXT_ET_DURATION_BEGIN:
	case FXT_ET_DURATION_END:
	case FXT_ET_DURATION_COMPLETE:
		if (!(t = thread_of(v, rec->provider_id, rec->u.event.thread)))
			return -ENOMEM;
		if (rec->u.event.event_type == FXT_ET_DURATION_COMPLETE)
			return add_complete(v, t, rec->u.event.ts, rec->u.event.end_ts, rec->offset);
		return add_duration(v, t, rec);
	case FXT_ET_ASYNC_BEGIN:
	case FXT_ET_ASYNC_INSTANT:
	case FXT_ET_ASYNC_END:
	case FXT_ET_FLOW_BEGIN:
	case FXT_ET_FLOW_STEP:
	case FXT_ET_FLOW_END:
		return add_id(v, rec);
	default:
		if (rec->u.event.event_type != FXT_ET_INSTANT && rec->u.event.event_type != FXT_ET_COUNTER)
			return 0;
		/* instants and counters count their thread */
		return thread_of(v, rec->provider_id, rec->u.event.thread) ? 0 : -ENOMEM;
	}
}

int fxt_validator_add_complete(struct fxt_validator *v, uint32_t provider_id,
			       struct fxt_koids thread, uint64_t start, uint64_t end,
			       uint64_t offset)
{
	if (v->failed)
		return -EBADMSG;
	if (!v->started)	/* the magic number record must come first: fxt_validator_add says so */
		return fxt_validator_add(v, &(struct fxt_record){ .offset = offset,
							       .type = FXT_RT_EVENT });
	v->sum.by_type[FXT_RT_EVENT]++;
	v->sum.events++;
	struct vthread *t = thread_of(v, provider_id, thread);
	return t ? add_complete(v, t, start, end, offset) : -ENOMEM;
}

int fxt_validator_finish(struct fxt_validator *v)
{
	if (v->failed)
		return -EBADMSG;
	/* Report the problem whose first record comes first in the archive. Providers that
	 * reported dropped records (buffer full) may miss a begin or an end: not a problem. */
	const struct vthread *bt = NULL;
	const struct vid *bi = NULL;
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < v->capthreads; i++) {
		const struct vthread *t = &v->threads[i];
		if (!t->used || idset_has(&v->dropped, t->provider))
			continue;
		uint64_t off = t->nbegins ? t->begins[0].offset : UINT64_MAX;
		if (t->orphan_ends && t->orphan_offset < off)
			off = t->orphan_offset;
		if (off < first) {
			bt = t;
			first = off;
		}
	}
	const struct astep *bad = NULL;
	const char *why = NULL;
	for (size_t i = 0; i < v->capids; i++) {
		struct vid *o = &v->ids[i];
		if (!o->used || idset_has(&v->dropped, o->provider))
			continue;
		if (o->offset < first && (o->begins != o->ends || (o->middles && !o->begins))) {
			bi = o;
			bad = NULL;
			first = o->offset;
			continue;
		}
		const char *w;
		const struct astep *s = o->nsteps && o->begins == o->ends ? async_misordered(o, &w)
									     : NULL;
		if (s && s->offset < first) {
			bi = o;
			bad = s;
			why = w;
			first = s->offset;
		}
	}
	if (bad)
		return fail(v, first, "async id %" PRIu64 ": %s (in time order)", bi->id, why);
	if (bi)
		return fail(v, first, "%s id %" PRIu64 ": %" PRIu64 " begin(s), %" PRIu64 " end(s), %" PRIu64
			    " %s", bi->kind == KIND_FLOW ? "flow" : "async", bi->id, bi->begins, bi->ends,
			    bi->middles, bi->kind == KIND_FLOW ? "step(s)" : "instant(s)");
	if (bt && bt->orphan_ends && bt->orphan_offset == first)
		return fail(v, first, "duration end without a begin on thread %" PRIu64, bt->tid);
	if (bt)
		return fail(v, first, "duration begin never ended on thread %" PRIu64, bt->tid);
	return 0;
}

const struct fxt_read_error *fxt_validator_problem(const struct fxt_validator *v)
{
	return &v->problem;
}

const struct fxt_read_error *fxt_validator_warning(const struct fxt_validator *v)
{
	return v->sum.warnings ? &v->warning : NULL;
}

const struct fxt_validate_summary *fxt_validator_summary(const struct fxt_validator *v)
{
	return &v->sum;
}

static int sv_is(struct fxt_sv v, const char *s)
{
	size_t n = strlen(s);
	return v.len == n && memcmp(v.s, s, n) == 0;
}

/* Whether rec is the fxtauto instant `name`: its uint64 argument `arg` through *value (0 when
 * absent); 1 when it is the instant and has the argument. */
static int fxtauto_count(const struct fxt_record *rec, const char *name, const char *arg,
			 uint64_t *value)
{
	if (rec->type != FXT_RT_EVENT || rec->u.event.event_type != FXT_ET_INSTANT ||
	    !sv_is(rec->u.event.category, "fxtauto") || !sv_is(rec->u.event.name, name))
		return 0;
	for (unsigned i = 0; i < rec->nargs; i++)
		if (sv_is(rec->args[i].name, arg) && rec->args[i].type == FXT_AT_UINT64) {
			*value = rec->args[i].v.u64;
			return 1;
		}
	return 0;
}

int fxt_record_dropped(const struct fxt_record *rec, uint64_t *records)
{
	return fxtauto_count(rec, "records dropped", "records", records);
}

int fxt_record_overwritten(const struct fxt_record *rec, uint64_t *records, uint64_t *kept_from)
{
	return fxtauto_count(rec, "records overwritten", "records", records) &&
	       fxtauto_count(rec, "records overwritten", "kept_from", kept_from);
}
