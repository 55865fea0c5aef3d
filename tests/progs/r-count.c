/* r-count: calls work() in a loop, about 10000 times a second, and after every 1000th call
 * prints "<N> calls done" (flushed), so a test knows how many calls had returned before it
 * killed or interrupted the program. Usage: r-count [LIMIT] (0 or none: forever). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void work(void);

void work(void)
{
	usleep(100);
}

int main(int argc, char **argv)
{
	long limit = argc > 1 ? atol(argv[1]) : 0;
	for (long i = 1; !limit || i <= limit; i++) {
		work();
		if (i % 1000 == 0) {
			printf("%ld calls done\n", i);
			fflush(stdout);
		}
	}
	return 0;
}
