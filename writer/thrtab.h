/* Thread table for one producer: (pid, tid) koids -> FXT thread index in [1,255], so events can
 * use indexed thread refs. Past 255 threads the least recently used slot is recycled and the
 * caller is told to (re)emit a thread record before using the index; a thread that cached an
 * index must check fxt_thrtab_owns() before reusing it after others registered. Fixed storage
 * inside the struct (about 4.5 KiB); no malloc, no I/O, async-signal-safe.
 * NOT thread-safe: use under the caller's lock or from one thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_THRTAB_H
#define FXT_WRITER_THRTAB_H

#include <stdint.h>

#include "writer/fields.h"

#define FXT_THRTAB_SLOTS FXT_THREAD_MAX_INDEX /* 255: indexes 1..255 */

struct fxt_thrtab {
	uint32_t used;	   /* slots handed out so far, in [0,255] */
	uint32_t last;	   /* slot of the last hit or insert (lookup shortcut), 0 = none */
	uint64_t tick;	   /* interns so far: the clock of used_at */
	uint64_t recycled; /* slots recycled so far (statistics) */
	uint64_t pid[FXT_THRTAB_SLOTS + 1], tid[FXT_THRTAB_SLOTS + 1]; /* by index; [0] unused */
	uint64_t used_at[FXT_THRTAB_SLOTS + 1]; /* tick of the slot's last intern (LRU) */
};

/* Empties t. Fails: never. Not thread-safe (caller's lock). */
void fxt_thrtab_init(struct fxt_thrtab *t);

/* Index of (pid, tid), registering it if absent. *fresh is set to 1 when the slot is new or
 * recycled: emit fxt_thread_write(dst, index, pid, tid) before any record uses it; else 0.
 * Returns the index in [1,255]. Fails: never. Not thread-safe (caller's lock); async-signal-safe. */
int fxt_thrtab_intern(struct fxt_thrtab *t, uint64_t pid, uint64_t tid, int *fresh);

/* Whether slot index still holds (pid, tid). Fails: 0 for an index out of range.
 * Not thread-safe with writers. */
int fxt_thrtab_owns(const struct fxt_thrtab *t, uint32_t index, uint64_t pid, uint64_t tid);

#endif
