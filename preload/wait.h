/* What the pthread, stdio and syslog wrappers (lock.c, log.c, uobj.c) share: taking the guard
 * on a thread that is set up (setting it up on first use, as in uninstrumented programs),
 * constant strings interned once, and writing one event into the thread's chunk. Used only on
 * recording paths, never on a wrapper's uncontended path. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_WAIT_H
#define FXT_PRELOAD_WAIT_H

#include <stdint.h>

#include "preload/fxtp.h"
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

/* ---- log.c ---- */
/* The strings of a log line's mirror instant: its category (`log`), its name (the stream) and
 * its argument's name (`message`), as string refs of the caller's interning. */
struct fxtp_log_names {
	struct fxt_str category, stream, argument;
};
/* One log line made of a[0..alen) then b[0..blen) (cut to what a record holds with its mirror):
 * its log record, then (unless FXT_LOG_EVENTS=0) its mirror: an instant named n->stream with the
 * record's checked bytes as argument, which Perfetto shows (its FXT importer does not read log
 * records). Guard held. */
void fxtp_log_line(struct fxtp_thread *t, const struct fxtp_log_names *n, const char *a,
		   uint32_t alen, const char *b, uint32_t blen, uint64_t ts);

/* ---- spawn.c ---- */
/* Exit flush: ends, in w (koid-inline, the calling thread), every pthread_create flow whose
 * thread has not started, inside one short `unstarted thread` span ending at now, so no flow
 * stays half-written. Once, from fxtp_finish. */
void fxtp_spawn_flush(struct fxt_chunk_w *w, uint64_t now);
/* Fork child: forgets the parent's pending flows (their begins are in the parent's archive). */
void fxtp_spawn_after_fork(void);

/* ---- uobj.c ---- */
/* The label of synchronisation object obj of kind `kind` ("mutex", ...): the symbol naming it
 * (sym or sym+0xN) for a global or static object, else kind#N (N counts per kind, from 1).
 * The first time obj is seen its userspace object record goes to the durable area, before the
 * caller's event. Returns the label's string ref (s valid until the next call on this
 * thread). Guard held. */
struct fxt_str fxtp_uobj_label(const void *obj, const char *kind);

#endif
