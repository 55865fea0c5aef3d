/* A traced program that outlives the wrapper that started it (preload/transport/outname.c): main ->
 * step() x2, prints its pid (flushed), waits until the file named by its argument exists (at
 * most 60 s: exit 3 then), then step() x2 and exit 0. Calls: main 1, step 4. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void step(void);

void step(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	step();
	step();
	printf("%d\n", (int)getpid());
	fflush(stdout);
	struct timespec tick = { 0, 10000000 };
	for (int i = 0; access(argv[1], F_OK) != 0; i++) {
		if (i == 6000)
			return 3;
		nanosleep(&tick, NULL);
	}
	step();
	step();
	return 0;
}
