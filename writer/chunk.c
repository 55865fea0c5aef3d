/* Chunk writer slow path: taking the next chunk from the buffer (one fetch-add, or the mode's
 * policy, which may wait), opening it with the owner's thread record and, when taking or
 * preparing it stalled the thread, a duration of category "fxtauto" saying so; counting drops
 * once the buffer gives no chunk. The chunk in use is left only once the next one is had, so a
 * writer that gets none keeps its chunk (the exit flush finds it). Drops are counted per writer
 * and published in batches, so a full buffer does not turn every event into a contended
 * atomic. Async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/chunk.h"

#include <string.h>

#include "writer/fields.h"
#include "writer/records.h"

void fxt_chunk_init(struct fxt_chunk_w *w, struct fxt_buf *buf, const uint64_t *thread_rec)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	if (thread_rec)
		memcpy(w->thread_rec, thread_rec, sizeof(w->thread_rec));
}

static uint64_t *drop(struct fxt_chunk_w *w)
{
	if (++w->dropped >= FXT_CHUNK_DROP_BATCH || !w->exhausted)
		fxt_chunk_flush(w);
	return NULL;
}

/* Writes a tracer stall [t0, t1] of this writer's thread at p (room words free); returns the
 * words used (0 when it does not fit or the writer has no thread index). */
static uint32_t stall(const struct fxt_chunk_w *w, uint64_t *p, size_t room, const char *name,
		      uint64_t t0, uint64_t t1)
{
	unsigned idx = w->thread_index;
	if (!idx)
		return 0;
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx((uint8_t)idx),
					     fxt_str_inl("fxtauto", 7),
					     fxt_str_inl(name, (uint32_t)strlen(name)), t0, t1);
	uint32_t n = fxt_event_words(&e);
	if (n > room)
		return 0;
	uint64_t tmp[8];
	if (n > 8 || fxt_event_write(tmp, &e) < 0)
		return 0;
	memcpy(p + 1, tmp + 1, (n - 1) * 8);
	fxt_chunk_commit(p, tmp[0]);	/* header last, as every record of a chunk */
	return n;
}

__attribute__((noinline)) uint64_t *fxt_chunk_refill(struct fxt_chunk_w *w, uint32_t words)
{
	uint32_t opening = w->thread_rec[0] ? 3 : 0;
	struct fxt_buf *b = w->buf;
	if (w->exhausted || !b)
		return drop(w);
	if (1 + opening + words > b->hdr->chunk_size / 8) {
		fxt_buf_drop_reason(b, FXT_DROP_TOO_BIG);
		return drop(w);
	}
	uint64_t t0 = b->now ? b->now() : 0;
	uint64_t *c = fxt_buf_chunk_take(b);
	if (!c) {
		/* Oneshot and growing stay exhausted (full, or the file system refused); circular
		 * and streaming may have chunks later. The chunk in use stays this writer's. */
		w->exhausted = b->hdr->mode == FXT_BUF_ONESHOT || b->hdr->mode == FXT_BUF_GROWING;
		return drop(w);
	}
	uint64_t t1 = b->now ? b->now() : 0;
	fxt_chunk_close(w);
	if (b->prepare)
		b->prepare(b, c);
	uint64_t t2 = b->now ? b->now() : 0;
	uint64_t *p = c + 1, *end = c + b->hdr->chunk_size / 8;
	if (opening) {
		p[1] = w->thread_rec[1];
		p[2] = w->thread_rec[2];
		fxt_chunk_commit(p, w->thread_rec[0]);
		p += 3;
	}
	/* Room is kept for the record asked for: a stall that does not fit is not written. */
	if (b->now && t1 - t0 > b->stall_ticks)
		p += stall(w, p, (size_t)(end - p) - words, "take chunk", t0, t1);
	if (b->now && t2 - t1 > b->stall_ticks)
		p += stall(w, p, (size_t)(end - p) - words, "prepare chunk", t1, t2);
	w->end = end;
	w->p = p + words;
	return p;
}

void fxt_chunk_flush(struct fxt_chunk_w *w)
{
	if (w->dropped && w->buf)
		fxt_buf_count_drops(w->buf, w->dropped);
	w->dropped = 0;
}

void fxt_chunk_close(struct fxt_chunk_w *w)
{
	const struct fxt_buf_policy *pol = w->buf ? w->buf->policy : NULL;
	if (w->end && pol && pol->release)
		pol->release(w->buf, w->end - w->buf->hdr->chunk_size / 8, w->p);
	w->p = w->end = NULL;
}
