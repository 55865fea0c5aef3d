/* The -finstrument-functions figure bench/api.sh prints beside TRACE_DURATION: built with
 * -finstrument-functions, N calls of an instrumented function and of the same function marked
 * no_instrument_function, best of REPS runs. Prints "plain=<ns> instrumented=<ns>" per call.
 * Usage: api-cyg N REPS */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "per-call.h"

static __attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

static NOINST __attribute__((noinline)) int leaf_plain(int x)
{
	__asm__ volatile("");
	return x + 1;
}

NOINST int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int reps = argc > 2 ? atoi(argv[2]) : 3;

	if (n <= 0 || reps <= 0) {
		fprintf(stderr, "usage: api-cyg N REPS\n");
		return 2;
	}
	printf("plain=%.2f instrumented=%.2f\n", per_call(leaf_plain, n, reps),
	       per_call(leaf, n, reps));
	return 0;
}
