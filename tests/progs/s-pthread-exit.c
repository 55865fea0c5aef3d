/* Threads that call pthread_exit from deep inside instrumented calls: no exit hook runs for
 * the abandoned frames, so the tracer closes them when the thread ends. Two threads, run one
 * after the other, each named by itself.
 * Thread "exit-1" and "exit-2", each: thread_main 1, descend 3, bail_out 1.
 * Main thread: main 1, run 2. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static void bail_out(int code)
{
	if (code)	/* always: the test keeps gcc from seeing a function that never returns */
		pthread_exit((void *)(long)code);
}

static void descend(int n, int code)
{
	if (n == 0)
		bail_out(code);
	else
		descend(n - 1, code);
}

static void *thread_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "exit-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	descend(2, (int)(long)arg * 10);
	return NULL;
}

static long run(long id)
{
	pthread_t t;
	void *ret;
	pthread_create(&t, NULL, thread_main, (void *)id);
	pthread_join(t, &ret);
	return (long)ret;
}

int main(void)
{
	long a = run(1);
	long b = run(2);
	printf("s-pthread-exit: %ld %ld\n", a, b);
	return 0;
}
