/* Non-local exits. setjmp/_setjmp/__sigsetjmp are interposed by tail-jumping trampolines (the
 * real function sees its caller's exact context) that remember, per thread, how many frames were
 * alive for that jmp_buf (FXTP_JMPS of them, kept while their frames are open);
 * longjmp/siglongjmp/_longjmp/__longjmp_chk then close exactly the frames opened since, before
 * jumping (inlined frames included). A jump to a jmp_buf not remembered marks the thread
 * instead: its next entry closes the frames below the new call's CFA, found from its return
 * address on the stack (stack.c). __cxa_begin_catch (a C++ catch, after an unwind that
 * clang-built frames leave without exit hooks) marks it with the catching function's stack
 * pointer: its next entry closes the frames below that. A jump out of a signal handler ends the
 * handler's tracing level (siglevel.c): at once for a remembered jmp_buf, else at the next hook
 * whose stack pointer lies outside the handler's stack region. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

#include "preload/base/fxtp.h"
#include "preload/base/real.h"
#include "preload/hot/siglevel.h"
#include "preload/hot/frames.h"
#include "preload/hot/stack.h"

/* Real setjmp family for the trampolines (hidden: RIP-relative from the asm below). */
__attribute__((visibility("hidden"))) void *fxtp_real_setjmp, *fxtp_real__setjmp,
	*fxtp_real___sigsetjmp;

/* Whether the frame entry j remembers (the innermost alive at its setjmp) is still open among
 * the `open` frames of the current level: then its jmp_buf may be jumped to. A frame closed and
 * another pushed at the same depth has another start. Entries of an interrupted level stay
 * (its frames wait for the handler's return); those of a level that ended do not. */
static int jmp_live(const struct fxtp_thread *t, const struct fxtp_jmp *j, size_t open)
{
	if (!j->env || j->level != t->siglevel)
		return j->env && j->level < t->siglevel;
	if (j->depth > open)
		return 0;
	return !j->depth || (t->base[j->depth - 1].start == j->start &&
			     t->base[j->depth - 1].sp == j->sp);
}

/* The entry a setjmp of env takes among the `alive` frames: env's own, else one whose frame is
 * closed, else the oldest of the outermost (jumps go to an inner one far more often). Evicting
 * in turn lost live jmp_bufs to a loop of setjmps in callees that had returned (difftest seed
 * 348): the jump to one was then repaired by a scan, which cannot tell a call inlined into a
 * frame of the same function from a dead earlier call (stack.c, close_left). */
static struct fxtp_jmp *jmp_slot(struct fxtp_thread *t, const void *env, size_t alive)
{
	struct fxtp_jmp *slot = NULL;
	int slot_live = 1;
	for (struct fxtp_jmp *j = t->jmps; j < t->jmps + FXTP_JMPS; j++) {
		if (j->env == env)
			return j;
		if (!slot_live)
			continue;
		int live = jmp_live(t, j, alive);
		if (!slot || !live || j->depth < slot->depth ||
		    (j->depth == slot->depth && (int32_t)(j->seq - slot->seq) < 0)) {
			slot = j;
			slot_live = live;
		}
	}
	return slot;
}

/* Called by the trampolines before the tail jump: remembers env with the depth of the frames
 * still alive, those whose sp is not below sp (the caller's stack pointer at its call of the
 * setjmp: every frame below it is dead, left by a jump or an unwind whose repair is pending
 * until the next entry; kept, a later jump to env would keep them too), and the innermost of
 * them. Resolves the real functions on first use. Never fails. */
__attribute__((visibility("hidden"), no_instrument_function, used)) void
fxtp_setjmp_note(const void *env, uintptr_t sp)
{
	if (!fxtp_real___sigsetjmp) {
		fxtp_real_setjmp = dlsym(RTLD_NEXT, "setjmp");
		fxtp_real__setjmp = dlsym(RTLD_NEXT, "_setjmp");
		__atomic_store_n(&fxtp_real___sigsetjmp, dlsym(RTLD_NEXT, "__sigsetjmp"),
				 __ATOMIC_RELEASE);
	}
	struct fxtp_thread *t = &fxtp_self;
	if (!t->base)
		return;
	size_t depth = (size_t)(t->top - t->base);
	if (sp >= t->stack_lo && sp < t->stack_hi)	/* else an alternate stack: no order */
		while (depth && t->base[depth - 1].sp < sp)
			depth--;
	struct fxtp_jmp *j = jmp_slot(t, env, depth);
	j->depth = depth;
	j->start = depth ? t->base[depth - 1].start : 0;
	j->sp = depth ? t->base[depth - 1].sp : 0;
	j->level = t->siglevel;
	j->seq = t->jmps_seq++;
	j->env = env;
}

