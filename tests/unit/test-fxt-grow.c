/* Unit test of common/grow.h: fxt_grow() / FXT_GROW() start an empty array at 16 elements, double
 * until need fits, keep what the array held, do nothing when it already holds need, and refuse
 * sizes that overflow size_t with -ENOMEM, leaving the array and its capacity as they were;
 * fxt_grow_cap() says the capacity it would make. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "common/grow.h"

struct pair {
	uint64_t a, b;
};

int main(void)
{
	struct pair *arr = NULL;
	size_t cap = 0;

	ok(FXT_GROW(arr, &cap, 1) == 0 && arr && cap == 16, "an empty array grows to 16 elements");
	for (size_t i = 0; i < 16; i++)
		arr[i] = (struct pair){ i, ~i };
	struct pair *before = arr;
	ok(FXT_GROW(arr, &cap, 16) == 0 && arr == before && cap == 16,
	   "an array that holds need is left alone");
	ok(FXT_GROW(arr, &cap, 17) == 0 && cap == 32, "one more than its room doubles it");
	ok(FXT_GROW(arr, &cap, 100) == 0 && cap == 128, "doubles until need fits (100: 128)");
	int kept = 1;
	for (size_t i = 0; i < 16; i++)
		kept &= arr[i].a == i && arr[i].b == ~i;
	ok(kept, "the elements it held are kept");

	before = arr;
	ok(FXT_GROW(arr, &cap, SIZE_MAX / sizeof(*arr) + 1) == -ENOMEM && arr == before &&
		   cap == 128,
	   "need * elem past SIZE_MAX: -ENOMEM, array and capacity unchanged");
	ok(FXT_GROW(arr, &cap, SIZE_MAX) == -ENOMEM && arr == before && cap == 128,
	   "a capacity that cannot double to need: -ENOMEM, unchanged");
	free(arr);

	unsigned char *bytes = NULL;
	size_t bcap = 0;
	ok(fxt_grow(&bytes, &bcap, 40, 24) == 0 && bcap == 64,
	   "fxt_grow() with an element size known at run time (24 bytes, 40 of them: 64)");
	bytes[64 * 24 - 1] = 1;
	free(bytes);

	ok(fxt_grow_cap(0, 1) == 16 && fxt_grow_cap(0, 1024) == 1024 &&
		   fxt_grow_cap(64, 65) == 128 && fxt_grow_cap(64, 64) == 64,
	   "fxt_grow_cap() foresees the capacity fxt_grow() makes");
	ok(fxt_grow_cap(16, SIZE_MAX) == 0, "fxt_grow_cap() of a size past size_t: 0");
	return done();
}
