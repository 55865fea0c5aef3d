/* Samples -> archive records, at flush (outside any handler): every distinct pc is symbolized
 * once (return addresses as pc - 1, the call), then for each thread, in time order:
 *  - the raw stack of each sample: a large blob record, format 0 (with metadata), category
 *    "sample", name "fxt-sample-v1", thread = the sampled thread (pid, tid), ts = sample time;
 *    payload = n little-endian u64 pcs: pc[0] the interrupted instruction, pc[1..n) the return
 *    addresses of its callers, outward (leaf first).
 *  - duration slices (complete events, category "sample", named by function, argument
 *    "samples": uint32 count of the samples the slice spans) on the thread's sample track,
 *    koid FXTP_SAMPLE_TRACK(tid), a thread of the same process named "samples <tid>" (its
 *    own track: sampled frames never nest with traced calls). A frame
 *    shared by consecutive samples (same names from the root down) extends one slice; a
 *    sample's stack holds until the next sample, or for one period when the next comes more
 *    than GAP_PERIODS periods later (the thread was off CPU; kernel time is not sampled).
 *    So slices nest and never partially overlap, as Perfetto requires (it drops such a
 *    slice): a frame ends with or before its caller (callees closed first, at the same
 *    time), and starts at least fxtp_tick_gap after it (another nanosecond: fxtp_after).
 * Samples lost to a full pool: one instant event "samples lost" (arg count) on the process.
 * A pc in code dlclose unloaded after the sample was taken is named from the unloaded object's
 * file (fxtp_samples_unloaded: each sample carries the count of unloads before it), not from
 * what is mapped there at flush. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "common/grow.h"
#include "preload/hot/emit.h"
#include "preload/hot/names.h"
#include "preload/base/fxtp.h"
#include "preload/sampling/sampler.h"
#include "symbolizer/symbolizer.h"
#include "writer/records.h"

#define FXTP_SAMPLE_TRACK(tid) ((uint64_t)(tid) | 0x40000000u) /* above every Linux tid */
#define PC_BITS 16u
#define GAP_PERIODS 8u /* a longer gap between samples: the thread was off CPU */
#define MAX_UNLOADED 4096u /* objects unloaded by dlclose, kept for naming (more: 0x<pc>) */
#define PC_SPACE 47	   /* user-space pcs are below 2^47: object numbers go above */

/* Objects dlclose unloaded, in the order it did: entry i was loaded during epochs up to until
 * (the samples of epoch <= until may hold its pcs). Appended by one writer at a time (names.c's
 * intern lock); nunloaded published with release after the entry, which never changes. */
struct unloaded {
	struct fxt_sym_object o;	/* o.path NULL: unknown */
	uint32_t until;
};
static struct unloaded *unloaded;
static uint32_t nunloaded;

struct name {
	char *s;
	uint32_t len;
	uint16_t index;	/* string index, or 0: inline */
};

struct flush {
	struct fxt_chunk_w w;
	struct fxt_sym *sym;
	uint64_t *pcs;		/* open addressing: pc (0 empty) -> ids[] */
	uint32_t *ids, pcap, npcs;
	struct name *names;	/* distinct names by id */
	uint32_t nnames;
	size_t cnames;
	uint16_t cat, blobname, argname; /* "sample", "fxt-sample-v1", "samples" (0: inline) */
	uint64_t period, stop;
	uint32_t nunloaded;	/* entries of unloaded[] when the flush began */
};

struct open_frame {
	uint32_t name;
	uint32_t count;	/* samples it spans */
	uint64_t start;
};

