/* Non-local exits: longjmp, siglongjmp, _longjmp, __longjmp_chk and __cxa_begin_catch (a C++
 * catch, after an unwind that clang-built frames leave without exit hooks) mark the calling
 * thread so that its next entry hook takes the slow path and closes, exactly, the frames the
 * jump abandoned: those below the new call's own frame, found from its return address on the
 * stack. The jump itself is the real function's, unchanged. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

#include "preload/fxtp.h"

/* Makes the thread's next entry hook run the exact repair (stack.c); the fast path sees a NULL
 * limit. Nothing while inside the tracer (the guard's own use of limit). */
static void mark(void)
{
	struct fxtp_thread *t = &fxtp_self;
	if (!t->base || t->in_tracer)
		return;
	t->nonlocal = 1;
	t->limit = NULL;
}

/* Resolves and calls a real jump function; they cannot fail, and libc always has them. */
#define JUMP(name, env, val)                                                                     \
	do {                                                                                     \
		mark();                                                                          \
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

FXTP_EXPORT void *__cxa_begin_catch(void *exc)
{
	mark();
	fxtp_real_init();
	void *(*real)(void *) = begin_catch();
	if (!real)
		abort();	/* a catch ran without a C++ runtime loaded: cannot happen */
	return real(exc);
}
