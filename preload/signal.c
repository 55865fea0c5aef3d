/* Fatal signals (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL): our handler flushes the archive with
 * async-signal-safe code, then the program dies exactly as it would have (default action
 * restored, same signal, core dump intact). The program's own handlers for these signals are
 * kept aside by the sigaction/signal wrappers and chained to first: if one returns, we return.
 * Threads without an alternate signal stack get one, so a stack overflow is flushed too. */
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
static volatile sig_atomic_t ours[NSIG];

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
		if (siginfo)
			h.sa_sigaction(sig, si, uc);
		else
			h.sa_handler(sig);
		return;
	}
	int saved = errno;
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

FXTP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= NSIG || !ours[sig])
		return real_sigaction(sig, act, old);
	if (old)
		*old = app[sig];
	if (act)
		app[sig] = *act;
	return 0;
}

FXTP_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	if (sig <= 0 || sig >= NSIG || !ours[sig]) {
		fxtp_real_init();
		if (!fxtp_real.signal) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		return fxtp_real.signal(sig, handler);
	}
	sighandler_t prev = app[sig].sa_handler;
	memset(&app[sig], 0, sizeof(app[sig]));
	app[sig].sa_handler = handler;
	app[sig].sa_flags = SA_RESTART;
	return prev;
}