/* Name id of a string: an existing one with the same bytes, or a new interned one. */
static uint32_t name_id(struct flush *f, const char *s, uint32_t len)
{
	for (uint32_t i = f->nnames; i-- > 0;)
		if (f->names[i].len == len && memcmp(f->names[i].s, s, len) == 0)
			return i;
	if (FXT_GROW(f->names, &f->cnames, (size_t)f->nnames + 1) < 0)
		return UINT32_MAX;
	char *copy = strndup(s, len);
	if (!copy)
		return UINT32_MAX;
	f->names[f->nnames] = (struct name){ copy, len, (uint16_t)fxtp_name_index(s, len) };
	return f->nnames++;
}

void fxtp_samples_unloaded(const char *path, uintptr_t lo, uintptr_t hi, uintptr_t base)
{
	uint32_t e = __atomic_load_n(&fxtp_sampling.epoch, __ATOMIC_RELAXED);
	if (!fxtp_sampling.pool || nunloaded == MAX_UNLOADED)
		return;
	if (!unloaded) {
		void *m = mmap(NULL, MAX_UNLOADED * sizeof(*unloaded), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return;
		unloaded = m;
	}
	char *abs = path && *path ? realpath(path, NULL) : NULL;
	if (!abs && path && *path == '/')
		abs = strdup(path);
	unloaded[nunloaded] = (struct unloaded){ { abs, lo, hi, base }, e };
	__atomic_store_n(&nunloaded, nunloaded + 1, __ATOMIC_RELEASE);
	/* Samples taken from now on may find other code in [lo, hi). */
	__atomic_store_n(&fxtp_sampling.epoch, e + 1, __ATOMIC_RELEASE);
}

/* The object unloaded since a sample of epoch e was taken whose span held addr then (the first
 * unloaded after it: entries are in epoch order), or -1: the code mapped at addr now. */
static int32_t unloaded_at(uint64_t addr, uint32_t e, uint32_t n)
{
	if (e >= __atomic_load_n(&fxtp_sampling.epoch, __ATOMIC_ACQUIRE))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (unloaded[i].until >= e && addr >= unloaded[i].o.lo && addr < unloaded[i].o.hi)
			return (int32_t)i;
	return -1;
}

/* Name id of the function holding pc (leaf: the pc itself; caller frames: the call) in the
 * sample of epoch e. */
static uint32_t pc_name(struct flush *f, uint64_t pc, int leaf, uint32_t e)
{
	uint64_t addr = leaf ? pc : pc - 1;
	int32_t u = unloaded_at(addr, e, f->nunloaded);
	uint64_t key = pc ^ (uint64_t)!leaf << 63 ^ (uint64_t)(u + 1) << PC_SPACE;
	uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - PC_BITS));
	for (; f->pcs[i]; i = (i + 1) & (f->pcap - 1))
		if (f->pcs[i] == key)
			return f->ids[i];
	char buf[1024];
	int n = u < 0 ? fxt_sym_lookup(f->sym, (uintptr_t)addr, buf, sizeof(buf))
	      : unloaded[u].o.path ? fxt_sym_lookup_unloaded(f->sym, &unloaded[u].o, addr, buf,
							     sizeof(buf))
				   : -ENOENT;
	if (n <= 0)
		n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)pc);
	uint32_t id = name_id(f, buf, (uint32_t)n);
	if (f->npcs < f->pcap / 4 * 3) {
		f->pcs[i] = key;
		f->ids[i] = id;
		f->npcs++;
	}
	return id;
}

static struct fxt_str str_of(const struct flush *f, uint32_t id)
{
	const struct name *n = &f->names[id];
	return n->index ? fxt_str_idx(n->index) : fxt_str_inl(n->s, n->len);
}

static void put_event(struct flush *f, const struct fxt_event *e)
{
	uint32_t words = fxt_event_words(e);
	uint64_t *r = words ? fxt_chunk_reserve(&f->w, words) : NULL;
	if (r)
		fxt_event_write(r, e);
}

