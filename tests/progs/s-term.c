/* Termination signals (preload/life/dispositions.c). Modes:
 *   loop     main -> run_loop -> work() (1 ms each) until a signal ends it; prints "ready"
 *            (flushed) after 10 calls. Every signal keeps its default action.
 *   count    as loop, with a SIGINT handler that counts; 300 ms after the first SIGINT prints
 *            "interrupts N" and exits 0 (a program that dies on a second Ctrl-C would be hurt
 *            by a duplicate).
 *   handler  sigaction and signal report SIG_DFL as the old disposition of SIGTERM, SIGINT and
 *            SIGUSR1; handlers installed then run when the signals are raised; prints one line
 *            per check; exits 0.
 *   pipe     writes to a pipe whose reader is gone: dies of SIGPIPE inside run_loop. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupts, handled;

static void on_int(int sig)
{
	(void)sig;
	interrupts++;
}

static void on_any(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	handled = sig;
}

static void on_plain(int sig)
{
	handled = sig;
}

void work(void);
void run_loop(int counting);

void work(void)
{
	usleep(1000);
}

void run_loop(int counting)
{
	struct timespec t0 = { 0, 0 };
	for (long i = 1;; i++) {
		work();
		if (i == 10) {
			puts("ready");
			fflush(stdout);
		}
		if (counting && interrupts && !t0.tv_sec)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		if (t0.tv_sec) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > 300)
				return;
		}
	}
}

static int handlers(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_any;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTERM, &sa, &old);
	printf("SIGTERM old %s\n", old.sa_handler == SIG_DFL ? "default" : "other");
	raise(SIGTERM);
	printf("SIGTERM handled %d\n", (int)handled);
	sigaction(SIGINT, NULL, &old);
	printf("SIGINT now %s\n", old.sa_handler == SIG_DFL ? "default" : "other");
	sighandler_t prev = signal(SIGUSR1, on_plain);
	printf("SIGUSR1 old %s\n", prev == SIG_DFL ? "default" : "other");
	raise(SIGUSR1);
	printf("SIGUSR1 handled %d\n", (int)handled);
	prev = signal(SIGUSR1, SIG_DFL);
	printf("SIGUSR1 was %s\n", prev == on_plain ? "on_plain" : "other");
	sigaction(SIGTERM, NULL, &old);
	printf("SIGTERM now %s\n", old.sa_sigaction == on_any ? "on_any" : "other");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	if (!strcmp(mode, "handler"))
		return handlers();
	if (!strcmp(mode, "pipe")) {
		int p[2];
		if (pipe(p) < 0)
			return 1;
		close(p[0]);
		work();
		if (write(p[1], "x", 1) < 0)
			perror("write");
		return 1;
	}
	if (!strcmp(mode, "count"))
		signal(SIGINT, on_int);
	run_loop(!strcmp(mode, "count"));
	printf("interrupts %d\n", (int)interrupts);
	return 0;
}
