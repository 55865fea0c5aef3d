/* Signal dispositions. Fatal signals (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL): our handler
 * flushes the archive with async-signal-safe code, then the program dies exactly as it would
 * have (default action restored, same signal, core dump intact). The program's own handlers for
 * these signals are kept aside by the sigaction/signal wrappers and chained to first: if one
 * returns, we return. Every other handler the program installs is installed as on_signal()
 * (same mask and flags, plus SA_SIGINFO) and kept aside too: both run the program's handler
 * through fxtp_sig_run(), on a tracing state of its own (siglevel.c). sigaction() reports the
 * program's own dispositions. Threads without an alternate signal stack get one, so a stack
 * overflow is flushed too. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/fxtp.h"

static const int fatal[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
static struct sigaction app[NSIG];	/* the disposition the program believes is installed */
static volatile sig_atomic_t ours[NSIG];	/* a fatal signal: on_fatal installed */
static volatile sig_atomic_t wrapped[NSIG];	/* on_signal installed for app[sig] */
int fxtp_sig_fatal;

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	fxtp_real_init();
	if (!fxtp_real.sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return fxtp_real.sigaction(sig, act, old);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *a = &app[sig];
	int siginfo = (a->sa_flags & SA_SIGINFO) != 0;
	if (siginfo ? a->sa_sigaction != NULL
		    : (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)) {
		struct sigaction h = *a;
		if (h.sa_flags & SA_RESETHAND) {
			a->sa_handler = SIG_DFL;
			a->sa_flags = 0;
		}
		fxtp_sig_run(&h, sig, si, uc);
		return;
	}
	int saved = errno;
	fxtp_sig_fatal = 1;
	fxtp_finish(1);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = a->sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	ours[sig] = 0;
	/* A fault raised by the CPU recurs when we return; a sent signal is sent again, and
	 * stays pending (blocked in this handler) until we return. */
	if (si->si_code <= 0)
		syscall(SYS_tgkill, getpid(), gettid(), sig);
	errno = saved;
}

/* The program's handler for a signal that is not fatal. A disposition the program changed to
 * SIG_DFL or SIG_IGN meanwhile (a race with sigaction) is not run. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction h = app[sig];
	int siginfo = (h.sa_flags & SA_SIGINFO) != 0;
	if (siginfo ? h.sa_sigaction == NULL
		    : (h.sa_handler == SIG_DFL || h.sa_handler == SIG_IGN))
		return;
	if (h.sa_flags & SA_RESETHAND) {	/* the kernel reset ours: so is the program's */
		wrapped[sig] = 0;
		app[sig].sa_handler = SIG_DFL;
		app[sig].sa_flags = 0;
	}
	fxtp_sig_run(&h, sig, si, uc);
}

static int is_handler(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != NULL
					   : a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

#define ALTSTACK_BYTES (256u << 10) /* reserved; pages are touched only when a handler runs */

void *fxtp_altstack_setup(void)
{
	stack_t old;
	if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return NULL;	/* the program has its own */
	void *p = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	stack_t ss = { .ss_sp = p, .ss_size = ALTSTACK_BYTES, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) < 0) {
		munmap(p, ALTSTACK_BYTES);
		return NULL;
	}
	return p;
}

void fxtp_altstack_release(void *stack)
{
	stack_t cur;
	if (!stack || sigaltstack(NULL, &cur) < 0 || cur.ss_sp != stack ||
	    (cur.ss_flags & SS_ONSTACK))
		return;	/* replaced by the program (it may still use ours), or in use: keep it */
	stack_t off = { .ss_flags = SS_DISABLE };
	if (sigaltstack(&off, NULL) == 0)
		munmap(stack, ALTSTACK_BYTES);
}

int fxtp_signals_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		int sig = fatal[i];
		if (real_sigaction(sig, NULL, &app[sig]) < 0)
			return -errno;
		if (app[sig].sa_handler == SIG_IGN)
			continue;	/* ignored before we came: leave it so */
		if (real_sigaction(sig, &sa, NULL) < 0)
			return -errno;
		ours[sig] = 1;
	}
	return 0;
}

/* Not thread-safe for one signal against itself (two threads setting the same signal at
 * once may report each other's disposition as old); async-signal-safe. */
FXTP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real_sigaction(sig, act, old);
	struct sigaction prev_app = app[sig], prev, mine;
	if (ours[sig]) {
		if (act)
			app[sig] = *act;
		if (old)
			*old = prev_app;
		return 0;
	}
	int was = wrapped[sig];
	if (act && is_handler(act)) {
		mine = *act;
		mine.sa_sigaction = on_signal;
		mine.sa_flags |= SA_SIGINFO;
		app[sig] = *act;	/* before: a signal right after the install finds it */
		wrapped[sig] = 1;
		if (real_sigaction(sig, &mine, &prev) < 0) {
			int err = errno;
			app[sig] = prev_app;
			wrapped[sig] = was;
			errno = err;
			return -1;
		}
	} else {
		if (real_sigaction(sig, act, &prev) < 0)
			return -1;
		if (act)
			wrapped[sig] = 0;
	}
	if (old)
		*old = was ? prev_app : prev;
	return 0;
}

/* glibc's signal(): BSD semantics (SA_RESTART, the signal blocked in its handler). */
FXTP_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
					   : old.sa_handler;
}
