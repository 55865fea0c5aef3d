/* String interning table: FNV-1a hashes in an open-addressing bucket array (linear probing,
 * backward-shift deletion, so no tombstones pile up as slots recycle) over 32767 indexed slots.
 * Invariant: every used slot is in exactly one bucket, reachable from its hash's home bucket
 * without crossing an empty bucket. No malloc; not thread-safe (caller's lock). */
/* SPDX-License-Identifier: MIT */
#include "writer/strtab.h"

#include <errno.h>
#include <string.h>

#include "writer/records.h"

#define MASK (FXT_STRTAB_BUCKETS - 1)

static uint64_t hash_of(const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static int same(const struct fxt_strtab_ent *e, uint64_t h, const char *s, uint32_t len)
{
	return e->hash == h && e->len == len && memcmp(e->s, s, len) == 0;
}

/* CLOCK victim among slots 1..n: the first slot at or after *hand whose ref bit is clear,
 * clearing the bits it passes; advances *hand past it. Ends within n + 1 steps. */
static uint32_t clock_victim(uint8_t *ref, uint32_t n, uint32_t *hand)
{
	for (;;) {
		uint32_t i = *hand;
		*hand = i % n + 1;
		if (!ref[i])
			return i;
		ref[i] = 0;
	}
}

void fxt_strtab_init(struct fxt_strtab *t)
{
	memset(t, 0, sizeof(*t));
	t->hand = 1;
}

/* Bucket holding s, or the empty bucket where it would go. */
static uint32_t probe(const struct fxt_strtab *t, uint64_t h, const char *s, uint32_t len)
{
	uint32_t b = (uint32_t)h & MASK;
	while (t->bucket[b] && !same(&t->ent[t->bucket[b]], h, s, len))
		b = (b + 1) & MASK;
	return b;
}

/* Removes slot idx from the buckets, shifting later members of its probe run back. */
static void unlink_slot(struct fxt_strtab *t, uint32_t idx)
{
	const struct fxt_strtab_ent *e = &t->ent[idx];
	uint32_t i = probe(t, e->hash, e->s, e->len);
	for (uint32_t j = i;;) {
		j = (j + 1) & MASK;
		if (!t->bucket[j])
			break;
		uint32_t home = (uint32_t)t->ent[t->bucket[j]].hash & MASK;
		/* The entry at j may move to i only if its home is not cyclically in (i, j]. */
		int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays) {
			t->bucket[i] = t->bucket[j];
			i = j;
		}
	}
	t->bucket[i] = 0;
}

int fxt_strtab_find(const struct fxt_strtab *t, const char *s, uint32_t len)
{
	if (!s || !len)
		return 0;
	len = fxt_utf8_cut(s, len, FXT_STRING_MAX_LEN);
	return t->bucket[probe(t, hash_of(s, len), s, len)];
}

int fxt_strtab_intern(struct fxt_strtab *t, const char *s, uint32_t len, int *fresh)
{
	*fresh = 0;
	if (!len)
		return 0;
	if (!s)
		return -EINVAL;
	len = fxt_utf8_cut(s, len, FXT_STRING_MAX_LEN);
	uint64_t h = hash_of(s, len);
	uint32_t b = probe(t, h, s, len);
	if (t->bucket[b]) {
		t->ref[t->bucket[b]] = 1;
		return t->bucket[b];
	}
	uint32_t idx;
	if (t->used < FXT_STRTAB_SLOTS) {
		idx = ++t->used;
	} else {
		idx = clock_victim(t->ref, FXT_STRTAB_SLOTS, &t->hand);
		unlink_slot(t, idx);
		t->recycled++;
		b = probe(t, h, s, len); /* the shift may have moved the empty bucket */
	}
	t->ent[idx] = (struct fxt_strtab_ent){ .hash = h, .s = s, .len = len };
	t->ref[idx] = 1; /* the hand must pass it twice: the next intern never recycles it */
	t->bucket[b] = (uint16_t)idx;
	*fresh = 1;
	return (int)idx;
}

const char *fxt_strtab_str(const struct fxt_strtab *t, uint32_t index, uint32_t *len)
{
	if (!index || index > t->used)
		return NULL;
	*len = t->ent[index].len;
	return t->ent[index].s;
}
