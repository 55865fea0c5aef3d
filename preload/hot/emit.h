/* Durable records and koid-inline events (emit.c), written straight through the writer.
 * Async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_EMIT_H
#define FXT_PRELOAD_EMIT_H

#include <stdint.h>

#include "writer/chunk.h"

int fxtp_emit_string(uint32_t index, const char *s, uint32_t len);
int fxtp_emit_kobj(unsigned obj_type, uint64_t koid, const char *name, uint32_t len,
		   uint64_t process_koid);
/* The 3-word thread record for (index, pid, tid). */
void fxtp_thread_record(uint64_t rec[3], uint32_t index, uint64_t pid, uint64_t tid);
/* Complete event with inline name and/or inline thread; returns 0 or -ENOSPC (dropped). */
int fxtp_emit_complete(struct fxt_chunk_w *w, uint32_t thread_index, uint64_t pid, uint64_t tid,
		       uint16_t name_ref, const char *name, uint32_t name_len, uint64_t start,
		       uint64_t end);

#endif
