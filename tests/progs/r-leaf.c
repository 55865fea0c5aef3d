/* r-leaf: the program other fxtrun test programs start (posix_spawn, exec, vfork, system).
 * Usage: r-leaf [MODE [ARGS...]]: calls leaf_call() a number of times that tells how it was
 * started (spawned 2, exec 3, vfork 4, system 5, anything else 1), then prints each of its
 * arguments on its own line as "arg: <ARG>" (fxtrun passes them unchanged). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

void leaf_call(void);

void leaf_call(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "spawned", "exec", "vfork", "system" };
	int n = 1;
	for (int i = 0; argc > 1 && i < 4; i++)
		if (!strcmp(argv[1], modes[i]))
			n = i + 2;
	for (int i = 0; i < n; i++)
		leaf_call();
	for (int i = 1; i < argc; i++)
		printf("arg: %s\n", argv[i]);
	return 0;
}
