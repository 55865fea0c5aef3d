/* Buffer bookkeeping: layout of a fresh mapping, validation of a mapping made elsewhere, and
 * the two lock-free allocators (durable bump, chunk fetch-add). Everything is plain memory
 * arithmetic and atomics: no syscalls, no malloc, async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/buffer.h"

#include <errno.h>
#include <string.h>

int fxt_buf_init(struct fxt_buf *b, void *mem, size_t size, uint64_t durable_size,
		 uint32_t chunk_size, enum fxt_buf_mode mode, uint64_t pid)
{
	return fxt_buf_init_at(b, mem, size, 0, durable_size, chunk_size, mode, pid);
}

int fxt_buf_init_at(struct fxt_buf *b, void *mem, size_t size, uint32_t hdr_off,
		    uint64_t durable_size, uint32_t chunk_size, enum fxt_buf_mode mode,
		    uint64_t pid)
{
	if (!b || !mem || ((uintptr_t)mem & 7) || chunk_size < FXT_BUF_MIN_CHUNK ||
	    (chunk_size & 7) || (hdr_off & 63) ||
	    hdr_off + sizeof(struct fxt_buf_hdr) > FXT_BUF_HDR_SIZE)
		return -EINVAL;
	if (mode > FXT_BUF_GROWING)
		return -EINVAL;	/* circular, streaming and growing also need b->policy */
	durable_size &= ~7ULL;
	if (size < FXT_BUF_HDR_SIZE || durable_size < 64 ||
	    durable_size > size - FXT_BUF_HDR_SIZE)
		return -EINVAL;
	uint64_t rolling = size - FXT_BUF_HDR_SIZE - durable_size;
	uint64_t n = rolling / chunk_size;
	if (n < 2)
		return -EINVAL;
	if (n > UINT32_MAX)
		n = UINT32_MAX;

	struct fxt_buf_hdr *h = (struct fxt_buf_hdr *)((uint8_t *)mem + hdr_off);
	memset(h, 0, sizeof(*h));
	h->hdr_off = hdr_off;
	h->version = FXT_BUF_VERSION;
	h->mode = mode;
	h->size = size;
	h->durable_off = FXT_BUF_HDR_SIZE;
	h->durable_size = durable_size;
	h->chunks_off = FXT_BUF_HDR_SIZE + durable_size;
	h->chunk_size = chunk_size;
	h->nchunks = (uint32_t)n;
	h->pid = pid;
	/* magic last: a manager polling the mapping sees a complete header or none. */
	__atomic_store_n(&h->magic, FXT_BUF_MAGIC, __ATOMIC_RELEASE);
	memset(b, 0, sizeof(*b));
	b->hdr = h;
	b->base = mem;
	return 0;
}

/* Whether header h describes a buffer of the manager's layout inside size bytes. */
static int layout_ok(const struct fxt_buf_hdr *h, size_t size)
{
	return h->size <= size && h->mode <= FXT_BUF_GROWING && !h->hdr_off &&
	       h->durable_off == FXT_BUF_HDR_SIZE && !(h->durable_size & 7) &&
	       h->durable_size <= h->size - FXT_BUF_HDR_SIZE &&
	       h->chunks_off == h->durable_off + h->durable_size &&
	       h->chunk_size >= FXT_BUF_MIN_CHUNK && !(h->chunk_size & 7) &&
	       (uint64_t)h->nchunks * h->chunk_size <= h->size - h->chunks_off;
}

int fxt_buf_attach(struct fxt_buf *b, void *mem, size_t size)
{
	if (!b || !mem || ((uintptr_t)mem & 7) || size < FXT_BUF_HDR_SIZE)
		return -EINVAL;
	const struct fxt_buf_hdr *h = mem;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != FXT_BUF_MAGIC)
		return -EINVAL;	/* a manager attaches to buffers with the header first */
	if (h->version != FXT_BUF_VERSION)
		return -EPROTONOSUPPORT;
	if (!layout_ok(h, size))
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->hdr = mem;
	b->base = mem;
	return 0;
}

int fxt_buf_attach_copy(struct fxt_buf *b, const void *mem, size_t size, struct fxt_buf_hdr *copy)
{
	if (!b || !mem || !copy || ((uintptr_t)mem & 7) || size < FXT_BUF_HDR_SIZE)
		return -EINVAL;
	memcpy(copy, mem, sizeof(*copy));
	atomic_thread_fence(memory_order_acquire);
	if (copy->magic != FXT_BUF_MAGIC)
		return -EINVAL;
	if (copy->version != FXT_BUF_VERSION)
		return -EPROTONOSUPPORT;
	if (!layout_ok(copy, size) || copy->chunk_size > FXT_BUF_MAX_CHUNK)
		return -EBADMSG;	/* a buffer's magic over a layout no writer makes */
	memset(b, 0, sizeof(*b));
	b->hdr = copy;
	b->base = (uint8_t *)(uintptr_t)mem;
	return 0;
}

uint64_t *fxt_buf_durable_reserve(struct fxt_buf *b, uint32_t words)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t n = (uint64_t)words * 8;
	uint64_t at = atomic_fetch_add_explicit(&h->durable_used, n, memory_order_relaxed);
	if (at + n > h->durable_size) {
		/* Leave durable_used past the end: every later reservation fails too, and a
		 * reader bounds its walk by durable_size. */
		atomic_store_explicit(&h->state, FXT_BUF_DURABLE_FULL, memory_order_release);
		fxt_buf_drop_reason(b, FXT_DROP_DURABLE);
		fxt_buf_count_drops(b, 1);
		return NULL;
	}
	int err = b->back_durable ? b->back_durable(b, h->durable_off + at + n) : 0;
	if (err < 0) {
		/* The file system refused: this record is lost (its words stay zero, a hole that
		 * readers stop at or skip), and so is every later one. */
		atomic_store_explicit(&h->durable_used, h->durable_size + 1, memory_order_relaxed);
		fxt_buf_refused(b, err);
		fxt_buf_count_drops(b, 1);
		return NULL;
	}
	return (uint64_t *)(b->base + h->durable_off + at);
}

uint64_t *fxt_buf_chunk_take(struct fxt_buf *b)
{
	if (b->policy)
		return b->policy->take(b);	/* circular / streaming (preload/transport/provider.c) */
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t seq = atomic_fetch_add_explicit(&h->next_chunk, 1, memory_order_relaxed);
	if (seq >= h->nchunks) {
		fxt_buf_drop_reason(b, FXT_DROP_FULL);
		return NULL;	/* oneshot: exhausted */
	}
	uint64_t *c = (uint64_t *)(b->base + h->chunks_off + seq * h->chunk_size);
	__atomic_store_n(&c[0], seq + 1, __ATOMIC_RELEASE);
	return c;
}

void fxt_buf_count_drops(struct fxt_buf *b, uint64_t n)
{
	atomic_fetch_add_explicit(&b->hdr->dropped, n, memory_order_relaxed);
}
