/* Workload of bench/sampling.sh: a fixed amount of arithmetic (argument: rounds, default 400)
 * done at the bottom of a 24-deep recursion, so each sample unwinds a realistic stack. Built
 * without instrumentation, with -fno-omit-frame-pointer off (as distributions build). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void leaf(void)
{
	unsigned long x = sink;
	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static __attribute__((noinline)) void descend(int depth)
{
	if (depth)
		descend(depth - 1);
	else
		leaf();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	for (int i = 0; i < rounds; i++)
		descend(24);
	return 0;
}
