/* Workload of bench/calls.sh: small nested calls (mid calls leaf twice), run by 1..64 threads
 * after a warm-up that lets a tracer symbolize every function. Each thread times only its
 * measured loop, in thread CPU time, so threads sharing a core still measure their own cost.
 * Usage: calls-work CALLS [THREADS]; prints `calls TOTAL cpu_ns NS sum S` on stdout, where
 * TOTAL counts every instrumented call the program makes (main included) and NS sums the
 * measured loops (CALLS calls in all, split evenly between the threads). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WARM_CALLS = 30000, MAX_THREADS = 64 };

struct job {
	long calls;	/* multiple of 3: one mid() is three calls */
	long sum;
	long long cpu_ns;
};

__attribute__((noinline)) static long leaf(long x)
{
	__asm__ volatile("");
	return x * 3 + 1;
}

__attribute__((noinline)) static long mid(long x)
{
	return leaf(x) + leaf(x ^ 1);
}

/* The measured loop, alone in its function so callgrind can count just it
 * (--toggle-collect=measured). */
__attribute__((noinline)) static long measured(long calls)
{
	long s = 0;
	for (long i = 0; i < calls / 3; i++)
		s += mid(i);
	return s;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	j->sum = 0;
	for (long i = 0; i < WARM_CALLS / 3; i++)	/* a tracer meets mid and leaf here first */
		j->sum += mid(i);
	long long t0 = thread_cpu_ns();
	j->sum += measured(j->calls);
	j->cpu_ns = thread_cpu_ns() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 10000000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	if (calls < 3 || threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "usage: calls-work CALLS [THREADS in 1..%d]\n", MAX_THREADS);
		return 2;
	}
	struct job jobs[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	long per = calls / threads / 3 * 3;
	for (int i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .calls = per };
		if (threads == 1)
			worker(&jobs[i]);
		else
			pthread_create(&tids[i], NULL, worker, &jobs[i]);
	}
	long long cpu = 0;
	long sum = 0;
	for (int i = 0; i < threads; i++) {
		if (threads > 1)
			pthread_join(tids[i], NULL);
		cpu += jobs[i].cpu_ns;
		sum += jobs[i].sum;
	}
	/* main, and per thread: worker, measured, 2 thread_cpu_ns, the warm-up's and loop's calls */
	long total = 1 + threads * (4L + WARM_CALLS / 3 * 3 + per);
	printf("calls %ld cpu_ns %lld measured %ld sum %ld\n", total, cpu, per * threads, sum);
	return 0;
}
