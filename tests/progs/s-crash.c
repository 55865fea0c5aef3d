/* A fatal signal after some calls, one kind per argument: `segv` (null store), `abort`,
 * `fpe` (integer division by zero), `ill` (trap instruction). With the tracer the program must
 * die of the same signal, and the archive must be valid and hold the calls, the frames open at
 * the crash closed. Calls: main 1, before 10, nest 3, crash 1. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int zero;

static int before(int i)
{
	return i * 2;
}

static int crash(const char *how)
{
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(long)zero = 1;
	else if (strcmp(how, "abort") == 0)
		abort();
	else if (strcmp(how, "fpe") == 0)
		return 100 / zero;
	else if (strcmp(how, "ill") == 0)
		__builtin_trap();
	return 0;
}

static int nest(int n, const char *how)
{
	if (n == 0)
		return crash(how);
	return nest(n - 1, how);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: s-crash segv|abort|fpe|ill\n");
		return 2;
	}
	int v = 0;
	for (int i = 0; i < 10; i++)
		v += before(i);
	printf("s-crash: %d, %s\n", v, argv[1]);
	fflush(stdout);
	fprintf(stderr, "s-crash: about to crash\n");
	return nest(2, argv[1]);
}
