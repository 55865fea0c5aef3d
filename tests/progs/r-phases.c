/* r-phases: calls early() N times, then late() 1000 times, all on the main thread; a circular
 * buffer too small for the early calls must still hold every late() call. Usage: r-phases N. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

void early(void);
void late(void);

void early(void)
{
	__asm__ volatile("" ::: "memory");
}

void late(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		early();
	for (int i = 0; i < 1000; i++)
		late();
	return 0;
}
