/* Sampling test program, built without instrumentation: spins about 200 ms of CPU in
 * deep_leaf() at the bottom of a 300-deep recursion, deeper than the sampler keeps (128
 * innermost frames): samples must still be recorded, named, and cut, not dropped. */
/* SPDX-License-Identifier: MIT */
#include <time.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void deep_leaf(void)
{
	double end = cpu_ms() + 200;
	unsigned long x = 1;
	while (cpu_ms() < end)
		for (int i = 0; i < 4096; i++)
			sink = x = x * 6364136223846793005UL + 1;
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth)
		recurse(depth - 1);
	else
		deep_leaf();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	recurse(300);
	return 0;
}
