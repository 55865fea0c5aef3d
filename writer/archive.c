/* Archive assembly: walks the durable area and the chunks of a buffer and passes each valid run
 * of records to the caller's emit function, framed by the metadata and initialization records
 * that make it a complete single-provider FXT archive. No I/O, no malloc: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/archive.h"

#include <errno.h>
#include <string.h>

#include "writer/fields.h"

/* Words of the committed record at p[0] (at most `room`), or 0 when there is none. */
static uint64_t record_words(const uint64_t *p, size_t room)
{
	uint64_t h = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	if (!h)
		return 0;
	uint64_t n = fxt_field_get(FXT_RECORD_TYPE, h) == FXT_RT_LARGE
			     ? fxt_field_get(FXT_LARGE_RECORD_SIZE, h)
			     : fxt_field_get(FXT_RECORD_SIZE, h);
	return n <= room ? n : 0;
}

size_t fxt_archive_valid_prefix(const uint64_t *p, size_t words)
{
	size_t at = 0;
	for (uint64_t n; at < words && (n = record_words(p + at, words - at)); at += n)
		;
	return at * 8;
}

/* Whether the n-word record at p happened after cutoff (events and logs only). */
static int after(const uint64_t *p, uint64_t n, uint64_t cutoff)
{
	unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, p[0]);
	if ((type != FXT_RT_EVENT && type != FXT_RT_LOG) || n < 2)
		return 0;
	if (p[1] > cutoff)
		return 1;
	return type == FXT_RT_EVENT && n >= 3 &&
	       fxt_field_get(FXT_EVENT_TYPE, p[0]) == FXT_ET_DURATION_COMPLETE && p[n - 1] > cutoff;
}

int fxt_archive_emit_records(const uint64_t *p, size_t words, uint64_t cutoff,
			     fxt_archive_emit_fn emit, void *ctx)
{
	size_t run = 0, at = 0;
	int rc;
	for (uint64_t n; at < words && (n = record_words(p + at, words - at)); at += n) {
		if (!cutoff || !after(p + at, n, cutoff))
			continue;
		if (at > run && (rc = emit(ctx, p + run, (at - run) * 8)) < 0)
			return rc;
		run = at + n;
	}
	if (at > run && (rc = emit(ctx, p + run, (at - run) * 8)) < 0)
		return rc;
	return 0;
}

/* trace-format.md#metadata-record: provider info (type 1), section (2), event (3). */
static uint64_t meta_hdr(uint64_t words, unsigned meta_type, uint32_t provider_id)
{
	return fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_METADATA) |
	       fxt_field_prep(FXT_RECORD_SIZE, words) | fxt_field_prep(FXT_META_TYPE, meta_type) |
	       fxt_field_prep(FXT_META_PROVIDER_ID, provider_id);
}

static int emit_chunks(const struct fxt_buf *b, fxt_archive_emit_fn emit, void *ctx)
{
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t taken = atomic_load_explicit(&((struct fxt_buf_hdr *)h)->next_chunk,
					      memory_order_acquire);
	if (taken > h->nchunks)
		taken = h->nchunks;
	size_t words = h->chunk_size / 8 - 1;
	for (uint64_t i = 0; i < taken; i++) {
		const uint64_t *c = fxt_buf_chunk(b, (uint32_t)i);
		/* Oneshot: chunk i has sequence i + 1 once its taker stored it. */
		if (__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) != i + 1)
			continue;
		int rc = fxt_archive_emit_records(c + 1, words, h->stop_ticks, emit, ctx);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int fxt_archive_write(const struct fxt_buf *b, const struct fxt_archive_info *info,
		      fxt_archive_emit_fn emit, void *ctx)
{
	if (!b || !b->hdr || !info || !emit)
		return -EINVAL;
	const struct fxt_buf_hdr *h = b->hdr;
	int rc;

	if (info->with_magic) {
		uint64_t magic = FXT_MAGIC_RECORD;
		if ((rc = emit(ctx, &magic, 8)) < 0)
			return rc;
	}

	/* Provider info: header + name stream (at most 255 bytes = 32 words). */
	uint64_t rec[1 + 32];
	const char *name = info->provider_name ? info->provider_name : "";
	size_t len = strnlen(name, FXT_FIELD_MAX(FXT_META_NAME_LEN));
	uint32_t nw = fxt_pad_words((uint32_t)len);
	memset(rec, 0, sizeof(rec));
	rec[0] = meta_hdr(1 + nw, FXT_MT_PROVIDER_INFO, info->provider_id) |
		 fxt_field_prep(FXT_META_NAME_LEN, len);
	memcpy(&rec[1], name, len);
	if ((rc = emit(ctx, rec, (1 + nw) * 8)) < 0)
		return rc;

	rec[0] = meta_hdr(1, FXT_MT_PROVIDER_SECTION, info->provider_id);
	if ((rc = emit(ctx, rec, 8)) < 0)
		return rc;

	/* trace-format.md#initialization-record */
	uint64_t tps = info->ticks_per_second ? info->ticks_per_second : h->ticks_per_second;
	rec[0] = fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_INITIALIZATION) |
		 fxt_field_prep(FXT_RECORD_SIZE, 2);
	rec[1] = tps ? tps : 1000000000ULL;
	if ((rc = emit(ctx, rec, 16)) < 0)
		return rc;

	uint64_t used = atomic_load_explicit(&((struct fxt_buf_hdr *)h)->durable_used,
					     memory_order_acquire);
	if (used > h->durable_size)
		used = h->durable_size;
	if ((rc = fxt_archive_emit_records(fxt_buf_durable(b), used / 8, 0, emit, ctx)) < 0)
		return rc;

	if ((rc = emit_chunks(b, emit, ctx)) < 0)
		return rc;

	if (atomic_load_explicit(&((struct fxt_buf_hdr *)h)->dropped, memory_order_relaxed)) {
		rec[0] = meta_hdr(1, FXT_MT_PROVIDER_EVENT, info->provider_id) |
			 fxt_field_prep(FXT_META_EVENT_ID, FXT_PE_BUFFER_OVERFLOW);
		if ((rc = emit(ctx, rec, 8)) < 0)
			return rc;
	}
	return 0;
}
