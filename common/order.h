/* Three-way comparison of numbers, the step every qsort comparator of the tools takes key after
 * key: fxt_cmp_u64(x, y) is -1, 0 or 1 as x is below, equal to or above y (descending order:
 * swap the arguments). Header-only, no state. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_ORDER_H
#define FXT_COMMON_ORDER_H

#include <stdint.h>

/* Fails: never. */
static inline int fxt_cmp_u64(uint64_t x, uint64_t y)
{
	return (x > y) - (x < y);
}

#endif
