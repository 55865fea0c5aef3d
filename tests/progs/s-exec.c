/* Exec of the same program (same pid): preload/life/exec.c. Usage: s-exec [HOW [fail]]
 *   first image:  main -> old_work() x3, then (with "fail") a failed exec of a missing file and
 *                 after_fail() x2, then main -> do_exec() execs itself as "s-exec second" with
 *                 HOW (execv, execve, execvp, execl, execle, execlp, fexecve, execveat;
 *                 default execv); main and do_exec are open at the exec.
 *   second image: main -> new_work() x5, exit 0.
 * Prints "exec failed" if the final exec fails (exit 2). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void old_work(void);
void new_work(void);
void after_fail(void);
void do_exec(const char *how);

void old_work(void)
{
	__asm__ volatile("" ::: "memory");
}

void new_work(void)
{
	__asm__ volatile("" ::: "memory");
}

void after_fail(void)
{
	__asm__ volatile("" ::: "memory");
}

void do_exec(const char *how)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = 0;
	char *argv[] = { self, "second", NULL };
	if (!strcmp(how, "execve"))
		execve(self, argv, environ);
	else if (!strcmp(how, "execvp"))
		execvp(self, argv);
	else if (!strcmp(how, "execl"))
		execl(self, self, "second", (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle(self, self, "second", (char *)NULL, environ);
	else if (!strcmp(how, "execlp"))
		execlp(self, self, "second", (char *)NULL);
	else if (!strcmp(how, "fexecve"))
		fexecve(open(self, O_RDONLY | O_CLOEXEC), argv, environ);
	else if (!strcmp(how, "execveat"))
		execveat(AT_FDCWD, self, argv, environ, 0);
	else
		execv(self, argv);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "second")) {
		for (int i = 0; i < 5; i++)
			new_work();
		return getenv("FXTAUTO_IMAGE") ? 3 : 0;	/* the tracer's variable never shows */
	}
	for (int i = 0; i < 3; i++)
		old_work();
	if (argc > 2 && !strcmp(argv[2], "fail")) {
		char *nope[] = { "/nonexistent/s-exec", NULL };
		execv(nope[0], nope);
		for (int i = 0; i < 2; i++)
			after_fail();
	}
	do_exec(argc > 1 ? argv[1] : "execv");
	puts("exec failed");
	return 2;
}
