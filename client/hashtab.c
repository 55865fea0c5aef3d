/* Keyed table of fixed-size entries (client.h): open addressing over an index array, entries
 * kept in insertion order in one growable array so callers can sort or walk them. Keys are two
 * numbers and a string view compared by content. Nothing is allocated until the first entry,
 * so making a table cannot fail; grows by doubling (fxt_grow()'s sizes); never shrinks (a
 * truncated table keeps its room). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

int sv_eq(struct fxt_sv x, struct fxt_sv y)
{
	return x.len == y.len && (x.s == y.s || !memcmp(x.s, y.s, x.len));
}

int sv_cmp(struct fxt_sv x, struct fxt_sv y)
{
	int c = memcmp(x.s, y.s, x.len < y.len ? x.len : y.len);
	return c ? c : fxt_cmp_u64(x.len, y.len);
}

static uint64_t key_hash(const struct ckey *k)
{
	uint64_t h = 1469598103934665603ULL ^ (k->a * 0x9e3779b97f4a7c15ULL) ^
		     (k->b * 0xc2b2ae3d27d4eb4fULL);
	for (uint32_t i = 0; i < k->s.len; i++)
		h = (h ^ (unsigned char)k->s.s[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static int key_eq(const struct ckey *x, const struct ckey *y)
{
	return x->a == y->a && x->b == y->b && sv_eq(x->s, y->s);
}

void ctab_init(struct ctab *t, size_t esize)
{
	memset(t, 0, sizeof(*t));
	t->esize = esize;
}

void ctab_free(struct ctab *t)
{
	free(t->idx);
	free(t->ents);
	memset(t, 0, sizeof(*t));
}

void ctab_free_each(struct ctab *t, void (*drop)(void *entry))
{
	for (uint32_t i = 0; i < t->n; i++)
		drop(ctab_at(t, i));
	ctab_free(t);
}

static uint32_t slot_of(const struct ctab *t, const struct ckey *k)
{
	uint32_t mask = t->cap - 1, s = (uint32_t)key_hash(k) & mask;
	while (t->idx[s] && !key_eq(ctab_at(t, t->idx[s] - 1), k))
		s = (s + 1) & mask;
	return s;
}

/* Makes idx at least slots slots, the entries placed again. Returns 0 or -ENOMEM. */
static int grow(struct ctab *t, size_t slots)
{
	size_t ncap = fxt_grow_cap(t->cap, slots);
	uint32_t *nidx = ncap && ncap <= UINT32_MAX ? calloc(ncap, sizeof(*nidx)) : NULL;
	if (!nidx)
		return -ENOMEM;
	free(t->idx);
	t->idx = nidx;
	t->cap = (uint32_t)ncap;
	for (uint32_t i = 0; i < t->n; i++)
		t->idx[slot_of(t, ctab_at(t, i))] = i + 1;
	return 0;
}

int64_t ctab_get(struct ctab *t, const struct ckey *k, int create)
{
	if (!t->cap && (!create || grow(t, 2) < 0))
		return create ? -2 : -1;
	uint32_t s = slot_of(t, k);
	if (t->idx[s])
		return t->idx[s] - 1;
	if (!create)
		return -1;
	if (fxt_grow(&t->ents, &t->ents_cap, (size_t)t->n + 1, t->esize) < 0)
		return -2;
	memset(ctab_at(t, t->n), 0, t->esize);
	memcpy(ctab_at(t, t->n), k, sizeof(*k));
	t->idx[s] = ++t->n;
	if (t->n * 2 > t->cap && grow(t, (size_t)t->n * 2) < 0)
		return -2;
	return t->n - 1;
}

void *ctab_ids(struct ctab *t, uint64_t a, uint64_t b, int create)
{
	struct ckey k = { a, b, { "", 0 } };
	int64_t i = ctab_get(t, &k, create);
	return i < 0 ? NULL : ctab_at(t, (uint32_t)i);
}

void ctab_truncate(struct ctab *t, uint32_t n)
{
	if (!t->cap)
		return;		/* no entries */
	memset(t->idx, 0, t->cap * sizeof(*t->idx));
	t->n = n < t->n ? n : t->n;
	for (uint32_t i = 0; i < t->n; i++)
		t->idx[slot_of(t, ctab_at(t, i))] = i + 1;
}
