/* r-clock: stamps calls with CLOCK_MONOTONIC, so a test can compare the trace's clock with the
 * program's. Usage: r-clock N FILE [wait] [gap=US]: N times (each after a pause of US
 * microseconds, if given) reads CLOCK_MONOTONIC (t1), calls stamp(), reads it again (t2); then
 * writes "t1 t2" in nanoseconds, one line per call in call order, to FILE. The trace's start of
 * the i-th stamp() call, converted to CLOCK_MONOTONIC, lies in [t1, t2] of line i (preemption
 * only widens that window). With "wait", the calls start once a line is read from stdin (a
 * registered program: after its trace started), and once FILE is written the program prints
 * "stamped" and runs on until stdin ends (a test may kill it then). Exit 2 on bad usage or when
 * FILE cannot be written. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void stamp(void);

void stamp(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Not instrumented: the window [t1, t2] holds stamp()'s call and little else. */
__attribute__((no_instrument_function)) static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc >= 3 ? atol(argv[1]) : 0, gap_us = 0;
	int wait = 0;
	char line[64];
	for (int i = 3; i < argc && n > 0; i++) {
		if (!strcmp(argv[i], "wait"))
			wait = 1;
		else if (!strncmp(argv[i], "gap=", 4) && (gap_us = atol(argv[i] + 4)) > 0)
			continue;
		else
			n = 0;
	}
	if (n <= 0) {
		fputs("usage: r-clock N FILE [wait] [gap=US]\n", stderr);
		return 2;
	}
	if (wait && !fgets(line, sizeof(line), stdin))
		return 2;
	uint64_t *t = malloc((size_t)n * 2 * sizeof(*t));
	if (!t)
		return 2;
	for (long i = 0; i < n; i++) {
		if (gap_us)
			usleep((useconds_t)gap_us);
		t[2 * i] = mono_ns();
		stamp();
		t[2 * i + 1] = mono_ns();
	}
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 2;
	for (long i = 0; i < n; i++)
		fprintf(f, "%llu %llu\n", (unsigned long long)t[2 * i],
			(unsigned long long)t[2 * i + 1]);
	free(t);
	if (fclose(f))
		return 2;
	if (wait) {
		puts("stamped");
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin))
			;
	}
	return 0;
}
