/* The writer contract: reserve / word / bytes / commit. A caller sizes a record first (the
 * *_words() helpers of records.h), reserves that many words of its own memory once, then the
 * encoder appends words and zero-padded byte streams after the header slot and commits the header
 * word LAST with release order: a reader that meets a zero header stops (crash recovery), one
 * that meets a non-zero header sees the whole record. Encoding never knows where bytes go.
 * Header-only; no malloc, no I/O, no locks: async-signal-safe. One fxt_res per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_RESERVE_H
#define FXT_WRITER_RESERVE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A record being written into caller memory: rec[0] is the header slot (must read as zero until
 * fxt_res_commit()), p the next word to write. The caller reserved exactly the words the record's
 * *_words() helper returned; encoders write exactly that many. */
struct fxt_res {
	uint64_t *rec;
	uint64_t *p;
};

/* Starts a record at dst (the reserved words; dst[0] is left alone until commit).
 * Fails: never. Not thread-safe with respect to r. */
static inline void fxt_res_begin(struct fxt_res *r, uint64_t *dst)
{
	r->rec = dst;
	r->p = dst + 1;
}

/* Appends one word. Fails: never. Not thread-safe with respect to r. */
static inline void fxt_res_word(struct fxt_res *r, uint64_t w)
{
	*r->p++ = w;
}

/* Appends a stream of len bytes, zero-padded to the next 8-byte boundary (a multiple of 8 is
 * not padded; len 0 writes nothing). Fails: never. Not thread-safe with respect to r. */
static inline void fxt_res_bytes(struct fxt_res *r, const void *s, size_t len)
{
	size_t nw = (len + 7u) / 8u;
	if (!nw)
		return;
	r->p[nw - 1] = 0;
	memcpy(r->p, s, len);
	r->p += nw;
}

/* Words written so far, header slot included. Fails: never. */
static inline uint32_t fxt_res_words(const struct fxt_res *r)
{
	return (uint32_t)(r->p - r->rec);
}

/* Publishes the record: stores the header word last, with release order, so a reader that loads
 * it with acquire sees every word before it. Fails: never. Async-signal-safe. */
static inline void fxt_res_commit(struct fxt_res *r, uint64_t header)
{
	__atomic_store_n(r->rec, header, __ATOMIC_RELEASE);
}

#endif