static void put_raw(struct flush *f, uint64_t tid, uint64_t ts, const uint64_t *pcs, uint32_t n)
{
	struct fxt_large_blob b = {
		.format = FXT_LBF_METADATA,
		.category = f->cat ? fxt_str_idx(f->cat) : fxt_str_inl("sample", 6),
		.name = f->blobname ? fxt_str_idx(f->blobname) : fxt_str_inl("fxt-sample-v1", 13),
		.thread = fxt_thread_inl((uint64_t)fxtp.pid, tid),
		.ts = ts,
		.data = pcs,
		.size = (uint64_t)n * 8,
	};
	uint32_t words = fxt_large_blob_words(&b);
	uint64_t *r = words ? fxt_chunk_reserve(&f->w, words) : NULL;
	if (r)
		fxt_large_blob_write(r, &b);
}

/* Closes open frames [keep, *nopen) at `end`, deepest first (callees before callers). */
static void close_frames(struct flush *f, uint64_t tid, struct open_frame *open, uint32_t *nopen,
			 uint32_t keep, uint64_t end)
{
	while (*nopen > keep) {
		struct open_frame *o = &open[--*nopen];
		struct fxt_warg count = fxt_arg_uint32(
			f->argname ? fxt_str_idx(f->argname) : fxt_str_inl("samples", 7), o->count);
		struct fxt_event e = fxt_ev_complete(
			fxt_thread_inl((uint64_t)fxtp.pid, FXTP_SAMPLE_TRACK(tid)),
			f->cat ? fxt_str_idx(f->cat) : fxt_str_inl("sample", 6), str_of(f, o->name),
			o->start, end);
		e.args = &count;
		e.nargs = 1;
		put_event(f, &e);
	}
}

/* One thread's samples, blocks in time order. */
static void flush_thread(struct flush *f, const uint32_t *blocks, uint32_t nb)
{
	uint64_t tid = fxtp_sampling.pool[blocks[0]].tid;
	struct open_frame open[FXTP_SAMPLE_MAX_DEPTH];
	uint32_t ids[FXTP_SAMPLE_MAX_DEPTH], nopen = 0;
	uint64_t prev = 0;
	int named = 0;	/* the track is named with its first sample (none: no track) */
	for (uint32_t k = 0; k < nb; k++) {
		const struct fxtp_sblock *b = &fxtp_sampling.pool[blocks[k]];
		uint64_t used = __atomic_load_n(&b->used, __ATOMIC_ACQUIRE);
		for (uint64_t at = 0; at + 2 <= used;) {
			uint64_t ts = b->w[at];
			uint32_t n = (uint32_t)b->w[at + 1], e = (uint32_t)(b->w[at + 1] >> 32);
			const uint64_t *pcs = b->w + at + 2;
			at += 2 + n;
			if (ts > f->stop || n == 0 || n > FXTP_SAMPLE_MAX_DEPTH)
				continue;
			if (!named++) {
				char tname[32];
				int len = snprintf(tname, sizeof(tname), "samples %llu",
						   (unsigned long long)tid);
				fxtp_emit_kobj(FXT_OBJ_TYPE_THREAD, FXTP_SAMPLE_TRACK(tid), tname,
					       (uint32_t)len, (uint64_t)fxtp.pid);
			}
			put_raw(f, tid, ts, pcs, n);
			for (uint32_t d = 0; d < n; d++)	/* root first */
				ids[d] = pc_name(f, pcs[n - 1 - d], d == n - 1, e);
			uint32_t keep = 0;
			if (nopen && ts - prev > GAP_PERIODS * f->period)
				close_frames(f, tid, open, &nopen, 0, prev + f->period);
			while (keep < nopen && keep < n && open[keep].name == ids[keep] &&
			       ids[keep] != UINT32_MAX)
				keep++;
			close_frames(f, tid, open, &nopen, keep, ts);
			for (uint32_t d = 0; d < keep; d++)
				open[d].count++;
			/* A frame starts in a nanosecond after its caller's (fxtp_after): slices
			 * of one sample all start at ts, callees written first, which Perfetto
			 * would take for partial overlaps. */
			for (; nopen < n && ids[nopen] != UINT32_MAX; nopen++)
				open[nopen] = (struct open_frame){
					ids[nopen], 1, nopen ? fxtp_after(open[nopen - 1].start, ts) : ts
				};
			prev = ts;
		}
	}
	uint64_t end = prev + f->period;
	close_frames(f, tid, open, &nopen, 0, end < f->stop ? end : f->stop);
}

