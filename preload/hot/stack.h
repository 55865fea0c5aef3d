/* The hooks' slow paths and the shadow stack (stack.c): thread setup at first call, growth,
 * repair, name misses, closing frames (also for the exit flush and signal levels). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_STACK_H
#define FXT_PRELOAD_STACK_H

#include "preload/base/fxtp.h"

/* Slow paths of the hooks, taking the guard: thread setup, shadow stack growth, dead-frame
 * repair at entry, name cache misses, depth cap, no TSC; at exit mismatched frames, chunk
 * refill and the events that are not the 24-byte fast form. now: TSC read at the exit hook
 * (0: not read, the state word changed). */
void fxtp_enter_slow(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp, uintptr_t site);
/* Whether t may record now: the state is RUNNING and t joined it (rejoining here when it last
 * recorded under another word: fxtp_thread_rejoin). Guard held. Fails: 0 (not running, t dead,
 * or inside a signal handler's level of a thread that has not rejoined). */
int fxtp_join(struct fxtp_thread *t);
/* Sets the thread up on first use, else doubles its shadow stack; returns the free frame, or
 * NULL (thread not traced, or no memory). Guard held by the caller. */
struct fxtp_frame *fxtp_stack_grow(struct fxtp_thread *t);
/* site: the hook's call site argument; ret: where the hook returns (equal: the exit hook was
 * tail-jumped to, and sp is fn's CFA). */
void fxtp_exit_slow(struct fxtp_thread *t, uintptr_t fn, uintptr_t sp, uintptr_t site,
		    uintptr_t ret, uint64_t now);
/* The exit fast path's event when the chunk is full: refill (or drop), then write. */
void fxtp_write_refill(struct fxtp_thread *t, uint64_t hdr, uint64_t start, uint64_t end);

#endif
