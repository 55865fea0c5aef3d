/* r-slow: one thread calls slow() 100 times, 10 ms apart, while another calls fast() as fast
 * as it can: under streaming, the slow thread's chunk stays open across many rolling-buffer
 * wraps and must be saved piece by piece, each call exactly once. The slow thread starts (and
 * takes its chunk) before the fast one. Prints "slow 100" at the end. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int stop, started;

void slow(void);
void fast(void);
void *slow_thread(void *arg);
void *fast_thread(void *arg);

void slow(void)
{
	__asm__ volatile("" ::: "memory");
}

void fast(void)
{
	__asm__ volatile("" ::: "memory");
}

void *slow_thread(void *arg)
{
	int *n = arg;
	slow();
	atomic_store(&started, 1);
	for (*n = 1; *n < 100; ++*n) {
		usleep(10000);
		slow();
	}
	atomic_store(&stop, 1);
	return NULL;
}

void *fast_thread(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		fast();
	return NULL;
}

int main(void)
{
	pthread_t s, f;
	int n = 0;
	pthread_create(&s, NULL, slow_thread, &n);
	while (!atomic_load(&started))
		usleep(1000);
	pthread_create(&f, NULL, fast_thread, NULL);
	pthread_join(s, NULL);
	pthread_join(f, NULL);
	printf("slow %d\n", n);
	return 0;
}
