/* g-reg: a program told what to do, line by line on stdin, by the registry tests' driver
 * (tests/registry/driver.c), one line of answer each on stdout. Commands:
 *   on | off        wait (at most 10 s) until <fxt/trace.h> says a tracer records / does not
 *   call N          N calls of work() on this thread
 *   threads T N     T threads, each N calls of work(), joined
 *   bg T / halt     T threads calling work() until halt (joined; answers how many calls)
 *   pace            one thread calling work() once a millisecond until halt
 *   tstart | tstop | tsnap   one call of t_start / t_stop / t_snap (trigger functions)
 *   fork N          a child makes N calls of child_work(), then exits 7 once it reads "done"
 *   exec            the image execs itself; the new one answers "image 2"
 *   api             one <fxt/trace.h> instant in category "cat_a" and one in "cat_b"
 *   fd              the number open() gives now (the tracer's descriptors stay out of the way)
 *   quit S          exits with status S
 * End of input: exit 0. Built with -finstrument-functions. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxt/trace.h"

void work(void);
void child_work(void);
void t_start(void);
void t_stop(void);
void t_snap(void);

void work(void)
{
	__asm__ volatile("" ::: "memory");
}

void child_work(void)
{
	__asm__ volatile("" ::: "memory");
}

void t_start(void)
{
	__asm__ volatile("" ::: "memory");
}

void t_stop(void)
{
	__asm__ volatile("" ::: "memory");
}

void t_snap(void)
{
	__asm__ volatile("" ::: "memory");
}

static int until(int on)
{
	for (int i = 0; i < 10000; i++) {
		if (!!TRACE_ENABLED() == on)
			return 1;
		usleep(1000);
	}
	return 0;
}

static long per_thread;
static volatile int halting, pacing;
static long bg_calls[64];

static void *caller(void *arg)
{
	(void)arg;
	for (long i = 0; i < per_thread; i++)
		work();
	return NULL;
}

static void *looper(void *arg)
{
	long *n = arg;
	struct timespec ms = { 0, 1000000 };
	while (!halting) {
		work();
		(*n)++;
		if (pacing)
			nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[256];
	pthread_t bg[64];
	int nbg = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "exec"))
		printf("image 2\n");
	while (fgets(line, sizeof(line), stdin)) {
		long a = 0, b = 0;
		if (!strncmp(line, "on", 2) || !strncmp(line, "off", 3)) {
			int on = line[1] == 'n';
			printf("%s\n", until(on) ? (on ? "on" : "off") : "timeout");
		} else if (sscanf(line, "call %ld", &a) == 1) {
			for (long i = 0; i < a; i++)
				work();
			printf("called %ld\n", a);
		} else if (sscanf(line, "threads %ld %ld", &a, &b) == 2 && a > 0 && a <= 64) {
			pthread_t th[64];
			per_thread = b;
			for (long i = 0; i < a; i++)
				pthread_create(&th[i], NULL, caller, NULL);
			for (long i = 0; i < a; i++)
				pthread_join(th[i], NULL);
			printf("threaded\n");
		} else if ((sscanf(line, "bg %ld", &a) == 1 && a > 0 && a <= 64) ||
			   (!strncmp(line, "pace", 4) && (a = 1))) {
			halting = 0;
			pacing = line[0] == 'p';
			for (nbg = 0; nbg < a; nbg++)
				pthread_create(&bg[nbg], NULL, looper, &bg_calls[nbg]);
			printf("started %d\n", nbg);
		} else if (!strncmp(line, "halt", 4)) {
			halting = 1;
			long total = 0;
			for (int i = 0; i < nbg; i++) {
				pthread_join(bg[i], NULL);
				total += bg_calls[i];
			}
			printf("halted %s\n", total > 0 ? "busy" : "idle");
		} else if (!strncmp(line, "tstart", 6)) {
			t_start();
			printf("t_start\n");
		} else if (!strncmp(line, "tstop", 5)) {
			t_stop();
			printf("t_stop\n");
		} else if (!strncmp(line, "tsnap", 5)) {
			t_snap();
			printf("t_snap\n");
		} else if (sscanf(line, "fork %ld", &a) == 1) {
			fflush(stdout);
			pid_t pid = fork();
			if (pid == 0) {
				for (long i = 0; i < a; i++)
					child_work();
				/* Until told (the test waits for its registration). */
				while (fgets(line, sizeof(line), stdin) && strncmp(line, "done", 4))
					;
				_exit(7);
			}
			int st = 0;
			waitpid(pid, &st, 0);
			printf("forked %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		} else if (!strncmp(line, "exec", 4)) {
			char *args[] = { argv[0], "exec", NULL };
			execv("/proc/self/exe", args);
			printf("exec failed\n");
		} else if (!strncmp(line, "api", 3)) {
			TRACE_INSTANT("cat_a", "ev_a", TRACE_SCOPE_THREAD);
			TRACE_INSTANT("cat_b", "ev_b", TRACE_SCOPE_THREAD);
			printf("api\n");
		} else if (!strncmp(line, "fd", 2)) {
			int fd = open("/dev/null", O_RDONLY);
			printf("fd %d\n", fd);
			close(fd);
		} else if (sscanf(line, "quit %ld", &a) == 1) {
			exit((int)a);
		} else {
			printf("what?\n");
		}
	}
	return 0;
}
