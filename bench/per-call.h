/* The timing loop of the API micro-benchmarks (api-bench.c, api-cyg.c): the best time per call
 * of a function over runs of many calls. Never instrumented: api-cyg is built with
 * -finstrument-functions and must time only the function it measures. Header-only. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_BENCH_PER_CALL_H
#define FXT_BENCH_PER_CALL_H

#include <time.h>

#define NOINST __attribute__((no_instrument_function))

static NOINST double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Best time per call (ns) of fn over reps runs of n calls. */
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

#endif
