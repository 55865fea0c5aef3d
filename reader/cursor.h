/* Bounds-checked word cursor over a record: every read either stays inside [p, end) or fails
 * (returns 0 and leaves the cursor unchanged), so no byte sequence can make the reader read out
 * of bounds. Internal to reader/; no state beyond the two pointers; thread-compatible. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_READER_CURSOR_H
#define FXT_READER_CURSOR_H

#include <stdint.h>
#include <stddef.h>

struct fxt_cursor {
	const uint64_t *p;
	const uint64_t *end;
};

static inline size_t fxt_cursor_left(const struct fxt_cursor *c)
{
	return (size_t)(c->end - c->p);
}

/* Reads one word; 0 when none is left. */
static inline int fxt_cursor_u64(struct fxt_cursor *c, uint64_t *out)
{
	if (c->p >= c->end)
		return 0;
	*out = *c->p++;
	return 1;
}

/* Takes a stream of n bytes padded to 8; 0 when it does not fit. */
static inline int fxt_cursor_bytes(struct fxt_cursor *c, uint64_t n, const char **out)
{
	uint64_t words = n / 8 + (n % 8 != 0); /* (n + 7) / 8 wraps for n near 2^64 */
	if (words > fxt_cursor_left(c))
		return 0;
	*out = (const char *)c->p;
	c->p += words;
	return 1;
}

/* Splits off the next n words as a sub-cursor; 0 when they do not fit. */
static inline int fxt_cursor_sub(struct fxt_cursor *c, uint64_t n, struct fxt_cursor *sub)
{
	if (n > fxt_cursor_left(c))
		return 0;
	sub->p = c->p;
	sub->end = c->p + n;
	c->p += n;
	return 1;
}

#endif
