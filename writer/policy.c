/* The chunk policies of a managed buffer (writer/policy.h): claiming a chunk (busy, cleared,
 * numbered), oneshot, circular and streaming takes, and the release that marks a chunk left
 * (with the wrap it was left at, for streaming). Word 0 of a chunk: writer/buffer.h. */
/* SPDX-License-Identifier: MIT */
#include "writer/policy.h"

#include <errno.h>
#include <string.h>

static uint64_t *chunk_at(struct fxt_buf *b, uint64_t idx)
{
	return (uint64_t *)(b->base + b->hdr->chunks_off + idx * b->hdr->chunk_size);
}

static const struct fxt_policy_ops *ops(const struct fxt_buf *b)
{
	return ((const struct fxt_policy_state *)b->ctx)->ops;
}

/* Claims chunk c whose word 0 was `old`: a chunk never handed out is backed first; marks it busy,
 * clears the previous writer's records, then publishes the new sequence number.
 * 1 done, 0 another taker won it, -1 the file system refused it. */
static int claim(struct fxt_buf *b, uint64_t *c, uint64_t old)
{
	uint64_t end = (uint64_t)((uint8_t *)c - b->base) + b->hdr->chunk_size;
	int err = old ? 0 : ops(b)->back(b, end);
	if (err < 0) {
		fxt_buf_refused(b, err);
		return -1;
	}
	if (!__atomic_compare_exchange_n(&c[0], &old, FXT_CHUNK_BUSY, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;
	if (old)
		memset(c + 1, 0, b->hdr->chunk_size - 8);
	uint64_t seq = atomic_fetch_add_explicit(&b->hdr->next_chunk, 1, memory_order_relaxed);
	__atomic_store_n(&c[0], (seq + 1) & FXT_CHUNK_SEQ_MASK, __ATOMIC_RELEASE);
	return 1;
}

/* Oneshot: chunks in order until they run out. */
static uint64_t *oneshot_take(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t seq = atomic_fetch_add_explicit(&h->next_chunk, 1, memory_order_relaxed);
	if (seq >= h->nchunks) {
		fxt_buf_drop_reason(b, FXT_DROP_FULL);
		return NULL;
	}
	uint64_t *c = chunk_at(b, seq);
	int err = ops(b)->back(b, (uint64_t)((uint8_t *)c - b->base) + h->chunk_size);
	if (err < 0) {
		fxt_buf_refused(b, err);
		return NULL;
	}
	__atomic_store_n(&c[0], seq + 1, __ATOMIC_RELEASE);
	return c;
}

/* Circular: the next chunk in ring order that its writer left (or never taken). */
static uint64_t *circular_take(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	struct fxt_policy_state *st = b->ctx;
	for (uint32_t i = 0; i < h->nchunks; i++) {
		uint64_t at = atomic_fetch_add_explicit(&st->cursor, 1, memory_order_relaxed);
		if (at && at % h->nchunks == 0)
			atomic_fetch_add_explicit(&h->wraps, 1, memory_order_relaxed);
		uint64_t *c = chunk_at(b, at % h->nchunks);
		uint64_t old = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
		if (old && !(old & FXT_CHUNK_CLOSED))
			continue;	/* a writer still owns it */
		int rc = claim(b, c, old);
		if (rc)
			return rc > 0 ? c : NULL;
	}
	return NULL;
}

/* Streaming: chunks of the current half in order; when it is full, switch to the other half
 * once the manager saved it (and ask for the full one to be saved). Until then the ops wait
 * (back-pressure) or say to drop. */
static uint64_t *streaming_take(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	struct fxt_policy_state *st = b->ctx;
	uint32_t half = h->nchunks / 2;
	for (;;) {
		uint64_t r = atomic_load(&st->roll);
		uint32_t w = (uint32_t)(r >> 32), k = (uint32_t)r;
		if (k < half) {
			if (!atomic_compare_exchange_weak(&st->roll, &r, r + 1))
				continue;
			uint64_t *c = chunk_at(b, (uint64_t)(w & 1) * half + k);
			uint64_t old = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
			/* Reusable once left at wrap <= w - 2: the save of that wrap (acknowledged
			 * before this half came back) read everything its writer wrote. A chunk left
			 * at a wrap after w is not: this taker was held up between its slot and here
			 * while the halves went round, and another writer has since filled the chunk
			 * (its save may not even be asked for yet). */
			uint64_t age = (w - (old >> FXT_CHUNK_WRAP_SHIFT)) & FXT_CHUNK_WRAP_MASK;
			if (old && (!(old & FXT_CHUNK_CLOSED) || age < 2 ||
				    age > FXT_CHUNK_WRAP_MASK / 2))
				continue;
			int rc = claim(b, c, old);
			if (rc > 0)
				return c;
			if (rc < 0)
				return NULL;
			continue;
		}
		/* The half is used up: the other one must be saved (acknowledged) first. An
		 * acknowledgement is looked for at every try: one that came is seen at once. */
		if (st->ops->acked(b) < w && !st->ops->wait(b, w))
			return NULL;
		if (atomic_compare_exchange_strong(&st->roll, &r, (uint64_t)(w + 1) << 32)) {
			atomic_fetch_add_explicit(&h->wraps, 1, memory_order_relaxed);
			st->ops->request_save(b, w, atomic_load_explicit(&h->durable_used,
									 memory_order_relaxed));
		}
	}
}

/* A writer leaves chunk c: closed bit, and (streaming) the wrap count read after its last
 * record, so the save of that wrap is known to hold all of them. */
static void release(struct fxt_buf *b, uint64_t *c, const uint64_t *end)
{
	(void)end;
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t w = fxt_policy_wrap(b);
	uint64_t v = __atomic_load_n(&c[0], __ATOMIC_RELAXED) & FXT_CHUNK_SEQ_MASK;
	v |= FXT_CHUNK_CLOSED | (w & FXT_CHUNK_WRAP_MASK) << FXT_CHUNK_WRAP_SHIFT;
	__atomic_store_n(&c[0], v, __ATOMIC_SEQ_CST);
}

static const struct fxt_buf_policy oneshot_policy = { oneshot_take, NULL };
static const struct fxt_buf_policy circular_policy = { circular_take, release };
static const struct fxt_buf_policy streaming_policy = { streaming_take, release };

uint32_t fxt_policy_wrap(const struct fxt_buf *b)
{
	const struct fxt_policy_state *st = b->ctx;
	return (uint32_t)(atomic_load(&((struct fxt_policy_state *)st)->roll) >> 32);
}

int fxt_policy_install(struct fxt_buf *b, struct fxt_policy_state *st,
		       const struct fxt_policy_ops *ops)
{
	memset(st, 0, sizeof(*st));
	st->ops = ops;
	switch (b->hdr->mode) {
	case FXT_BUF_ONESHOT:
		b->policy = &oneshot_policy;
		break;
	case FXT_BUF_CIRCULAR:
		b->policy = &circular_policy;
		break;
	case FXT_BUF_STREAMING:
		b->policy = &streaming_policy;
		break;
	default:
		return -EINVAL;
	}
	b->ctx = st;
	return 0;
}
