/* fxtrun test program: main creates N threads (argument, default 8) and calls exit() at once,
 * so some threads have not started, or are still setting up, when the exit flush runs. Every
 * pthread_create flow must still be whole (the flush ends those whose thread never started) and
 * nothing main wrote may be lost. Prints "spawned N". */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	sink++;
}

static void *run(void *arg)
{
	(void)arg;
	for (;;)
		work();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t;
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, run, NULL);
	printf("spawned %d\n", n);
	fflush(stdout);
	exit(0);
}
