/* Signal handlers that run instrumented code: SIGUSR1's handler calls two levels of functions
 * and returns into the interrupted frame (raised synchronously, 100 times); SIGHUP's handler
 * does the same on an alternate signal stack (30 times); SIGUSR2's handler siglongjmps out of
 * itself past the frames it interrupted (50 times).
 * Calls: main 1, outer 100, inner 100, on_usr1 100, handler_work 130, handler_leaf 130,
 * alt_caller 30, on_hup 30, escape_outer 50, escape_inner 50, on_usr2 50, escaped 50. */
/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t handled;
static sigjmp_buf env;
static char alt_stack[64 * 1024];

static void handler_leaf(void)
{
	handled++;
}

static void handler_work(void)
{
	handler_leaf();
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_work();
}

static void on_hup(int sig)
{
	(void)sig;
	handler_work();
}

static void alt_caller(void)
{
	raise(SIGHUP);
}

static void on_usr2(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

static void inner(void)
{
	raise(SIGUSR1);
}

static void outer(void)
{
	inner();
}

static void escape_inner(void)
{
	raise(SIGUSR2);
}

static void escape_outer(void)
{
	escape_inner();
}

/* A larger frame than the abandoned ones: its stack pointer lies below theirs (see s-longjmp). */
static void escaped(void)
{
	volatile char pad[256];
	pad[0] = 1;
	handled += pad[0];
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < 100; i++)
		outer();
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	sigaltstack(&ss, NULL);
	sa.sa_handler = on_hup;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGHUP, &sa, NULL);
	for (int i = 0; i < 30; i++)
		alt_caller();
	for (int i = 0; i < 50; i++) {
		if (sigsetjmp(env, 1) == 0)
			escape_outer();
		else
			escaped();
	}
	printf("s-signal: %d handled\n", (int)handled);
	return 0;
}
