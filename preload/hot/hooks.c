/* The -finstrument-functions hooks: the hot path of the tracer. Entry pushes a frame (stack
 * pointer, frame tag from the per-thread name cache, TSC); exit pops it and writes one 24-byte
 * duration complete event into the thread's chunk (pointer bump, header last). No atomics,
 * syscalls, locks, allocation or calls here: anything unusual tail-calls a slow path in stack.c,
 * which takes the guard. A program's signal handler never runs hooks on the state it
 * interrupted (siglevel.c swaps in its own); stores are ordered so that the exit flush can read
 * a running thread's frames (exits stop popping once the state word changes). */
/* SPDX-License-Identifier: MIT */
#include "preload/base/fxtp.h"
#include "preload/hot/stack.h"

/* The caller-side stack pointer at the hook: equal at entry and exit of one call, lower for
 * every call nested inside it, or equal for one inlined into it (-O2): a frame whose sp is
 * lower than a new call's is dead (left by longjmp or an unwind without exit hooks). */
#define HOOK_SP() ((uintptr_t)__builtin_dwarf_cfa())
/* Where the hook returns to. An exit hook the compiler tail-jumped to (gcc -O1 and up ends a
 * function with `jmp __cyg_profile_func_exit`) returns straight to the function's caller: this
 * equals the call site argument, and HOOK_SP() is then the function's own CFA (above its
 * frame's sp, and equal to the sp of a recursive parent's frame). A called exit returns into
 * the function, never to its call site. */
#define HOOK_RET() ((uintptr_t)__builtin_return_address(0))
#define BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

FXTP_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	struct fxtp_thread *t = &fxtp_self;
	uintptr_t sp = HOOK_SP();
	struct fxtp_frame *f = t->top;
	struct fxtp_cache_ent *c = &t->cache[((uintptr_t)fn >> 4) & (FXTP_CACHE_SIZE - 1)];
	/* limit is NULL until the thread is set up (which needs RUNNING) and while the guard is
	 * held; it folds in the depth cap and the absence of a TSC. base[-1] is a sentinel frame
	 * with sp = UINTPTR_MAX. The top frame is dead when its sp is below this call's, or equal
	 * with another call site (a sibling whose exit never came: clang's unwinding calls no exit
	 * hooks; an inlined callee has its caller's sp and site): the slow path closes it. A state
	 * word other than the one this thread joined (idle, stopped, a new trace): the slow path
	 * rejoins or returns. */
	if (unlikely(f >= t->limit || f[-1].sp - (f[-1].site != (uintptr_t)site) < sp ||
		     c->fn != (uintptr_t)fn || fxtp_state_word() != t->run_key)) {
		fxtp_enter_slow(t, (uintptr_t)fn, sp, (uintptr_t)site);
		return;
	}
	/* The frame is filled before the push: frames below top are always whole, for the exit
	 * flush reading them from another thread. A program's signal handler landing in between
	 * runs on a state of its own (siglevel.c) and touches neither this slot nor the chunk. */
	f->sp = sp;
	f->fn = (uintptr_t)fn;
	f->site = (uintptr_t)site;
	f->tag = c->tag;
	f->start = fxtp_after(f[-1].start, __rdtsc());	/* sentinel's start: 0 */
	BARRIER();
	t->top = f + 1;
}

FXTP_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	struct fxtp_thread *t = &fxtp_self;
	uintptr_t sp = HOOK_SP();
	/* Once the state word changes (STOPPING, IDLE, another trace), exits pop nothing: a stop
	 * reads this thread's frames below its top while it may still run, and entries only
	 * write above the top. Tested before the clock is read: an idle process pays no rdtsc
	 * (the slow path reads the time itself, now = 0). */
	if (unlikely(fxtp_state_word() != t->run_key)) {
		fxtp_exit_slow(t, (uintptr_t)fn, sp, (uintptr_t)site, HOOK_RET(), 0);
		return;
	}
	uint64_t now = __rdtsc();
	struct fxtp_frame *top = t->top;
	/* The top frame is this call's when it is fn's and: a called exit has its sp; a
	 * tail-jumped one has an sp above it but not above the frame below (whose sp is, for an
	 * instrumented caller, exactly this CFA; base[-1] is a sentinel with sp = UINTPTR_MAX).
	 * Anything else (frames left by a jump, recursion with a dead frame on top) is sorted
	 * out by the slow path. While the guard is held no exit matches the top frame (see
	 * fxtp_enter()): its calls are deeper than the top frame's sp. */
	if (unlikely(top <= t->base || top[-1].fn != (uintptr_t)fn || !fxtp_tag_fast(top[-1].tag))) {
		fxtp_exit_slow(t, (uintptr_t)fn, sp, (uintptr_t)site, HOOK_RET(), now);
		return;
	}
	if (unlikely(top[-1].sp != sp) &&
	    (top[-1].sp > sp || top[-2].sp < sp || HOOK_RET() != (uintptr_t)site)) {
		fxtp_exit_slow(t, (uintptr_t)fn, sp, (uintptr_t)site, HOOK_RET(), now);
		return;
	}
	struct fxtp_frame *f = top - 1;
	uint64_t start = f->start, hdr = f->tag;
	if (unlikely((int64_t)(now - start) < 0))
		now = start;	/* start moved by fxtp_after */
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
