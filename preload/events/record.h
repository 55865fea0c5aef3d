/* Recording outside the hooks (record.c): what the wrappers (lock.c, log.c, spawn.c, uobj.c)
 * and <fxt/trace.h> (api.c) share to write one event of the calling thread: taking the guard on
 * a thread that is set up (setting it up on first use, as in uninstrumented programs), constant
 * strings interned once, and writing one event into the thread's chunk. Used only on recording
 * paths, never on a wrapper's uncontended path. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_RECORD_H
#define FXT_PRELOAD_RECORD_H

#include <stdint.h>

#include "preload/base/fxtp.h"
#include "writer/records.h"

/* A constant string interned on first use: its index (0: not yet). */
struct fxtp_cstr {
	const char *s;
	uint16_t index;
};
#define FXTP_CSTR(lit) { lit, 0 }

/* Takes the guard on the calling thread, set up if needed. NULL: record nothing (tracing off,
 * already inside the tracer, thread dead or not set up). Pair with fxtp_leave(). */
struct fxtp_thread *fxtp_rec_enter(void);
/* The string ref of c: indexed once interned, else inline. Guard held. */
struct fxt_str fxtp_cstr(struct fxtp_cstr *c);
/* The thread ref of t's events. */
struct fxt_thread fxtp_thread_ref(const struct fxtp_thread *t);
/* Writes e into t's chunk. Fails: -ENOSPC (dropped, counted) or -EINVAL. Guard held. */
int fxtp_rec_event(struct fxtp_thread *t, const struct fxt_event *e);
/* Largest record (words) a chunk and the format both hold. */
uint32_t fxtp_rec_max_words(void);

#endif
