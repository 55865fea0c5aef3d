/* Thread starts as flows (spawn.c): what the exit flush and a fork child ask of it. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SPAWN_H
#define FXT_PRELOAD_SPAWN_H

#include <stdint.h>

#include "writer/chunk.h"

/* Exit flush: ends, in w (koid-inline, the calling thread), every pthread_create flow whose
 * thread has not started, inside one short `unstarted thread` span ending at now, so no flow
 * stays half-written. Once, from fxtp_finish. */
void fxtp_spawn_flush(struct fxt_chunk_w *w, uint64_t now);
/* Fork child: forgets the parent's pending flows (their begins are in the parent's archive). */
void fxtp_spawn_after_fork(void);

#endif
