/* Sampling test program, built without instrumentation: forks a child that spins about 200 ms
 * of CPU in child_work() and exits, then waits for it. Prints "child PID" (its archive is
 * FXT_OUTPUT.PID) and "tid-samples PID" for the parent's spin in parent_work(). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static __attribute__((noinline)) void spin(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long x = 1;
	while (cpu_ms() < end)
		for (int i = 0; i < 4096; i++)
			sink = x = x * 6364136223846793005UL + 1;
}

__attribute__((noinline)) void child_work(void)
{
	spin(200);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void parent_work(void)
{
	spin(200);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_work();
		return 0;
	}
	int status;
	waitpid(pid, &status, 0);
	parent_work();
	printf("child %d\ntid-samples %d\n", (int)pid, (int)getpid());
	return 0;
}