/* Each trampoline keeps the argument registers, calls the note (env, the caller's stack pointer
 * at its call) with a 16-byte aligned stack, restores them and jumps to the real function: no
 * frame of ours stays between. */
#define TRAMPOLINE(name)                                                                        \
	__asm__(".globl " #name "\n"                                                            \
		".type " #name ", @function\n" #name ":\n"                                      \
		"	push %rdi\n"                                                            \
		"	push %rsi\n"                                                            \
		"	lea 24(%rsp), %rsi\n"                                                   \
		"	sub $8, %rsp\n"                                                         \
		"	call fxtp_setjmp_note\n"                                                \
		"	add $8, %rsp\n"                                                         \
		"	pop %rsi\n"                                                             \
		"	pop %rdi\n"                                                             \
		"	jmp *fxtp_real_" #name "(%rip)\n"                                       \
		".size " #name ", .-" #name "\n")
TRAMPOLINE(setjmp);
TRAMPOLINE(_setjmp);
TRAMPOLINE(__sigsetjmp);

/* Makes the thread's next entry hook run the repair `how` (FXTP_NONLOCAL_SCAN or a catch's
 * stack pointer: stack.c); the fast path sees a NULL limit. Nothing while inside the tracer
 * (the guard's own use of limit). */
static void mark(uintptr_t how)
{
	struct fxtp_thread *t = &fxtp_self;
	if (!t->base || t->in_tracer)
		return;
	t->nonlocal = how;
	if (t->siglevel)
		t->sigjump = 1;	/* maybe out of the handler: its level pops at the next hook */
	t->limit = NULL;
}

/* Before a jump to env: closes the frames opened since its setjmp, or marks the thread. */
static void jumping(const void *env)
{
	struct fxtp_thread *t = &fxtp_self;
	if (!t->base || !fxtp_running() || !fxtp_enter(t))
		return;
	if (!fxtp_join(t)) {
		fxtp_leave(t);
		return;
	}
	const struct fxtp_jmp *j = NULL;
	for (uint32_t i = 0; i < FXTP_JMPS; i++)
		if (t->jmps[i].env == env)
			j = &t->jmps[i];
	if (j && j->level < t->siglevel)	/* out of signal handlers: their levels end here */
		fxtp_sig_pop_to(t, j->level, fxtp_now());
	if (j && jmp_live(t, j, (size_t)(t->top - t->base))) {
		fxtp_close_frames_above(t, t->base + j->depth, fxtp_now());
		fxtp_leave(t);
		return;
	}
	fxtp_leave(t);
	mark(FXTP_NONLOCAL_SCAN);
}

/* Resolves and calls a real jump function; they cannot fail, and libc always has them. */
#define JUMP(name, env, val)                                                                     \
	do {                                                                                     \
		jumping(env);                                                                    \
		fxtp_real_init();                                                                \
		if (!fxtp_real.name)                                                             \
			abort();                                                                 \
		fxtp_real.name(env, val);                                                        \
		__builtin_unreachable();                                                         \
	} while (0)

FXTP_EXPORT void longjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(longjmp, env, val);
}

FXTP_EXPORT void _longjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(_longjmp, env, val);
}

FXTP_EXPORT void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
	JUMP(siglongjmp, env, val);
}

FXTP_EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	JUMP(__longjmp_chk, env, val);
}

/* The C++ runtime's __cxa_begin_catch. It may come after our constructor, and outside the
 * global scope (a C program dlopen'ing C++ code): then it is found in the loaded runtime. */
static void *(*begin_catch(void))(void *)
{
	static const char *const runtimes[] = { "libstdc++.so.6", "libc++abi.so.1", "libc++.so.1" };
	void *(*real)(void *) = __atomic_load_n(&fxtp_real.__cxa_begin_catch, __ATOMIC_RELAXED);
	for (size_t i = 0; !real && i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		void *h = dlopen(runtimes[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			real = (void *(*)(void *))dlsym(h, "__cxa_begin_catch");
			dlclose(h);
		}
	}
	__atomic_store_n(&fxtp_real.__cxa_begin_catch, real, __ATOMIC_RELAXED);
	return real;
}

/* Called by the catching function's landing pad: its CFA is that function's stack pointer at the
 * call that threw, above every frame the unwind left and not above the catching function's
 * own frame (nor those inlined into it), whatever alloca did in between. */
FXTP_EXPORT void *__cxa_begin_catch(void *exc)
{
	mark((uintptr_t)__builtin_dwarf_cfa());
	fxtp_real_init();
	void *(*real)(void *) = begin_catch();
	if (!real)
		abort();	/* a catch ran without a C++ runtime loaded: cannot happen */
	return real(exc);
}
