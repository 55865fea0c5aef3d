/* Signal handler levels (siglevel.c): a program's handler runs on a hook state of its own;
 * calls named later are deferred to level 0. Async-signal-safe unless said. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SIGLEVEL_H
#define FXT_PRELOAD_SIGLEVEL_H

#include "preload/base/fxtp.h"

/* Runs a program's signal handler (act: its disposition) on a fresh hook state of the next
 * level, so that it never touches the state of the code it interrupted (a hook or a slow path
 * half way through): its own shadow stack, its own chunk writer, guard released. uc: the
 * ucontext (the interrupted stack pointer). Async-signal-safe. Fails: runs the handler on the
 * interrupted state with the guard held (its calls unrecorded) when no level is left. */
struct sigaction;
void fxtp_sig_run(const struct sigaction *act, int sig, void *si, void *uc);
/* Pops levels above `level` (a jump out of their handlers), closing their frames at now. Guard
 * held by the caller; the restored state keeps it held. */
void fxtp_sig_pop_to(struct fxtp_thread *t, uint32_t level, uint64_t now);
/* After a jump to a place not remembered: pops the levels whose handler's stack region does not
 * hold sp (the new call's), and marks the restored state for CFA repair. Guard held. */
void fxtp_sig_unwind(struct fxtp_thread *t, uintptr_t sp, uint64_t now);
/* Closes the frames of every interrupted level's state into w at end (exit flush). */
void fxtp_sig_close_saved(struct fxtp_thread *t, struct fxt_chunk_w *w, uint64_t end);
/* Thread exit: flushes and closes the levels' writers, unmaps their stacks. Fork child: forgets
 * the parent's writers. */
void fxtp_sig_release(struct fxtp_thread *t);
void fxtp_sig_after_fork(struct fxtp_thread *t);

#endif
