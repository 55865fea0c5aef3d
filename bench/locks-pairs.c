/* bench/locks workload: N uncontended lock/unlock pairs of each kind the preload wraps
 * (mutex, rwlock read, rwlock write, semaphore wait/post) on one thread; prints one line per
 * kind, "KIND NS_PER_PAIR", best of 5 runs. Not instrumented: measures the wrappers alone.
 * Usage: locks-pairs [N] (default 10000000). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t s;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void run(const char *kind, int which, long n)
{
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			switch (which) {
			case 0: pthread_mutex_lock(&m); pthread_mutex_unlock(&m); break;
			case 1: pthread_rwlock_rdlock(&rw); pthread_rwlock_unlock(&rw); break;
			case 2: pthread_rwlock_wrlock(&rw); pthread_rwlock_unlock(&rw); break;
			default: sem_wait(&s); sem_post(&s); break;
			}
		}
		double ns = (now_ns() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	printf("%s %.2f\n", kind, best);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	sem_init(&s, 0, 1);
	run("mutex", 0, n);
	run("rwlock_rd", 1, n);
	run("rwlock_wr", 2, n);
	run("sem", 3, n);
	return 0;
}
