/* Shadow stack slow paths: the mmap'ed stack and its growth (no depth limit: mremap doubles
 * it), repair when exits never come (longjmp, clang exceptions, pthread_cancel: a frame whose
 * stack pointer is not above the current one is dead and is closed now), mismatched exits, and
 * event writes that are not the 24-byte fast form (inline name, inline thread, min duration).
 * No malloc, no locks: also used from the fatal-signal flush. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "preload/base/fxtp.h"
#include "preload/hot/names.h"
#include "preload/transport/trigger.h"
#include "preload/hot/siglevel.h"
#include "preload/hot/frames.h"
#include "preload/hot/stack.h"
#include "preload/hot/thread.h"
#include "writer/fields.h"

#define CFA_SCAN_BYTES (64u * 1024u) /* how far above a hook's sp its caller's return address
				      * is looked for (the callee's frame size) */

__attribute__((noinline)) struct fxtp_frame *fxtp_stack_grow(struct fxtp_thread *t)
{
	if (t->dead)
		return NULL;
	if (!t->base) {
		if (fxtp_thread_setup(t) < 0) {
			t->dead = 1;
			return NULL;
		}
		return t->top;
	}
	if (fxtp_frames_double(t) < 0)
		return NULL;	/* this call goes unrecorded; its exit finds no frame */
	return t->top;
}

/* A name-cache miss on entry: the name value, cached unless fn is a trigger's. */
static __attribute__((noinline)) uint64_t name_miss(struct fxtp_thread *t, uintptr_t fn,
						   struct fxtp_cache_ent *c)
{
	uint64_t tag = fxtp_name_tag(t, fxtp_name_value(fn, 1));
	if (fxtp_trigger_kind(fn))
		return tag;	/* never cached: its entries must reach the slow path */
	c->tag = tag;
	c->fn = fn;
	return tag;
}

/* Whether frame f is dead once a call at sp from site begins: its sp is below sp, or equal
 * with another call site (a sibling of the new call whose exit never came; a callee inlined
 * into f has f's sp and site). */
static int dead_below(const struct fxtp_frame *f, uintptr_t sp, uintptr_t site)
{
	return f->sp < sp || (f->sp == sp && f->site != site);
}

/* Closes, at time now, the frames a call at stack pointer sp from site proves dead. An
 * alternate signal stack is not the thread's stack: nothing is dead from there. */
static void unwind_to(struct fxtp_thread *t, uintptr_t sp, uintptr_t site, uint64_t now)
{
	if (sp < t->stack_lo || sp >= t->stack_hi)
		return;
	while (t->top > t->base && dead_below(&t->top[-1], sp, site)) {
		t->top--;
		fxtp_write_frame(t, &t->w, t->top, now);
	}
}

/* The new call's own frame top (its CFA) after a non-local exit: the slot above sp holding its
 * return address `site`. Every frame entered below it is dead. 0 when not found. Reads the
 * program's stack frames word by word on purpose (ASan redzones included). */
__attribute__((no_sanitize_address)) static uintptr_t call_cfa(const struct fxtp_thread *t, uintptr_t sp, uintptr_t site)
{
	if (sp < t->stack_lo || sp >= t->stack_hi)
		return 0;
	uintptr_t end = t->stack_hi - sp > CFA_SCAN_BYTES ? sp + CFA_SCAN_BYTES : t->stack_hi;
	for (const uintptr_t *p = (const uintptr_t *)sp; (uintptr_t)(p + 1) <= end; p++)
		if (*p == site)
			return (uintptr_t)(p + 1);
	return 0;
}

/* Closes the frames a non-local exit left (t->nonlocal, nonlocal.c) once a call of fn at sp
 * from site begins. After a catch: the frames below the catching function's stack pointer. After
 * a jump to a place not known: the frames entered below the new call's CFA, but for one of
 * another function at the very same sp and call site: the frame this call is inlined into (-O2;
 * its site is that frame's caller, so cfa is that frame's too). One of the same function there
 * is taken for a dead earlier call: a call inlined into a frame of its own function looks the
 * same (the landing function's exit, when it comes first, ends the repair: fxtp_exit_slow).
 * That exception needs the equal sp: a call inlined after an alloca has a lower one, and then
 * closes the frame it is inlined into (a catch never relies on it: its stack pointer is known;
 * a jump to a remembered jmp_buf never comes here). */
static void close_left(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp, uintptr_t site)
{
	uintptr_t how = t->nonlocal;
	t->nonlocal = 0;
	int scan = how == FXTP_NONLOCAL_SCAN;
	uintptr_t below = scan ? call_cfa(t, sp, site)
			  : how >= t->stack_lo && how < t->stack_hi ? how : 0;
	uint64_t now = fxtp_now();
	while (t->top > t->base && t->top[-1].sp < below &&
	       !(scan && t->top[-1].sp == sp && t->top[-1].site == site && t->top[-1].fn != fn)) {
		t->top--;
		fxtp_write_frame(t, &t->w, t->top, now);
	}
}

int fxtp_join(struct fxtp_thread *t)
{
	uint32_t word = __atomic_load_n(&fxtp_state, __ATOMIC_ACQUIRE);
	if ((word & FXTP_STATE_MASK) != FXTP_STATE_RUNNING)
		return 0;
	if (!t->base || t->run_key == word)
		return 1;	/* not set up yet (setup joins), or joined */
	if (t->dead || t->siglevel)
		return 0;	/* a handler's level: the thread rejoins back at level 0 */
	fxtp_thread_rejoin(t, word);
	return 1;
}

