/* The -finstrument-functions figure bench/api.sh prints beside TRACE_DURATION: built with
 * -finstrument-functions, N calls of an instrumented function and of the same function marked
 * no_instrument_function, best of REPS runs. Prints "plain=<ns> instrumented=<ns>" per call.
 * Usage: api-cyg N REPS */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINST __attribute__((no_instrument_function))

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

static NOINST double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static NOINST double per_call(int (*fn)(int), long n, int reps)
{
	double best = 1e30;
	volatile int sink = 0;

	for (int r = 0; r < reps; r++) {
		double t0 = now_ns();
		int x = 0;
		for (long i = 0; i < n; i++)
			x = fn(x);
		double t = (now_ns() - t0) / (double)n;
		sink += x;
		if (t < best)
			best = t;
	}
	(void)sink;
	return best;
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
