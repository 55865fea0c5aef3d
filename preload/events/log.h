/* Log lines (log.c): the one writer of a log record and its mirror instant, shared with
 * <fxt/trace.h> (api.c). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_LOG_H
#define FXT_PRELOAD_LOG_H

#include <stdint.h>

#include "preload/base/fxtp.h"
#include "writer/records.h"

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

/* Takes FXT_LOG and FXT_LOG_EVENTS (captured only while tracing runs). Fails: never. Not
 * thread-safe (constructor). */
void fxtp_log_init(void);

#endif
