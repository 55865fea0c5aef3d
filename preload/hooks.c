/* The -finstrument-functions hooks: the hot path of the tracer. Entry pushes a frame (stack
 * pointer, name ref from the per-thread cache, TSC); exit pops it and writes one 24-byte
 * duration complete event into the thread's chunk (pointer bump, header last). No atomics,
 * syscalls, locks, allocation or calls here: anything unusual tail-calls a slow path in stack.c,
 * which takes the guard. The fast path only reads the guard, and orders its stores so that a
 * signal handler running hooks in the middle of it (or never returning: siglongjmp) leaves the
 * shadow stack and the chunk consistent. It does not read the global state: a thread is set up
 * only while RUNNING, and after STOPPING its events land in a buffer already archived. */
/* SPDX-License-Identifier: MIT */
#include "preload/fxtp.h"
#include "writer/fields.h"

/* The caller-side stack pointer at the hook: equal at entry and exit of one call, strictly
 * lower for every call nested inside it. */
#define HOOK_SP() ((uintptr_t)__builtin_dwarf_cfa())
#define BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

FXTP_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	struct fxtp_thread *t = &fxtp_self;
	uintptr_t sp = HOOK_SP();
	struct fxtp_frame *f = t->top;
	struct fxtp_cache_ent *c = &t->cache[((uintptr_t)fn >> 4) & (FXTP_CACHE_SIZE - 1)];
	/* limit is NULL until the thread is set up (which needs RUNNING), and folds in the depth
	 * cap and the absence of a TSC. base[-1] is a sentinel frame with sp = UINTPTR_MAX. */
	if (unlikely(f >= t->limit || t->in_tracer || f[-1].sp <= sp || c->fn != (uintptr_t)fn)) {
		fxtp_enter_slow(t, (uintptr_t)fn, sp);
		return;
	}
	uint32_t v = c->v;
	f->sp = sp;	/* before the push: a handler's hooks compare against it */
	BARRIER();
	t->top = f + 1;
	BARRIER();
	f->fn = (uintptr_t)fn;
	f->v = v;
	f->start = __rdtsc();
}

FXTP_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	uint64_t now = __rdtsc();
	struct fxtp_thread *t = &fxtp_self;
	uintptr_t sp = HOOK_SP();
	struct fxtp_frame *top = t->top;
	if (unlikely(top <= t->base || t->in_tracer ||
		     top[-1].fn != (uintptr_t)fn || top[-1].sp != sp || top[-1].v >= t->fastlimit)) {
		fxtp_exit_slow(t, (uintptr_t)fn, sp, now);
		return;
	}
	struct fxtp_frame *f = top - 1;
	uint64_t start = f->start, hdr = t->hdr_base | fxt_field_prep(FXT_EVENT_NAME_REF, f->v);
	BARRIER();
	t->top = f;	/* popped before the chunk is touched: a handler's hooks start after it */
	BARRIER();
	if (unlikely(!fxt_chunk_fits(&t->w, 3))) {
		fxtp_write_refill(t, hdr, start, now);
		return;
	}
	uint64_t *r = fxt_chunk_reserve(&t->w, 3);
	r[1] = start;
	r[2] = now;
	fxt_chunk_commit(r, hdr);
}
