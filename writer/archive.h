/* Archive assembly from one process's trace buffer: the records a reader expects, in order —
 * magic number, provider info and section, initialization record, the durable records, the
 * chunks in sequence order (each up to its first zero or malformed header word), and a provider
 * event "buffer full" when records were dropped. Pure code: bytes leave through a callback,
 * no I/O, no malloc, so the preload may call it from a fatal-signal handler. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_ARCHIVE_H
#define FXT_WRITER_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "writer/buffer.h"

/* Receives the archive in order, one byte range at a time (len is a multiple of 8).
 * Returns 0, or a negative errno that stops the assembly and is returned by it. */
typedef int (*fxt_archive_emit_fn)(void *ctx, const void *data, size_t len);

struct fxt_archive_info {
	int with_magic;			/* emit the magic number record first (once per archive) */
	uint32_t provider_id;		/* token of the provider section */
	const char *provider_name;	/* UTF-8; cut to 255 bytes (the field's limit) */
	uint64_t ticks_per_second;	/* 0: take the buffer header's value (0 there too: 1e9) */
};

/* Emits the valid prefix of [p, p + words) (as fxt_archive_valid_prefix()) in runs, leaving out
 * event and log records stamped after cutoff (0: keep all; a duration complete event counts by
 * its end). Fails: the first negative value of emit. Thread-safe; async-signal-safe if emit is. */
int fxt_archive_emit_records(const uint64_t *p, size_t words, uint64_t cutoff,
			     fxt_archive_emit_fn emit, void *ctx);

/* Whether the n-word record at p happened after cutoff: an event or log record stamped later (a
 * duration complete event counts by its end). Fails: never. Thread-safe. */
int fxt_archive_after(const uint64_t *p, uint64_t n, uint64_t cutoff);

/* Emits the archive of buffer b (records after hdr->stop_ticks left out, as above). Records are read with acquire loads, so a buffer still being
 * written yields a consistent prefix of each area. Words of malformed records are never emitted.
 * Fails: the first negative value returned by emit; -EINVAL for NULL arguments.
 * Thread-safe (reads only); async-signal-safe if emit is. */
int fxt_archive_write(const struct fxt_buf *b, const struct fxt_archive_info *info,
		      fxt_archive_emit_fn emit, void *ctx);

/* Bytes of records at the start of [p, p + words): stops at the first zero header, a record of
 * size 0 or one running past the end. Fails: never (0 for nothing valid). Thread-safe. */
size_t fxt_archive_valid_prefix(const uint64_t *p, size_t words);

#endif
