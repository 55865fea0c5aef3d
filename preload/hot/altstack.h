/* The alternate signal stack of a thread (altstack.c). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_ALTSTACK_H
#define FXT_PRELOAD_ALTSTACK_H

/* Gives the calling thread an alternate signal stack unless it has one, so that a stack
 * overflow is flushed too; returns it (for release) or NULL. Release at thread exit. */
void *fxtp_altstack_setup(void);
void fxtp_altstack_release(void *stack);

#endif
