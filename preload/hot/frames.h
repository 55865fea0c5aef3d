/* A thread's shadow stack and the records of its frames (frames.c): used by the hooks' slow
 * paths (stack.c), the signal levels (siglevel.c), thread setup and exit (thread.c) and the
 * triggers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FRAMES_H
#define FXT_PRELOAD_FRAMES_H

#include <stdint.h>

#include "preload/base/fxtp.h"
#include "writer/chunk.h"

/* Writes the complete event of frame f ending at end into w for thread t (t's own writer: its
 * index; another: koids inline). Filtered and short calls write nothing. */
void fxtp_write_frame(struct fxtp_thread *t, struct fxt_chunk_w *w, const struct fxtp_frame *f,
		      uint64_t end);
/* Closes the calling thread's frames at or above `keep` (left by a jump) at time end. */
void fxtp_close_frames_above(struct fxtp_thread *t, struct fxtp_frame *keep, uint64_t end);
/* Maps the calling thread's shadow stack, and unmaps it. */
int fxtp_stack_init(struct fxtp_thread *t);
void fxtp_stack_release(struct fxtp_thread *t);
/* Doubles t's shadow stack (mremap), keeping its frames. Fails: -errno (the stack stays). */
int fxtp_frames_double(struct fxtp_thread *t);
/* Writes the calls the levels deferred, naming them (symbolize: may call the symbolizer; else
 * unnamed ones get "0x<addr>") into t's current writer. Guard held, level 0 (or exit flush). */
void fxtp_sig_drain(struct fxtp_thread *t, int symbolize);
/* A frame whose name is FXTP_V_DEFER closes: queued on the current level (its own writer),
 * else written at once with the name the shared map has, or "0x<addr>". */
void fxtp_sig_defer(struct fxtp_thread *t, struct fxt_chunk_w *w, const struct fxtp_frame *f,
		    uint64_t end);
/* Writes the calls every level of t deferred into w (fxtp_sig_drain: t's own writer; the
 * thread's exit: its level's). */
void fxtp_sig_drain_into(struct fxtp_thread *t, struct fxt_chunk_w *w, int symbolize);

#endif
