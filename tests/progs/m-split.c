/* Sampling test program, built without instrumentation: spends 70% of its CPU time in
 * work_seventy() and 30% in work_thirty(), interleaved in 10 ms slices, for about 0.6 s of
 * CPU (argument: total milliseconds). The split is measured with the thread's CPU clock, so
 * it holds whatever the machine's speed. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

/* Spins on arithmetic for ms milliseconds of CPU (the clock is read every 4096 steps). */
static __attribute__((noinline)) void spin(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long x = sink;
	do {
		for (int i = 0; i < 4096; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		sink = x;
	} while (cpu_ms() < end);
}

__attribute__((noinline)) void work_seventy(double ms)
{
	spin(ms);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void work_thirty(double ms)
{
	spin(ms);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double total = argc > 1 ? atof(argv[1]) : 600;
	for (double done = 0; done < total; done += 10) {
		work_seventy(7);
		work_thirty(3);
	}
	return 0;
}