static const struct fxtp_sblock *sort_pool;
static int by_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = sort_pool[x].tid, ty = sort_pool[y].tid;
	return tx != ty ? (tx < ty ? -1 : 1) : (x > y) - (x < y);
}

/* Ticks per period of CPU time (the clock's rate measured since the constructor). */
static uint64_t period_ticks(void)
{
	uint64_t tps = 1000000000ULL;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	uint64_t ticks = fxtp_now();
	if (fxtp.use_tsc && ns > fxtp.t0_ns)
		tps = (uint64_t)((unsigned __int128)(ticks - fxtp.t0_ticks) * 1000000000ULL /
				 (ns - fxtp.t0_ns));
	return tps / fxtp_sampling.hz;
}

void fxtp_samples_flush(uint64_t stop)
{
	fxtp_sample_stop();
	uint32_t nb = __atomic_load_n(&fxtp_sampling.next, __ATOMIC_ACQUIRE);
	if (nb > fxtp_sampling.nblocks)
		nb = fxtp_sampling.nblocks;
	uint64_t lost = __atomic_load_n(&fxtp_sampling.lost, __ATOMIC_RELAXED);
	if (!fxtp_sampling.pool || (!nb && !lost))
		return;
	struct flush f = { .pcap = 1u << PC_BITS, .stop = stop, .period = period_ticks(),
			   .nunloaded = __atomic_load_n(&nunloaded, __ATOMIC_ACQUIRE) };
	uint32_t *order = malloc(nb * sizeof(*order) + 1);
	f.pcs = calloc(f.pcap, sizeof(*f.pcs));
	f.ids = malloc(f.pcap * sizeof(*f.ids));
	f.sym = fxt_sym_new();
	if (!order || !f.pcs || !f.ids || !f.sym) {
		fxtp_warn("cannot write samples", "out of memory");
		goto out;
	}
	fxt_chunk_init(&f.w, &fxtp.buf, NULL);
	f.cat = (uint16_t)fxtp_name_index("sample", 6);
	f.blobname = (uint16_t)fxtp_name_index("fxt-sample-v1", 13);
	f.argname = (uint16_t)fxtp_name_index("samples", 7);
	for (uint32_t i = 0; i < nb; i++)
		order[i] = i;
	sort_pool = fxtp_sampling.pool;
	qsort(order, nb, sizeof(*order), by_tid);
	for (uint32_t i = 0, j; i < nb; i = j) {
		for (j = i + 1; j < nb && fxtp_sampling.pool[order[j]].tid ==
					  fxtp_sampling.pool[order[i]].tid;)
			j++;
		flush_thread(&f, order + i, j - i);
	}
	if (lost) {
		struct fxt_warg count = fxt_arg_uint64(fxt_str_inl("count", 5), lost);
		struct fxt_event e = fxt_ev_instant(fxt_thread_inl((uint64_t)fxtp.pid,
								   (uint64_t)fxtp.pid),
						    fxt_str_inl("sample", 6),
						    fxt_str_inl("samples lost", 12), stop);
		e.args = &count;
		e.nargs = 1;
		put_event(&f, &e);
	}
	fxt_chunk_flush(&f.w);
	fxt_chunk_close(&f.w);
out:
	for (uint32_t i = 0; i < f.nnames; i++)
		free(f.names[i].s);
	free(f.names);
	fxt_sym_free(f.sym);
	free(f.ids);
	free(f.pcs);
	free(order);
}
