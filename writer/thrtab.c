/* Thread table: a linear scan over at most 255 koid pairs (threads register once and cache their
 * index, so this is off the hot path), a last-hit shortcut, exact LRU recycling past 255 (the
 * same scan finds the oldest slot).
 * Invariant: slots 1..used hold distinct pairs. No malloc; not thread-safe (caller's lock). */
/* SPDX-License-Identifier: MIT */
#include "writer/thrtab.h"

#include <string.h>

void fxt_thrtab_init(struct fxt_thrtab *t)
{
	memset(t, 0, sizeof(*t));
}

/* The least recently interned slot (t is full). */
static uint32_t lru_slot(const struct fxt_thrtab *t)
{
	uint32_t v = 1;
	for (uint32_t i = 2; i <= FXT_THRTAB_SLOTS; i++)
		if (t->used_at[i] < t->used_at[v])
			v = i;
	return v;
}

int fxt_thrtab_owns(const struct fxt_thrtab *t, uint32_t index, uint64_t pid, uint64_t tid)
{
	return index && index <= t->used && t->pid[index] == pid && t->tid[index] == tid;
}

int fxt_thrtab_intern(struct fxt_thrtab *t, uint64_t pid, uint64_t tid, int *fresh)
{
	*fresh = 0;
	uint32_t idx = 0;
	if (fxt_thrtab_owns(t, t->last, pid, tid))
		idx = t->last;
	for (uint32_t i = 1; !idx && i <= t->used; i++)
		if (t->pid[i] == pid && t->tid[i] == tid)
			idx = i;
	if (!idx) {
		if (t->used < FXT_THRTAB_SLOTS) {
			idx = ++t->used;
		} else {
			idx = lru_slot(t);
			t->recycled++;
		}
		t->pid[idx] = pid;
		t->tid[idx] = tid;
		*fresh = 1;
	}
	t->used_at[idx] = ++t->tick;
	t->last = idx;
	return (int)idx;
}
