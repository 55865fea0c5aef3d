/* <fxt/trace.h> from 4 threads at once: every thread starts at the same call sites together
 * (racing to fill their caches), records 500 scoped iterations with an instant each, and an
 * async operation that one thread begins and the next one ends. tests/api/api-check -c checks
 * the counts per thread against api-threads.expect, the pairing, and one string record each. */
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ITERATIONS 500

static pthread_barrier_t start, begun;

static void *run(void *arg)
{
	static const char *const names[NTHREADS] = { "zero", "one", "two", "three" };
	int k = (int)(long)arg;
	long sum = 0;

	pthread_barrier_wait(&start);
	for (int i = 0; i < ITERATIONS; i++) {
		TRACE_DURATION("api", "iteration", "thread", TA_INT32(k));
		TRACE_INSTANT("api", "hit", TRACE_SCOPE_THREAD, "thread", TA_INT32(k), "name",
			      TA_STRING(names[k]));
		sum += i;
	}
	TRACE_ASYNC_BEGIN("api", "handoff", 100 + k, "from", TA_INT32(k));
	pthread_barrier_wait(&begun);
	TRACE_ASYNC_END("api", "handoff", 100 + (k + 1) % NTHREADS);
	return (void *)sum;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long total = 0;

	pthread_barrier_init(&start, NULL, NTHREADS);
	pthread_barrier_init(&begun, NULL, NTHREADS);
	for (long k = 0; k < NTHREADS; k++)
		pthread_create(&t[k], NULL, run, (void *)k);
	for (int k = 0; k < NTHREADS; k++) {
		void *r;
		pthread_join(t[k], &r);
		total += (long)r;
	}
	printf("api-threads: total=%ld\n", total);
	return 0;
}
