/* Walking the records of a buffer's areas (writer/archive.c): the valid prefix of a run of
 * records, and when a record happened (after a stop time or not). Pure code, no I/O, no malloc:
 * the preload calls it from fatal-signal handlers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_ARCHIVE_H
#define FXT_WRITER_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "writer/buffer.h"

/* When the n-word record at p happened: an event's or log record's timestamp (a duration complete
 * event's end, the later of its two), 0 for other records. Fails: never. Thread-safe. */
uint64_t fxt_archive_stamp(const uint64_t *p, uint64_t n);

/* Whether the n-word record at p happened after cutoff (fxt_archive_stamp() later). Fails:
 * never. Thread-safe. */
int fxt_archive_after(const uint64_t *p, uint64_t n, uint64_t cutoff);

/* Bytes of records at the start of [p, p + words): stops at the first zero header, a record of
 * size 0 or one running past the end. Fails: never (0 for nothing valid). Thread-safe. */
size_t fxt_archive_valid_prefix(const uint64_t *p, size_t words);

#endif
