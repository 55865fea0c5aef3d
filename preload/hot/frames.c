/* A thread's shadow stack: its mapping (grown by doubling, no depth limit) and the records of
 * its frames, written when they close, or queued while a signal handler's level cannot name
 * them (FXTP_V_DEFER: siglevel.c) and written, named, by level 0 later. Events that are not
 * the 24-byte fast form (inline name, inline thread, min duration) are written here. No
 * malloc, no locks: also used from the fatal-signal flush. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/hot/frames.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "preload/base/fxtp.h"
#include "preload/hot/emit.h"
#include "preload/hot/names.h"
#include "writer/fields.h"

#define INITIAL_BYTES (64u * 1024u)
#define BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The mapping starts with a sentinel frame (sp = UINTPTR_MAX, never dead), then the frames. */
static void set_bounds(struct fxtp_thread *t, struct fxtp_frame *map, size_t bytes, size_t depth)
{
	map[0] = (struct fxtp_frame){ .sp = UINTPTR_MAX, .tag = fxtp_tag_slow(FXTP_V_SKIP) };
	t->base = map + 1;
	t->top = t->base + depth;
	t->end = map + bytes / sizeof(*map);
	/* below: frames open in the levels a signal handler interrupted (siglevel.c). */
	t->depth_cap = !fxtp.max_depth ? (struct fxtp_frame *)UINTPTR_MAX
		       : t->base + (fxtp.max_depth > t->below ? fxtp.max_depth - t->below : 0);
	/* limit: set by fxtp_leave() (this runs with the guard held). */
}

static size_t map_bytes(const struct fxtp_thread *t)
{
	return (size_t)(t->end - (t->base - 1)) * sizeof(*t->base);
}

int fxtp_stack_init(struct fxtp_thread *t)
{
	void *p = mmap(NULL, INITIAL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	set_bounds(t, p, INITIAL_BYTES, 0);
	return 0;
}

void fxtp_stack_release(struct fxtp_thread *t)
{
	if (t->base)
		munmap(t->base - 1, map_bytes(t));
	t->base = t->top = t->limit = t->end = NULL;
}

int fxtp_frames_double(struct fxtp_thread *t)
{
	size_t bytes = map_bytes(t);
	size_t depth = (size_t)(t->top - t->base);
	void *p = mremap(t->base - 1, bytes, bytes * 2, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -errno;
	set_bounds(t, p, bytes * 2, depth);
	return 0;
}

static void write_to(struct fxtp_thread *t, struct fxt_chunk_w *w, const struct fxtp_frame *f,
		     uint64_t end)
{
	uint32_t v = fxtp_tag_fast(f->tag) ? (uint32_t)fxt_field_get(FXT_EVENT_NAME_REF, f->tag)
					    : (uint32_t)(f->tag >> 32);
	if ((int64_t)(end - f->start) < 0)
		end = f->start;	/* its start was moved by fxtp_after */
	if ((v & FXTP_V_SKIP) || (fxtp.min_ticks && end - f->start < fxtp.min_ticks))
		return;
	if (v & FXTP_V_DEFER) {
		fxtp_sig_defer(t, w, f, end);
		return;
	}
	uint32_t tindex = w == &t->w ? t->thread_index : 0;
	const char *name = NULL;
	uint32_t len = 0;
	uint16_t ref = (uint16_t)v;
	if (v & FXTP_V_INLINE) {
		name = fxtp_name_slot(v, &len);
		ref = 0;
	}
	if (tindex && !name) {
		uint64_t *r = fxt_chunk_reserve(w, 3);
		if (r) {
			r[1] = f->start;
			r[2] = end;
			fxt_chunk_commit(r, t->hdr_base | fxt_field_prep(FXT_EVENT_NAME_REF, ref));
		}
		return;
	}
	fxtp_emit_complete(w, tindex, (uint64_t)fxtp.pid, (uint64_t)t->tid, ref, name, len,
			   f->start, end);
}

void fxtp_write_frame(struct fxtp_thread *t, struct fxt_chunk_w *w, const struct fxtp_frame *f,
		      uint64_t end)
{
	write_to(t, w, f, end);
}

void fxtp_close_frames_above(struct fxtp_thread *t, struct fxtp_frame *keep, uint64_t end)
{
	while (t->top > keep) {
		t->top--;
		write_to(t, &t->w, t->top, end);
	}
}

/* ---- calls deferred in a signal handler's level ---- */

/* Writes one deferred call: named when the shared map (or the symbolizer) knows it. */
static void write_deferred(struct fxtp_thread *t, struct fxt_chunk_w *w, uintptr_t fn,
			   uint64_t start, uint64_t end, int symbolize)
{
	uint32_t v = fxtp_name_value(fn, symbolize);
	if (v & FXTP_V_SKIP)
		return;
	uint32_t tindex = w == &t->w ? t->thread_index : 0;
	if (v & FXTP_V_DEFER) {
		char name[32];
		int n = snprintf(name, sizeof(name), "0x%lx", (unsigned long)fn);
		fxtp_emit_complete(w, tindex, (uint64_t)fxtp.pid, (uint64_t)t->tid, 0, name,
				   (uint32_t)n, start, end);
		return;
	}
	struct fxtp_frame f = { .start = start, .fn = fn, .tag = fxtp_tag_slow(v) };
	fxtp_write_frame(t, w, &f, end);
}

void fxtp_sig_defer(struct fxtp_thread *t, struct fxt_chunk_w *w, const struct fxtp_frame *f,
		    uint64_t end)
{
	struct fxtp_siglevel *l = t->siglevel ? &t->sig[t->siglevel - 1] : NULL;
	if (w == &t->w && l && l->q) {
		uint32_t tail = l->qtail;
		if (tail - __atomic_load_n(&l->qhead, __ATOMIC_ACQUIRE) < FXTP_DEFER) {
			struct fxtp_deferred *e = &l->q[tail & (FXTP_DEFER - 1)];
			e->fn = f->fn;
			e->start = f->start;
			e->end = end;
			__atomic_store_n(&l->qtail, tail + 1, __ATOMIC_RELEASE);
			return;
		}
		/* Full (FXTP_DEFER calls since level 0's last call): written now, named if the
		 * map knows it. */
	}
	write_deferred(t, w, f->fn, f->start, end, 0);
}

void fxtp_sig_drain_into(struct fxtp_thread *t, struct fxt_chunk_w *w, int symbolize)
{
	for (uint32_t k = 0; k < FXTP_SIG_LEVELS; k++) {
		struct fxtp_siglevel *l = &t->sig[k];
		uint32_t tail = __atomic_load_n(&l->qtail, __ATOMIC_ACQUIRE);
		/* Each slot freed once written: a handler landing in a long drain (symbolizing)
		 * finds the room. */
		for (uint32_t h = l->qhead; h != tail; h++) {
			const struct fxtp_deferred *e = &l->q[h & (FXTP_DEFER - 1)];
			write_deferred(t, w, e->fn, e->start, e->end, symbolize);
			__atomic_store_n(&l->qhead, h + 1, __ATOMIC_RELEASE);
		}
	}
}

void fxtp_sig_drain(struct fxtp_thread *t, int symbolize)
{
	t->deferred = 0;
	BARRIER();
	fxtp_sig_drain_into(t, &t->w, symbolize);
}
