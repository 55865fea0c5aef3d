/* 300 threads made in waves of 30 (each wave joined before the next: thread indexes are
 * recycled), every thread named "w-NNN": the even ones name themselves first thing, the odd
 * ones are named by their creator right after pthread_create (racing the tracer's setup of
 * the thread, which runs before the start routine) and wait for that before their calls (a
 * thread that has exited cannot be named).
 * Each thread "w-000".."w-299": thread_main 1, step 6, leaf 12 (19 calls: thread_main calls
 * step 6 times, each step calls leaf twice). Main thread: main 1, wave 10 (main -> wave).
 * Prints "s-waves: 300 threads, sum S". */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { NTHREADS = 300, WAVE = 30, STEPS = 6 };

static long leaf(long i)
{
	return i * i;
}

static long step(long i)
{
	return leaf(i) + leaf(i + 1);
}

static sem_t named[NTHREADS];

static __attribute__((no_instrument_function)) void name_of(long i, char name[16])
{
	snprintf(name, 16, "w-%03d", (int)(i % 1000));
}

static void *thread_main(void *arg)
{
	long i = (long)arg, sum = 0;
	if (i % 2 == 0) {
		char name[16];
		name_of(i, name);
		pthread_setname_np(pthread_self(), name);
	} else {
		while (sem_wait(&named[i]) != 0)
			;
	}
	for (long k = 0; k < STEPS; k++)
		sum += step(i + k);
	return (void *)sum;
}

/* Threads first .. first + WAVE - 1, started, named (the odd ones) and joined. */
static long wave(long first, const pthread_attr_t *attr)
{
	pthread_t t[WAVE];
	long sum = 0;
	for (long i = 0; i < WAVE; i++) {
		long n = first + i;
		if (pthread_create(&t[i], attr, thread_main, (void *)n) != 0) {
			perror("pthread_create");
			return -1;
		}
		if (n % 2 == 1) {
			char name[16];
			name_of(n, name);
			int rc = pthread_setname_np(t[i], name);
			if (rc != 0) {
				fprintf(stderr, "pthread_setname_np %s: error %d\n", name, rc);
				return -1;
			}
			sem_post(&named[n]);
		}
	}
	for (long i = 0; i < WAVE; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		sum += (long)ret;
	}
	return sum;
}

int main(void)
{
	pthread_attr_t attr;
	long sum = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (long i = 0; i < NTHREADS; i++)
		sem_init(&named[i], 0, 0);
	for (long first = 0; first < NTHREADS; first += WAVE) {
		long s = wave(first, &attr);
		if (s < 0)
			return 1;
		sum += s;
	}
	printf("s-waves: %d threads, sum %ld\n", NTHREADS, sum);
	return 0;
}
