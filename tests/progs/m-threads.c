/* Sampling test program (built plain, and traced): two threads spin on CPU (about 300 ms
 * each) while a third sleeps 400 ms. Prints "tid-samples TID" for each spinner and
 * "tid-none TID" for the sleeper, the claims m-check verifies. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static __attribute__((noinline)) void *spinner(void *arg)
{
	(void)arg;
	double end = cpu_ms() + 300;
	unsigned long x = 1;
	while (cpu_ms() < end)
		for (int i = 0; i < 4096; i++)
			sink = x = x * 6364136223846793005UL + 1;
	printf("tid-samples %d\n", (int)gettid());
	return NULL;
}

static __attribute__((noinline)) void *sleeper(void *arg)
{
	(void)arg;
	printf("tid-none %d\n", (int)gettid());
	fflush(stdout);
	struct timespec ts = { 0, 400000000 };
	while (nanosleep(&ts, &ts))
		;
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, spinner, NULL);
	pthread_create(&t[2], NULL, spinner, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
