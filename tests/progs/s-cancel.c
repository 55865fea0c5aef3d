/* pthread_cancel of a thread waiting deep inside instrumented calls: the cancellation unwinds
 * without exit hooks, so the tracer closes the frames when the thread ends.
 * Thread "victim": victim_main 1, wait_deep 3, park 1. Main thread: main 1. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t ready;
static volatile int never;	/* a loop gcc cannot prove endless, or it flags the recursion */

static void park(void)
{
	pthread_barrier_wait(&ready);
	while (!never)
		pause();	/* a cancellation point */
}

static void wait_deep(int n)
{
	if (n == 0)
		park();
	else
		wait_deep(n - 1);
}

static void *victim_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "victim");
	wait_deep(2);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *ret;
	pthread_barrier_init(&ready, NULL, 2);
	pthread_create(&t, NULL, victim_main, NULL);
	pthread_barrier_wait(&ready);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("s-cancel: %s\n", ret == PTHREAD_CANCELED ? "canceled" : "returned");
	return 0;
}