/* The entry slow path while recording (fxtp_enter_slow below decides). */
static __attribute__((noinline)) void enter_running(struct fxtp_thread *t, uintptr_t fn,
						    uintptr_t sp, uintptr_t site)
{
	if (!fxtp_enter(t))
		return;
	if (!fxtp_join(t))
		goto out;
	if (t->sigjump)
		fxtp_sig_unwind(t, sp, fxtp_now());	/* may set nonlocal */
	if (t->deferred && !t->siglevel)
		fxtp_sig_drain(t, 1);
	if (t->nonlocal)
		close_left(t, fn, sp, site);
	/* A trigger's function is never in the name cache: its every entry comes here. */
	struct fxtp_cache_ent *c = &t->cache[(fn >> 4) & (FXTP_CACHE_SIZE - 1)];
	int trigger = c->fn != fn ? fxtp_trigger_running(t, fn) : FXTP_TRIGGER_NONE;
	if (trigger == FXTP_TRIGGER_PAUSED)
		goto out;	/* a stop trigger: this call is not recorded */
	struct fxtp_frame *f = t->top;
	if (f >= t->end && !(f = fxtp_stack_grow(t)))
		goto out;
	if (dead_below(&f[-1], sp, site)) {
		unwind_to(t, sp, site, fxtp_now());
		f = t->top;
	}
	/* A signal handler's level reads no cache (the code it interrupted may be filling the
	 * entry) and never symbolizes: the shared map, else the call is deferred. */
	uint64_t tag = t->siglevel ? fxtp_name_tag(t, fxtp_name_value(fn, 0))
		       : c->fn == fn ? c->tag : name_miss(t, fn, c);
	if (f >= t->depth_cap)
		tag = fxtp_tag_slow(FXTP_V_SKIP);
	f->sp = sp;
	f->fn = fn;
	f->site = site;
	f->tag = tag;
	t->top = f + 1;
	f->start = fxtp_after(f[-1].start, fxtp_now());
	if (trigger == FXTP_TRIGGER_FIRE)
		fxtp_trigger_snapshot(t);
out:
	fxtp_leave(t);
}

__attribute__((noinline)) void fxtp_enter_slow(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp,
					       uintptr_t site)
{
	/* Idle: one test and back, before any register is saved. Armed: only a start
	 * trigger's entry goes on (trigger.c). */
	uint32_t s = fxtp_state_word() & FXTP_STATE_MASK;
	if (unlikely(s != FXTP_STATE_RUNNING) &&
	    (s != FXTP_STATE_ARMED || !fxtp_trigger_armed(t, fn)))
		return;
	enter_running(t, fn, sp, site);
}

/* The frame an exit of fn from site closes, or NULL; *sure: found by the rule (not the last
 * resort). The rule (docs/ARCHITECTURE.md, "Matching exits to frames"): the frame has fn and
 * site (an inlined call has its caller's site at entry and exit alike). A called exit (ret !=
 * site) has the sp its entry had, or a lower one when alloca or a VLA moved the stack pointer
 * inside the call: the topmost such frame whose sp is not below the exit's (the call's callees,
 * dead or not, have lower ones). A tail-jumped exit (ret == site) has fn's CFA as its sp, which
 * is above fn's frame and everything fn called, and equal to the sp of an instrumented caller
 * (a recursive parent of the same fn): the lowest frame among the frames on top whose sp is
 * below it. Frames above the one found never got their exit (longjmp, unwinding) and are
 * closed with it. Last resort (an sp that rose inside the call): the top frame when it is fn's. */
static struct fxtp_frame *exit_frame(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp,
				     uintptr_t site, int tail, int *sure)
{
	struct fxtp_frame *g, *found = NULL;

	*sure = 1;
	if (tail) {
		for (g = t->top - 1; g >= t->base && g->sp < sp; g--)
			if (g->fn == fn && g->site == site)
				found = g;
		if (found)
			return found;
	} else {
		for (g = t->top - 1; g >= t->base; g--)
			if (g->fn == fn && g->site == site && g->sp >= sp)
				return g;
	}
	*sure = 0;
	return t->top[-1].fn == fn ? t->top - 1 : NULL;
}

__attribute__((noinline)) void fxtp_exit_slow(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp,
					      uintptr_t site, uintptr_t ret, uint64_t now)
{
	if (!fxtp_running() || !fxtp_enter(t))
		return;
	if (!fxtp_join(t))
		goto out;
	if (!now || !fxtp.use_tsc)
		now = fxtp_now();
	if (t->sigjump)
		fxtp_sig_unwind(t, sp, now);
	if (t->deferred && !t->siglevel)
		fxtp_sig_drain(t, 1);
	if (!t->base || t->top == t->base)
		goto out;	/* an exit whose entry was never seen (before setup, or too early) */
	int sure;
	struct fxtp_frame *g = exit_frame(t, fn, sp, site, ret == site, &sure);
	if (g)
		fxtp_close_frames_above(t, g, now);
	/* A live call's exit closed every frame a non-local exit left above it, and the frames
	 * below it are its callers: nothing is left to repair (a scan at the next entry could
	 * not tell a call inlined into a caller of the same function from a dead one). */
	if (g && sure)
		t->nonlocal = 0;
out:
	fxtp_leave(t);
}

__attribute__((noinline)) void fxtp_write_refill(struct fxtp_thread *t, uint64_t hdr,
						 uint64_t start, uint64_t end)
{
	uint64_t *r = fxt_chunk_reserve(&t->w, 3);
	if (r) {
		r[1] = start;
		r[2] = end;
		fxt_chunk_commit(r, hdr);
	}
}

