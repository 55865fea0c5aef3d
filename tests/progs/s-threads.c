/* 300 threads alive at once, each naming itself "t-NNN": more threads than the 255 thread
 * refs of the format, so later ones must still be named and their events placed right.
 * Each thread "t-000".."t-299": thread_main 1, work 1, leaf 1. Main thread: main 1. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

enum { NTHREADS = 300 };

static pthread_barrier_t all_up;

static long leaf(long i)
{
	return i * i;
}

static long work(long i)
{
	return leaf(i) + 1;
}

static void *thread_main(void *arg)
{
	char name[16];
	long i = (long)arg;
	snprintf(name, sizeof(name), "t-%03ld", i);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&all_up);	/* every thread exists before any work is done */
	return (void *)work(i);
}

int main(void)
{
	pthread_t t[NTHREADS];
	pthread_attr_t attr;
	long sum = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_barrier_init(&all_up, NULL, NTHREADS);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], &attr, thread_main, (void *)i);
	for (int i = 0; i < NTHREADS; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		sum += (long)ret;
	}
	printf("s-threads: %d threads, sum %ld\n", NTHREADS, sum);
	return 0;
}
