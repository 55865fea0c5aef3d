/* r-spin: THREADS threads (default 4) call spin() as fast as they can for SECONDS seconds
 * (default 10), then the program prints "calls <total>" (the count a streaming trace of it
 * must hold when nothing was dropped) and "peak_rss_kb <VmHWM>" (its own peak resident set,
 * trace buffer included). Usage: r-spin [SECONDS [THREADS]]. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int stop;

void spin(void);
void *runner(void *arg);

void spin(void)
{
	__asm__ volatile("" ::: "memory");
}

void *runner(void *arg)
{
	long *count = arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < 256; i++)
			spin();
		*count += 256;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	int n = argc > 2 ? atoi(argv[2]) : 4;
	if (n < 1 || n > 64 || secs <= 0)
		return 2;
	pthread_t t[64];
	long counts[64] = { 0 };
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, runner, &counts[i]);
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, 1);
	long total = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += counts[i];
	}
	printf("calls %ld\n", total);
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("peak_rss_kb %ld\n", atol(line + 6));
	if (f)
		fclose(f);
	return 0;
}
