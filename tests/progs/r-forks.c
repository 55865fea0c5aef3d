/* r-forks: 12 processes at once, each with a busy second thread: the parent starts a thread
 * calling busy() N times, then forks 10 children; each child also starts a busy thread and
 * calls work() N times, and child 0 forks a grandchild that does the same. Every process waits
 * for its own. Prints "busy <total> work <total>": the calls a complete trace of the tree must
 * hold. Usage: r-forks [N] (default 200000). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long n = 200000;
static volatile long sink;

void busy(void);
void work(void);
void *busy_thread(void *arg);
void process(int children, int grandchild);

void busy(void)
{
	sink++;
}

void work(void)
{
	sink++;
}

void *busy_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		busy();
	return NULL;
}

/* The work of one process: a busy thread beside `children` forks (the first forking one more
 * when grandchild), then its own calls. */
void process(int children, int grandchild)
{
	pthread_t t;
	pthread_create(&t, NULL, busy_thread, NULL);
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();
		if (pid == 0) {
			process(c == 0 && grandchild, 0);
			exit(0);
		}
	}
	for (long i = 0; i < n; i++)
		work();
	pthread_join(t, NULL);
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	process(10, 1);
	/* 12 processes: the parent, 10 children, 1 grandchild */
	printf("busy %ld work %ld\n", 12 * n, 12 * n);
	return 0;
}
