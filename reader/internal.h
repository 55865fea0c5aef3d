/* Reader internals shared by reader.c (record loop) and tables.c (per-provider string and
 * thread tables, UTF-8 check, tick conversion). Not installed; one reader per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_READER_INTERNAL_H
#define FXT_READER_INTERNAL_H

#include "fxt/reader.h"
#include "reader/cursor.h"
#include "writer/fields.h"

/* The tables of one provider (trace-format.md#string-references, #thread-references). */
struct fxt_provider {
	uint32_t id;
	struct fxt_sv name;
	uint64_t ticks_per_second;		/* 0 until an initialization record */
	struct fxt_sv strings[FXT_STRING_MAX_INDEX + 1]; /* .s == NULL: never registered */
	struct fxt_koids threads[FXT_THREAD_MAX_INDEX + 1];
	uint8_t thread_set[FXT_THREAD_MAX_INDEX + 1];
};

struct fxt_reader {
	const void *base;
	const uint64_t *pos, *end;
	unsigned tail_bytes;	/* len % 8: a torn last word */
	unsigned flags;
	int state;		/* FXT_READ_RECORD while more may come, else the final result */
	uint64_t rec_offset;	/* offset of the record being decoded */
	void *map;
	size_t map_len;
	struct fxt_provider *cur;
	struct fxt_provider **providers;
	size_t nproviders;
	struct fxt_read_error err;
	struct fxt_reader_stats stats;
};

/* Records an error message at the current record's offset; returns -1. */
int fxt_fail(struct fxt_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Makes provider id current, creating its tables on first sight. reset: a provider info
 * record starts the provider afresh (its tables are cleared). Returns 0 or -ENOMEM. */
int fxt_provider_switch(struct fxt_reader *r, uint32_t id, int reset);
void fxt_providers_free(struct fxt_reader *r);

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, surrogates or code points > 10FFFF). */
int fxt_utf8_valid(const char *s, uint32_t len);

#endif
