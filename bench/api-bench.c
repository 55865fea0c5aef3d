/* Micro-benchmark of <fxt/trace.h>: N calls each of a function holding TRACE_DURATION with 0
 * and with 2 arguments, and of the same function without it (the baseline), best of REPS
 * runs. Prints "base=<ns> d0=<ns> d2=<ns>" (ns per call); bench/api.sh runs it without the
 * tracer, with it, and with the category disabled, and subtracts the baseline.
 * Usage: api-bench N REPS */
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "per-call.h"

static __attribute__((noinline)) int base(int x)
{
	__asm__ volatile("");
	return x + 1;
}

static __attribute__((noinline)) int d0(int x)
{
	TRACE_DURATION("bench", "d0");
	__asm__ volatile("");
	return x + 1;
}

static __attribute__((noinline)) int d2(int x)
{
	TRACE_DURATION("bench", "d2", "x", TA_INT32(x), "twice", TA_UINT64((uint64_t)x * 2));
	__asm__ volatile("");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int reps = argc > 2 ? atoi(argv[2]) : 3;

	if (n <= 0 || reps <= 0) {
		fprintf(stderr, "usage: api-bench N REPS\n");
		return 2;
	}
	printf("base=%.2f d0=%.2f d2=%.2f\n", per_call(base, n, reps), per_call(d0, n, reps),
	       per_call(d2, n, reps));
	return 0;
}
