/* Growing a malloc'd array by doubling: the one way the libraries and tools make room for one
 * more element (or for need of them). Capacity starts at 16 elements and doubles until it holds
 * need; sizes that would overflow size_t fail as -ENOMEM, leaving the array and *cap as they
 * were. Header-only, no state; not for the preload's hot paths (it calls realloc). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_GROW_H
#define FXT_COMMON_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity fxt_grow() makes from cap for need elements: cap when it holds need, else the
 * first doubling of cap (16 if 0) that does; 0 when that would overflow size_t. Also for
 * callers that foresee what growing will cost (a memory budget). */
static inline size_t fxt_grow_cap(size_t cap, size_t need)
{
	size_t n = cap ? cap : 16;

	if (need <= cap)
		return cap;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	return n;
}

/* Grows the array whose pointer is at parr (of *cap elements of elem bytes) to hold need
 * elements. parr is the address of any object pointer (read and written by memcpy, so any
 * pointer type may be passed without breaking aliasing rules): FXT_GROW() below passes it
 * type-checked. Returns 0 (also when *cap already holds need) or -ENOMEM (realloc failed or the
 * size overflows; nothing changed). Thread-safety: the caller's. */
static inline int fxt_grow(void *parr, size_t *cap, size_t need, size_t elem)
{
	size_t n = fxt_grow_cap(*cap, need);

	if (n == *cap)
		return 0;
	if (!n || (elem && n > SIZE_MAX / elem))
		return -ENOMEM;
	void *old, *q;
	memcpy(&old, parr, sizeof(old));
	if (!(q = realloc(old, n * elem)))
		return -ENOMEM;
	memcpy(parr, &q, sizeof(q));
	*cap = n;
	return 0;
}

/* fxt_grow() of the pointer lvalue arr (elements of sizeof(*arr) bytes), cap a size_t *. */
#define FXT_GROW(arr, cap, need) fxt_grow(&(arr), (cap), (need), sizeof(*(arr)))

#endif
