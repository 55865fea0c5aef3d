/* The alternate signal stack each thread gets (unless the program gave it one), so that the
 * fatal-signal flush (life/dispositions.c) also runs after a stack overflow. Reserved, touched
 * only when a handler runs on it. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/hot/altstack.h"

#include <signal.h>
#include <sys/mman.h>

#define ALTSTACK_BYTES (256u << 10) /* reserved; pages are touched only when a handler runs */

void *fxtp_altstack_setup(void)
{
	stack_t old;
	if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return NULL;	/* the program has its own */
	void *p = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	stack_t ss = { .ss_sp = p, .ss_size = ALTSTACK_BYTES, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) < 0) {
		munmap(p, ALTSTACK_BYTES);
		return NULL;
	}
	return p;
}

void fxtp_altstack_release(void *stack)
{
	stack_t cur;
	if (!stack || sigaltstack(NULL, &cur) < 0 || cur.ss_sp != stack ||
	    (cur.ss_flags & SS_ONSTACK))
		return;	/* replaced by the program (it may still use ours), or in use: keep it */
	stack_t off = { .ss_flags = SS_DISABLE };
	if (sigaltstack(&off, NULL) == 0)
		munmap(stack, ALTSTACK_BYTES);
}
