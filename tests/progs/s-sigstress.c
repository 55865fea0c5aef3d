/* Asynchronous signals landing anywhere in the hooks: a SIGALRM timer (setitimer, default
 * 50 us = 20 kHz) whose instrumented handler calls two levels of instrumented functions, while
 * the main thread loops over a three-level instrumented call tree. The program counts its own
 * calls and prints them, so the archive can be checked exactly (tests/e2e/sigstress.sh):
 *   main 1, loop_top ITER, loop_mid ITER, loop_leaf 2*ITER,
 *   on_alarm RUNS, alarm_work RUNS, alarm_leaf 2*RUNS; on_alarm's caller is whatever it
 *   interrupted (main or a loop_* function).
 * First the main thread waits in sigsuspend (no call of its own) for the handler's first
 * WAIT_RUNS runs: their functions are first seen in the handler, which cannot name them, so
 * all their calls wait (siglevel.c's deferred queue) until the main thread's next call.
 * Usage: s-sigstress [ITERATIONS [MIN_RUNS [INTERVAL_US [WAIT_RUNS]]]] (defaults 2500000 200
 * 50 1000): then loops at least ITERATIONS times (4 calls each), and on until the handler ran
 * MIN_RUNS times in all. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t runs;
static volatile unsigned long sink;

static void alarm_leaf(int k)
{
	sink += (unsigned long)k;
}

static void alarm_work(void)
{
	alarm_leaf(1);
	alarm_leaf(2);
}

static void on_alarm(int sig)
{
	(void)sig;
	alarm_work();
	runs++;
}

static void loop_leaf(unsigned long i)
{
	sink += i;
}

static void loop_mid(unsigned long i)
{
	loop_leaf(i);
	loop_leaf(i + 1);
}

static void loop_top(unsigned long i)
{
	loop_mid(i);
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 2500000;
	long min_runs = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
	long us = argc > 3 ? strtol(argv[3], NULL, 10) : 50;
	long wait_runs = argc > 4 ? strtol(argv[4], NULL, 10) : 1000;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigset_t alrm, old;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);	/* a run between the test and the wait wakes it */
	struct itimerval it = { { 0, us }, { 0, us } };
	setitimer(ITIMER_REAL, &it, NULL);
	while (runs < wait_runs)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	unsigned long i = 0;
	while (i < iters || runs < min_runs)
		loop_top(i++);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("s-sigstress: iterations %lu runs %ld\n", i, (long)runs);
	return 0;
}
