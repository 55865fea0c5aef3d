/* Arrays that grow by doubling, shared by the launcher's lists (providers, connections) and
 * anything else that appends one element at a time: room for element n is made by one
 * realloc() when the array is full, the capacity doubling from a first one the caller picks.
 * Header-only, no state; thread-safe (as realloc). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_ARRAY_H
#define FXT_COMMON_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/* The array items of *cap elements of size bytes, with room for element n (n <= *cap):
 * items itself when n < *cap, else items moved to twice *cap (first when 0) and *cap updated.
 * Fails: NULL (ENOMEM; items and *cap as they were). */
static inline void *fxt_array_room(void *items, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return items;
	size_t grown = *cap ? *cap * 2 : first;
	void *moved = realloc(items, grown * size);
	if (moved)
		*cap = grown;
	return moved;
}

#endif
