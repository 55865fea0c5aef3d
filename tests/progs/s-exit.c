/* The ways a program ends, one per argument: `exit` (exit(3) from nested calls), `return`
 * (main returns 4), `_exit` (_exit(5) from nested calls, stdio never flushed, so it prints
 * with write), `thread` (a thread named "leaver" calls exit(6) while main waits in a join),
 * `pthread_exit` (main calls pthread_exit from nested calls after starting "leaver", which
 * joins main and then calls pthread_exit too: the process ends, status 0, when its last thread
 * does). Frames still open at the end are closed and recorded. Calls per mode, main thread:
 * exit: main 1, work 1, leave 1 | return: main 1, work 1 | _exit: main 1, work 1, leave 1 |
 * thread: main 1, wait_leaver 1; thread "leaver": leaver_main 1, work 1, leave 1 |
 * pthread_exit: main 1, start_leaver 1, work 1, leave 1; "leaver" as in thread. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mode = "";
static pthread_t main_thread;

static void leave(void)
{
	if (strcmp(mode, "_exit") == 0) {
		static const char msg[] = "s-exit: _exit 5\n";
		write(1, msg, sizeof(msg) - 1);
		_exit(5);
	}
	if (strcmp(mode, "pthread_exit") == 0) {
		printf("s-exit: pthread_exit\n");
		fflush(stdout);
		pthread_exit(NULL);
	}
	printf("s-exit: %s %d\n", mode, strcmp(mode, "exit") == 0 ? 3 : 6);
	exit(strcmp(mode, "exit") == 0 ? 3 : 6);
}

static int work(void)
{
	if (strcmp(mode, "return") != 0)
		leave();
	return 4;
}

static void *leaver_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "leaver");
	if (strcmp(mode, "pthread_exit") == 0)
		pthread_join(main_thread, NULL);	/* main has ended */
	work();
	return NULL;
}

static void wait_leaver(void)
{
	pthread_t t;
	pthread_create(&t, NULL, leaver_main, NULL);
	pthread_join(t, NULL);
}

static void start_leaver(void)
{
	pthread_t t;
	main_thread = pthread_self();
	pthread_create(&t, NULL, leaver_main, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: s-exit exit|return|_exit|thread|pthread_exit\n");
		return 2;
	}
	mode = argv[1];
	if (strcmp(mode, "thread") == 0)
		wait_leaver();
	else if (strcmp(mode, "pthread_exit") == 0)
		start_leaver();
	int code = work();
	printf("s-exit: return %d\n", code);
	return code;
}
