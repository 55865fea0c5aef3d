/* Signals whose default action ends the process: fatal ones (SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
 * SIGILL, SIGSYS, SIGQUIT) and termination ones (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM,
 * SIGUSR1/2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT; not SIGTRAP, which
 * sampling uses, nor the real-time signals). Our handler stays installed for each (unless the
 * program ignores it): while the program's disposition is SIG_DFL it flushes the archive with
 * async-signal-safe code, then the program dies exactly as it would have (default action
 * restored, same signal, core dump intact); when the program has a handler (kept aside by the
 * sigaction/signal wrappers, which report what the program set), ours chains to it with the
 * program's flags and mask in the kernel. A forward by fxtrun of a signal the program already
 * got from the same sender is dropped (common/forward.h). Every other handler the program
 * installs is installed as on_signal() too (same mask and flags, plus SA_SIGINFO) and kept
 * aside: every program handler runs through fxtp_sig_run(), on a tracing state of its own
 * (siglevel.c), and sigaction() reports the program's own dispositions. Threads without an
 * alternate signal stack get one (altstack.c), so a stack overflow is flushed too. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/forward.h"
#include "preload/base/fxtp.h"
#include "preload/life/flush.h"
#include "preload/base/real.h"
#include "preload/hot/siglevel.h"
#include "preload/life/dispositions.h"

/* Faults: a CPU fault (si_code > 0) recurs when the handler returns. */
static const int fatal[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGQUIT };
static const int term[] = { SIGINT,  SIGTERM,	SIGHUP,	 SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
			    SIGXCPU, SIGXFSZ,	SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT };
static struct sigaction app[NSIG];	/* the disposition the program believes is installed */
static volatile sig_atomic_t ours[NSIG];	/* managed here: the wrappers keep app[] */
static volatile sig_atomic_t wrapped[NSIG];	/* another signal: on_signal installed for app[] */
static uint8_t is_fault[NSIG];

/* The last arrival of each termination signal: from fxtrun's forward or not, from which sender
 * (SI_USER only, else -1), when. The other kind from the same sender within
 * FXT_FORWARD_WINDOW_NS is the same signal twice (a group kill that reached fxtrun and us: the
 * forward may come before or after it), dropped once. */
static struct {
	int32_t sender;
	int forward;
	int armed;
	uint64_t ns;
} last[NSIG];

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	fxtp_real_init();
	if (!fxtp_real.sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return fxtp_real.sigaction(sig, act, old);
}

static int has_handler(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != NULL
					  : a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

/* Whether si is the second arrival of one signal (see last[]): then it is dropped. A forward
 * that is not is rewritten to look like the original (SI_USER from its sender). */
static int duplicate(int sig, siginfo_t *si)
{
	int32_t from = si->si_code == SI_QUEUE
			       ? fxt_forward_sender((uint64_t)(uintptr_t)si->si_value.sival_ptr)
			       : -1;
	int forward = from >= 0;
	uint64_t now = fxt_mono_ns();
	if (!forward)
		from = si->si_code == SI_USER ? si->si_pid : -1;
	if (from >= 0 && last[sig].forward != forward && last[sig].sender == from &&
	    now - last[sig].ns < FXT_FORWARD_WINDOW_NS &&
	    __atomic_exchange_n(&last[sig].armed, 0, __ATOMIC_RELAXED))
		return 1;
	last[sig].sender = from;
	last[sig].forward = forward;
	last[sig].ns = now;
	__atomic_store_n(&last[sig].armed, 1, __ATOMIC_RELAXED);
	if (forward) {
		si->si_code = SI_USER;
		si->si_pid = from;
		si->si_value.sival_ptr = NULL;
	}
	return 0;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	if (ours[sig] && !is_fault[sig] && duplicate(sig, si)) {
		errno = saved;
		return;
	}
	struct sigaction *a = &app[sig];
	if (has_handler(a)) {
		struct sigaction h = *a;
		if (h.sa_flags & SA_RESETHAND) {	/* managed: emulated, ours stays for the next
							 * one; else the kernel reset ours too */
			a->sa_handler = SIG_DFL;
			a->sa_flags = 0;
			wrapped[sig] = 0;
		}
		errno = saved;
		fxtp_sig_run(&h, sig, si, uc);
		return;
	}
	if (!ours[sig] || a->sa_handler == SIG_IGN) {	/* changed by another thread meanwhile */
		errno = saved;
		return;
	}
	fxtp_sig_fatal = 1;
	fxtp_finish(1);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	ours[sig] = 0;
	/* A fault raised by the CPU recurs when we return; any other signal is sent again, and
	 * stays pending (blocked in this handler) until we return. */
	if (si->si_code <= 0 || !is_fault[sig])
		syscall(SYS_tgkill, getpid(), gettid(), sig);
	errno = saved;
}

/* Installs our handler for sig as the kernel's disposition, with the program's flags and mask
 * (SA_RESETHAND emulated), SA_ONSTACK for faults. */
static int install(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_mask = app[sig].sa_mask;
	sa.sa_flags = (app[sig].sa_flags & ~(SA_RESETHAND | SA_SIGINFO)) | SA_SIGINFO;
	if (is_fault[sig])
		sa.sa_flags |= SA_ONSTACK;
	if (!has_handler(&app[sig]))
		sa.sa_flags |= SA_RESTART;	/* a dropped forward interrupts nothing */
	return real_sigaction(sig, &sa, NULL);
}

static int manage(int sig)
{
	if (real_sigaction(sig, NULL, &app[sig]) < 0)
		return -errno;
	ours[sig] = 1;
	if (app[sig].sa_handler == SIG_IGN)
		return 0;	/* ignored before we came: left so until the program changes it */
	return install(sig) < 0 ? -errno : 0;
}

int fxtp_signals_init(void)
{
	int rc;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		is_fault[fatal[i]] = 1;
		if ((rc = manage(fatal[i])) < 0)
			return rc;
	}
	for (size_t i = 0; i < sizeof(term) / sizeof(term[0]); i++)
		if ((rc = manage(term[i])) < 0)
			return rc;
	return 0;
}

/* The program's new disposition: kept in app[], and in the kernel ours (or SIG_IGN). */
static int set_app(int sig, const struct sigaction *act)
{
	struct sigaction prev = app[sig];
	app[sig] = *act;
	int rc = act->sa_handler == SIG_IGN ? real_sigaction(sig, act, NULL) : install(sig);
	if (rc < 0)
		app[sig] = prev;
	return rc;
}

/* Another signal: a program handler is installed as on_signal (the program's flags and mask,
 * plus SA_SIGINFO; SA_RESETHAND resets ours in the kernel), anything else as it is. */
static int set_other(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev_app = app[sig], prev;
	int was = wrapped[sig];
	if (act && has_handler(act)) {
		struct sigaction mine = *act;
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

/* Not thread-safe for one signal against itself (two threads setting the same signal at
 * once may report each other's disposition as old); async-signal-safe. */
FXTP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real_sigaction(sig, act, old);
	if (!ours[sig])
		return set_other(sig, act, old);
	struct sigaction prev = app[sig];
	if (act && set_app(sig, act) < 0)
		return -1;
	if (old)
		*old = prev;
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
