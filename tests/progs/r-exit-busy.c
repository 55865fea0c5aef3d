/* fxtrun test program: main calls exit() while four threads are inside nested instrumented
 * calls. The exit flush closes their open frames at its stop time; the threads keep running a
 * moment and end those same calls again later. The archive must hold each call once, nested:
 * events after the provider's stop are left out. Prints "exit with busy threads". */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) static void middle(unsigned long i)
{
	for (int k = 0; k < 50; k++)
		leaf(i + (unsigned long)k);
}

static void *spin(void *arg)
{
	(void)arg;
	for (unsigned long i = 0;; i++)
		middle(i);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	usleep(30000);
	printf("exit with busy threads\n");
	fflush(stdout);
	exit(0);
}
