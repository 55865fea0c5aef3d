/* r-tree: a process tree for fxtrun tests. The first process (r-tree) calls root_work(), forks a
 * child (r-tree) that calls child_work(), posix_spawns r-leaf "spawned" (grandchild), waits for
 * it, then execs r-leaf "exec"; the first process also starts r-leaf "vfork" through vfork+exec
 * and r-leaf "system" through system(3). r-leaf is found beside this program. Exit 0 when every
 * child exited 0. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static char leaf[PATH_MAX];

void root_work(void);
void child_work(void);

void root_work(void)
{
	__asm__ volatile("" ::: "memory");
}

void child_work(void)
{
	__asm__ volatile("" ::: "memory");
}

static int ok(pid_t pid)
{
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", leaf, sizeof(leaf) - 16);
	if (n <= 0)
		return 2;
	leaf[n] = 0;
	strcpy(strrchr(leaf, '/') + 1, "r-leaf");
	root_work();
	fflush(stdout);

	pid_t child = fork();
	if (child == 0) {
		child_work();
		pid_t s;
		char *sargs[] = { "r-leaf", "spawned", NULL };
		if (posix_spawn(&s, leaf, NULL, NULL, sargs, environ) != 0 || !ok(s))
			_exit(3);
		fflush(stdout);
		char *eargs[] = { "r-leaf", "exec", NULL };
		execv(leaf, eargs);
		_exit(4);
	}
	int good = ok(child);

	pid_t v = vfork();
	if (v == 0) {
		char *vargs[] = { "r-leaf", "vfork", NULL };
		execv(leaf, vargs);
		_exit(5);
	}
	good &= ok(v);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "'%s' system", leaf);
	good &= system(cmd) == 0;
	return good ? 0 : 1;
}
