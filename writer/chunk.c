/* Chunk writer slow path: taking the next chunk from the buffer (one fetch-add), opening it with
 * the owner's thread record, and counting drops once the buffer is exhausted. Drops are counted
 * per writer and published in batches, so a full buffer does not turn every event into a
 * contended atomic. Async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/chunk.h"

#include <string.h>

void fxt_chunk_init(struct fxt_chunk_w *w, struct fxt_buf *buf, const uint64_t *thread_rec)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	if (thread_rec)
		memcpy(w->thread_rec, thread_rec, sizeof(w->thread_rec));
}

static uint64_t *drop(struct fxt_chunk_w *w)
{
	if (++w->dropped >= FXT_CHUNK_DROP_BATCH)
		fxt_chunk_flush(w);
	return NULL;
}

__attribute__((noinline)) uint64_t *fxt_chunk_refill(struct fxt_chunk_w *w, uint32_t words)
{
	uint32_t opening = w->thread_rec[0] ? 3 : 0;
	if (w->exhausted || !w->buf || 1 + opening + words > w->buf->hdr->chunk_size / 8)
		return drop(w);
	fxt_chunk_close(w);
	uint64_t *c = fxt_buf_chunk_take(w->buf);
	if (!c) {
		/* Oneshot stays exhausted; a policy (circular, streaming) may have chunks later. */
		w->exhausted = !w->buf->policy;
		return drop(w);
	}
	if (w->buf->prepare)
		w->buf->prepare(w->buf, c);
	uint64_t *p = c + 1;
	if (opening) {
		p[1] = w->thread_rec[1];
		p[2] = w->thread_rec[2];
		fxt_chunk_commit(p, w->thread_rec[0]);
		p += 3;
	}
	w->end = c + w->buf->hdr->chunk_size / 8;
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
		pol->release(w->buf, w->end - w->buf->hdr->chunk_size / 8);
	w->p = w->end = NULL;
}
