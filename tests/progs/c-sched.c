/* Threads that spin, sleep, half spin and half sleep, block on a mutex and block on a pipe read,
 * each in one function (built with -finstrument-functions). Each thread prints its function's
 * wall and CPU time (CLOCK_THREAD_CPUTIME_ID) and, at its end, its context switch counts from
 * /proc/thread-self/status: "fn NAME TID WALL_NS CPU_NS UNSEEN_NS" and "sw TID VOLUNTARY
 * NONVOLUNTARY" (UNSEEN_NS: see spin_cpu). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static int pfd[2];

__attribute__((no_instrument_function)) static long long ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __thread long long unseen_ns;	/* see spin_cpu */

__attribute__((no_instrument_function)) static long switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Spins until the thread's CPU clock has advanced cpu_ns. Wall time that passes between two
 * turns of the loop without the thread's CPU clock advancing and without a context switch
 * (the CPU busy elsewhere than this thread with no switch to say so: the host preempting this
 * virtual CPU, interrupts) is summed in unseen_ns: the scheduler, and so the trace, counts it
 * as on CPU, the CPU clock does not. */
__attribute__((no_instrument_function)) static void spin_cpu(long long cpu_ns)
{
	long long cpu = ns(CLOCK_THREAD_CPUTIME_ID), end = cpu + cpu_ns;
	long long wall = ns(CLOCK_MONOTONIC);
	long sw = switches();

	while (cpu < end) {
		long long cpu1 = ns(CLOCK_THREAD_CPUTIME_ID), wall1 = ns(CLOCK_MONOTONIC);
		long sw1 = switches();
		if (sw1 == sw && wall1 - wall > cpu1 - cpu + 20000)
			unseen_ns += wall1 - wall - (cpu1 - cpu);
		cpu = cpu1;
		wall = wall1;
		sw = sw1;
	}
}

__attribute__((no_instrument_function)) static void nap(long us)
{
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, NULL);
}

void spin_work(void) { spin_cpu(200000000LL); }
void sleep_work(void) { for (int i = 0; i < 100; i++) nap(2000); }
void half_work(void) { for (int i = 0; i < 50; i++) { spin_cpu(2000000LL); nap(2000); } }
void mutex_work(void) { pthread_mutex_lock(&mu); spin_cpu(50000000LL); pthread_mutex_unlock(&mu); }
void pipe_work(void) { char c; for (int i = 0; i < 100; i++) if (read(pfd[0], &c, 1) != 1) break; }

struct job {
	const char *name;
	void (*fn)(void);
};

static void *run(void *arg)
{
	const struct job *j = arg;
	unseen_ns = 0;
	long long w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	j->fn();
	long long c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
	long vol = -1, nonvol = -1;
	char line[256];
	FILE *f = fopen("/proc/thread-self/status", "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %ld", &vol);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", &nonvol);
	}
	if (f)
		fclose(f);
	pthread_mutex_lock(&out);
	printf("fn %s %d %lld %lld %lld\nsw %d %ld %ld\n", j->name, gettid(), w1 - w0, c1 - c0,
	       unseen_ns, gettid(), vol, nonvol);
	fflush(stdout);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(void)
{
	static const struct job jobs[] = { { "spin_work", spin_work }, { "sleep_work", sleep_work },
					   { "half_work", half_work }, { "mutex_work", mutex_work },
					   { "pipe_work", pipe_work } };
	pthread_t th[5];
	if (pipe(pfd))
		return 1;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < 5; i++)
		pthread_create(&th[i], NULL, run, (void *)&jobs[i]);
	nap(150000);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 100; i++) {
		if (write(pfd[1], "x", 1) != 1)
			return 1;
		nap(2000);
	}
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	return 0;
}
