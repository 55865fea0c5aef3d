/* Reader internals shared by reader.c (record loop) and tables.c (per-provider string and
 * thread tables, provider lookup, UTF-8 check). Tables are allocated lazily, a page of strings
 * or the thread table at their first registration, so memory follows what an archive
 * registers, not the number of providers it names. Not installed; one reader per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_READER_INTERNAL_H
#define FXT_READER_INTERNAL_H

#include "fxt/reader.h"
#include "reader/cursor.h"
#include "writer/fields.h"

#define FXT_STRPAGE_BITS 8u /* 256 string slots per page */
#define FXT_STRPAGE_SIZE (1u << FXT_STRPAGE_BITS)
#define FXT_STRPAGES ((FXT_STRING_MAX_INDEX + 1) >> FXT_STRPAGE_BITS)

struct fxt_threads {
	struct fxt_koids koids[FXT_THREAD_MAX_INDEX + 1];
	uint8_t set[FXT_THREAD_MAX_INDEX + 1];
};

/* The tables of one provider
 * (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-references,
 * #thread-references). */
struct fxt_provider {
	uint32_t id;
	struct fxt_sv name;
	uint64_t ticks_per_second;	/* 0 until an initialization record */
	struct fxt_clock clock;		/* its latest clock record, if has_clock */
	int has_clock;
	struct fxt_sv **strpages;	/* NULL, or FXT_STRPAGES pages (NULL: none registered) */
	struct fxt_threads *threads;	/* NULL until a thread record */
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
	const uint64_t *kept;	/* where the last drop was: every mapped page before it
				 * was given back then (MADV_DONTNEED) */
	void *owned;		/* input read from a pipe (malloc'd), or NULL */
	struct fxt_provider *cur;
	struct fxt_provider **providers;	/* open addressing on id; capacity a power of 2 */
	size_t nproviders, capproviders;
	struct fxt_read_error err;
	struct fxt_reader_stats stats;
};

/* Makes provider id current, creating it on first sight. reset: a provider info record starts
 * the provider afresh (its tables and tick rate are dropped). Returns 0 or -ENOMEM. */
int fxt_provider_switch(struct fxt_reader *r, uint32_t id, int reset);
void fxt_providers_free(struct fxt_reader *r);

/* Registers string index idx (in [1,32767]) / thread index idx (in [1,255]) of the current
 * provider. Returns 0 or -ENOMEM. */
int fxt_string_set(struct fxt_reader *r, unsigned idx, struct fxt_sv s);
int fxt_thread_set(struct fxt_reader *r, unsigned idx, struct fxt_koids k);

/* The registered string of index idx (in [1,32767]) of the current provider, or NULL. */
static inline const struct fxt_sv *fxt_string_get(const struct fxt_reader *r, unsigned idx)
{
	struct fxt_sv **pages = r->cur->strpages, *page;
	if (!pages || !(page = pages[idx >> FXT_STRPAGE_BITS]))
		return NULL;
	const struct fxt_sv *s = &page[idx & (FXT_STRPAGE_SIZE - 1)];
	return s->s ? s : NULL;
}

/* The registered koids of thread index idx (in [1,255]) of the current provider, or NULL. */
static inline const struct fxt_koids *fxt_thread_get(const struct fxt_reader *r, unsigned idx)
{
	const struct fxt_threads *t = r->cur->threads;
	return t && t->set[idx] ? &t->koids[idx] : NULL;
}

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, surrogates or code points > 10FFFF). */
int fxt_utf8_valid(const char *s, uint32_t len);

#endif
