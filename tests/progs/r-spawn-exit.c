/* fxtrun test program: main creates eight threads and calls exit() at once, so some threads
 * have not started when the exit flush runs. Every pthread_create flow must still be whole
 * (the flush ends those whose thread never started). Prints "spawned 8". */
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

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 8; i++)
		pthread_create(&t, NULL, run, NULL);
	printf("spawned 8\n");
	fflush(stdout);
	exit(0);
}
