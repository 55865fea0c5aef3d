/* Archive assembly: walks the durable area and the chunks of a buffer and passes each valid run
 * of records to the caller's emit function, framed by the metadata and initialization records
 * that make it a complete single-provider FXT archive. No I/O, no malloc: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/archive.h"

#include <errno.h>
#include <string.h>

#include "writer/fields.h"
#include "writer/records.h"

/* Words of the committed record at p[0] (at most `room`), or 0 when there is none. */
static uint64_t record_words(const uint64_t *p, size_t room)
{
	uint64_t n = fxt_record_words(__atomic_load_n(p, __ATOMIC_ACQUIRE));
	return n <= room ? n : 0;
}

size_t fxt_archive_valid_prefix(const uint64_t *p, size_t words)
{
	size_t at = 0;
	for (uint64_t n; at < words && (n = record_words(p + at, words - at)); at += n)
		;
	return at * 8;
}

int fxt_archive_after(const uint64_t *p, uint64_t n, uint64_t cutoff)
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
		if (!cutoff || !fxt_archive_after(p + at, n, cutoff))
			continue;
		if (at > run && (rc = emit(ctx, p + run, (at - run) * 8)) < 0)
			return rc;
		run = at + n;
	}
	if (at > run && (rc = emit(ctx, p + run, (at - run) * 8)) < 0)
		return rc;
	return 0;
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

/* Emits the n words a records.h writer just built in rec (n < 0: its error). */
static int emit_built(fxt_archive_emit_fn emit, void *ctx, const uint64_t *rec, int n)
{
	return n < 0 ? n : emit(ctx, rec, (size_t)n * 8);
}

int fxt_archive_write(const struct fxt_buf *b, const struct fxt_archive_info *info,
		      fxt_archive_emit_fn emit, void *ctx)
{
	if (!b || !b->hdr || !info || !emit)
		return -EINVAL;
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t rec[1 + 32];	/* the largest: provider info with a 255-byte name */
	int rc;

	if (info->with_magic && (rc = emit_built(emit, ctx, rec, fxt_magic_write(rec))) < 0)
		return rc;
	const char *name = info->provider_name ? info->provider_name : "";
	uint32_t len = (uint32_t)strnlen(name, FXT_FIELD_MAX(FXT_META_NAME_LEN));
	if ((rc = emit_built(emit, ctx, rec,
			     fxt_provider_info_write(rec, info->provider_id, name, len))) < 0 ||
	    (rc = emit_built(emit, ctx, rec, fxt_provider_section_write(rec, info->provider_id))) < 0)
		return rc;
	uint64_t tps = info->ticks_per_second ? info->ticks_per_second : h->ticks_per_second;
	if ((rc = emit_built(emit, ctx, rec, fxt_init_write(rec, tps ? tps : 1000000000ULL))) < 0)
		return rc;

	uint64_t used = atomic_load_explicit(&((struct fxt_buf_hdr *)h)->durable_used,
					     memory_order_acquire);
	if (used > h->durable_size)
		used = h->durable_size;
	if ((rc = fxt_archive_emit_records(fxt_buf_durable(b), used / 8, 0, emit, ctx)) < 0)
		return rc;

	if ((rc = emit_chunks(b, emit, ctx)) < 0)
		return rc;

	if (atomic_load_explicit(&((struct fxt_buf_hdr *)h)->dropped, memory_order_relaxed) &&
	    (rc = emit_built(emit, ctx, rec, fxt_provider_event_write(rec, info->provider_id,
								       FXT_PE_BUFFER_OVERFLOW))) < 0)
		return rc;
	return 0;
}
