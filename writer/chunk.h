/* Per-thread chunk writer: the hot path of every event. A thread owns its current chunk alone,
 * so reserving is a pointer bump with no atomics; only taking the next chunk (fxt_chunk_refill,
 * out of line) touches shared state, with one fetch-add. Records become visible through
 * fxt_chunk_commit(): header word last, release store. A writer is used by one thread (or by a
 * signal handler of that thread while the thread's own writer is not mid-record).
 * No malloc, no syscalls, no locks: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_CHUNK_H
#define FXT_WRITER_CHUNK_H

#include <stdint.h>

#include "writer/buffer.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* Drops kept per writer before they are added to the buffer's shared counter, once the writer
 * is exhausted (it never takes a chunk again: each record is then a drop and nothing else).
 * Other drops follow a failed take, which costs far more than the atomic add: they are added
 * at once, so the count in the buffer is exact even after a SIGKILL. */
#define FXT_CHUNK_DROP_BATCH 1024u

struct fxt_chunk_w {
	uint64_t *p, *end;	/* free words of the current chunk: [p, end); NULL before the first */
	struct fxt_buf *buf;
	uint64_t thread_rec[3];	/* thread record opening every chunk; thread_rec[0] == 0: none */
	uint64_t dropped;	/* drops not yet added to buf->hdr->dropped */
	int exhausted;		/* the buffer gave no chunk: every later record is a drop */
	uint8_t thread_index;	/* the writer's thread ref for its stall slices (0: none) */
};

/* Starts a writer on buf; thread_rec (3 words: a complete thread record) opens each chunk it
 * takes, or NULL for none. No chunk is taken until the first reservation.
 * Fails: never. Not thread-safe with respect to w. */
void fxt_chunk_init(struct fxt_chunk_w *w, struct fxt_buf *buf, const uint64_t *thread_rec);

/* Slow path of fxt_chunk_reserve(): takes the next chunk, or counts a drop.
 * Fails: NULL (buffer exhausted, or a record larger than a chunk). Not thread-safe w.r.t. w. */
uint64_t *fxt_chunk_refill(struct fxt_chunk_w *w, uint32_t words);

/* Reserves `words` words (header included) in the current chunk and returns the record's first
 * word; the caller writes words 1.. and then fxt_chunk_commit(). No space: NULL, and one drop
 * counted. Fails: NULL as said. Not thread-safe with respect to w. */
/* Whether `words` words fit in the current chunk (then fxt_chunk_reserve() cannot fail). */
static inline int fxt_chunk_fits(const struct fxt_chunk_w *w, uint32_t words)
{
	return (uintptr_t)w->end - (uintptr_t)w->p >= (uintptr_t)words * 8;
}

static inline uint64_t *fxt_chunk_reserve(struct fxt_chunk_w *w, uint32_t words)
{
	uint64_t *p = w->p;
	if (likely(fxt_chunk_fits(w, words))) {
		w->p = p + words;
		return p;
	}
	return fxt_chunk_refill(w, words);
}

/* Makes sure `words` words fit in the current chunk without reserving them: a caller that must
 * not be held up between two steps (a claim, then its record) takes the next chunk first.
 * Returns 1 if they fit, 0 if no chunk was had (one drop counted). Not thread-safe w.r.t. w. */
static inline int fxt_chunk_ensure(struct fxt_chunk_w *w, uint32_t words)
{
	if (likely(fxt_chunk_fits(w, words)))
		return 1;
	uint64_t *p = fxt_chunk_refill(w, words);
	if (!p)
		return 0;
	w->p = p;	/* the reservation made by the refill is given back */
	return 1;
}

/* Publishes a record written at rec: stores its header word last, with release order, so a
 * reader that sees the header sees the whole record. Fails: never. Async-signal-safe. */
static inline void fxt_chunk_commit(uint64_t *rec, uint64_t header)
{
	__atomic_store_n(rec, header, __ATOMIC_RELEASE);
}

/* Leaves the current chunk (thread exit, or before taking the next one): a policy may reuse it
 * once saved. The next reservation takes a new chunk. Fails: never. Not thread-safe w.r.t. w;
 * async-signal-safe. */
void fxt_chunk_close(struct fxt_chunk_w *w);

/* Adds this writer's pending drops to the buffer's counter (call at thread exit and before an
 * archive is assembled). Fails: never. Not thread-safe with respect to w; async-signal-safe. */
void fxt_chunk_flush(struct fxt_chunk_w *w);

#endif
