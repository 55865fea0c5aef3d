/* fork: parent and child both call functions; each process writes its own archive, and the
 * child's holds only what the child ran after the fork.
 * Parent calls: main 1, spawn 1, parent_work 20, leaf 20 (10 before the fork, 10 after).
 * Child calls (its own archive): child_work 5, leaf 5. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int leaf(int x)
{
	return x + 1;
}

static int parent_work(int x)
{
	return leaf(x);
}

static int child_work(int x)
{
	return leaf(x) * 2;
}

static int spawn(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int v = 0;
		for (int i = 0; i < 5; i++)
			v += child_work(i);
		printf("s-fork: child %d\n", v);
		exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	int v = 0;
	for (int i = 0; i < 10; i++)
		v += parent_work(i);
	int st = spawn();
	for (int i = 0; i < 10; i++)
		v += parent_work(i);
	printf("s-fork: parent %d, child status %d\n", v, st);
	return 0;
}
