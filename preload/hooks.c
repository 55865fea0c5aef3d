/* The -finstrument-functions hooks: the hot path of the tracer. Entry pushes a frame (stack
 * pointer, name ref from the per-thread cache, timestamp); exit pops it and writes one 24-byte
 * duration complete event into the thread's chunk (pointer bump, header last). No atomics,
 * syscalls, locks or allocation here: everything unusual goes to stack.c / names.c. */
/* SPDX-License-Identifier: MIT */
#include "preload/fxtp.h"
#include "writer/fields.h"

/* The caller-side stack pointer at the hook: equal at entry and exit of one call, strictly
 * lower for every call nested inside it. */
#define HOOK_SP() ((uintptr_t)__builtin_dwarf_cfa())

FXTP_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	struct fxtp_thread *t = &fxtp_self;
	if (unlikely(!fxtp_running()) || !fxtp_enter(t))
		return;
	uintptr_t sp = HOOK_SP();
	struct fxtp_frame *f = t->top;
	if (unlikely(f >= t->limit) && !(f = fxtp_stack_grow(t)))
		goto out;
	if (unlikely(f != t->base && f[-1].sp <= sp))
		f = fxtp_stack_unwind_to(t, sp, fxtp_now());

	struct fxtp_cache_ent *c = &t->cache[((uintptr_t)fn >> 4) & (FXTP_CACHE_SIZE - 1)];
	uint32_t v = likely(c->fn == (uintptr_t)fn) ? c->v : fxtp_name_miss(t, (uintptr_t)fn, c);
	if (unlikely(f >= t->depth_cap))
		v = FXTP_V_SKIP;
	f->sp = sp;
	f->fn = (uintptr_t)fn;
	f->v = v;
	t->top = f + 1;
	f->start = fxtp_now();
out:
	fxtp_leave(t);
}

FXTP_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct fxtp_thread *t = &fxtp_self;
	if (unlikely(!fxtp_running()) || !fxtp_enter(t))
		return;
	uint64_t now = fxtp_now();
	uintptr_t sp = HOOK_SP();
	struct fxtp_frame *f = t->top - 1;
	if (unlikely(t->top == t->base || f->fn != (uintptr_t)fn || f->sp != sp)) {
		fxtp_exit_slow(t, (uintptr_t)fn, sp, now);
		goto out;
	}
	t->top = f;
	if (likely(f->v < t->fastlimit)) {
		uint64_t *r = fxt_chunk_reserve(&t->w, 3);
		if (likely(r != NULL)) {
			r[1] = f->start;
			r[2] = now;
			fxt_chunk_commit(r, t->hdr_base | fxt_field_prep(FXT_EVENT_NAME_REF, f->v));
		}
	} else {
		fxtp_write_event(t, f, now);
	}
out:
	fxtp_leave(t);
}
