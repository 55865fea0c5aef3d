/* Sampling timers and the sample signal handler. One perf_event task-clock counter per process,
 * inherited by every thread created later (inherit_thread), sends SIGTRAP (sigtrap, TRAP_PERF)
 * to the thread whose own on-CPU user time crossed the period: a thread off CPU takes no
 * sample, and no thread needs a setup hook (unmodified programs have none). The handler walks
 * the interrupted stack with libunwind (memory from mmap, no lock) and appends { ts, n, pcs }
 * to its thread's block of the raw pool: no malloc, no lock, no symbolization; errno kept.
 * A sample taken while its thread is inside the tracer is dropped silently; a full pool counts
 * lost samples. Threads that exist before the constructor are not sampled (the event is
 * inherited by threads created later); a fork child opens its own; exec starts over. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "preload/base/real.h"
#include "preload/base/fxtp.h"
#include "preload/sampling/sampler.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define HANDLER_FRAMES 8 /* the handler's frames above the interrupted one, at most */
#define SIG_DATA 0x66787473616d706cULL /* "fxtsampl": marks our perf event's SIGTRAPs */

struct fxtp_sampling fxtp_sampling = { .fd = -1 };
static FXTP_TLS struct fxtp_sblock *cur;	/* this thread's block, or NULL */
static FXTP_TLS uint32_t cur_round;		/* the round cur was taken in */
static uint32_t round_no;	/* bumped when a new trace reuses the pool from its start */

/* A block with room for one sample of the deepest stack: the current one or a new one. */
static struct fxtp_sblock *block_for_sample(void)
{
	struct fxtp_sblock *b = cur;
	if (cur_round != __atomic_load_n(&round_no, __ATOMIC_ACQUIRE)) {
		cur_round = __atomic_load_n(&round_no, __ATOMIC_ACQUIRE);
		b = cur = NULL;	/* the pool started over since: that block is gone */
	}
	if (b && b->used + 2 + FXTP_SAMPLE_MAX_DEPTH + HANDLER_FRAMES <= FXTP_SAMPLE_BLOCK_WORDS - 2)
		return b;
	uint32_t i = __atomic_fetch_add(&fxtp_sampling.next, 1, __ATOMIC_RELAXED);
	if (i >= fxtp_sampling.nblocks)
		return cur = NULL;
	b = &fxtp_sampling.pool[i];
	b->tid = (uint64_t)gettid();
	b->used = 0;	/* a pool started over holds the last trace's samples */
	return cur = b;
}

/* si_perf_data (glibc's siginfo_t lacks it): the kernel's _sigfault._perf._data, the first
 * word of the union after si_addr (asm-generic/siginfo.h). */
static uint64_t perf_data(const siginfo_t *si)
{
	uint64_t d;
	memcpy(&d, (const char *)&si->si_addr + sizeof(void *), sizeof(d));
	return d;
}

/* Writes the interrupted stack, its innermost FXTP_SAMPLE_MAX_DEPTH frames, into pcs (room for
 * FXTP_SAMPLE_MAX_DEPTH + HANDLER_FRAMES): libunwind's fast trace from here (its per-address
 * frame cache), through the signal frame, then the handler's own frames are dropped; the
 * slower cursor walk from the signal context if the interrupted pc is not found. Returns the
 * number of pcs. */
static uint32_t walk(uint64_t *pcs, const ucontext_t *uc)
{
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	int got = unw_backtrace((void **)pcs, FXTP_SAMPLE_MAX_DEPTH + HANDLER_FRAMES);
	for (int k = 0; k < got && k <= HANDLER_FRAMES; k++)
		if (pcs[k] == rip) {
			int n = got - k < (int)FXTP_SAMPLE_MAX_DEPTH ? got - k : (int)FXTP_SAMPLE_MAX_DEPTH;
			memmove(pcs, pcs + k, (size_t)n * sizeof(*pcs));
			return (uint32_t)n;
		}
	unw_cursor_t c;
	uint32_t n = 0;
	if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
		do {
			unw_word_t ip;
			if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			pcs[n++] = ip;
		} while (n < FXTP_SAMPLE_MAX_DEPTH && unw_step(&c) > 0);
	}
	return n;
}

static void on_sample(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	if (si->si_code != TRAP_PERF || perf_data(si) != SIG_DATA)
		return;	/* not ours (there is nothing to chain to) */
	if (!__atomic_load_n(&fxtp_sampling.active, __ATOMIC_RELAXED) || fxtp_self.in_tracer)
		return;
	int saved = errno;
	uint64_t ts = fxtp_now();
	struct fxtp_sblock *b = block_for_sample();
	if (!b) {
		__atomic_fetch_add(&fxtp_sampling.lost, 1, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
	uint64_t *s = b->w + b->used;
	uint64_t epoch = __atomic_load_n(&fxtp_sampling.epoch, __ATOMIC_ACQUIRE);
	uint32_t n = walk(s + 2, (const ucontext_t *)uc);
	if (n) {
		s[0] = ts;
		s[1] = n | epoch << 32;
		__atomic_store_n(&b->used, b->used + 2 + n, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* The process's task-clock event (disabled), inherited by the threads it creates later.
 * Returns its fd, or -errno. */
static int open_event(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ULL / fxtp_sampling.hz;
	a.inherit = 1;
	a.inherit_thread = 1;	/* threads only: a fork child opens its own (after_fork_child) */
	a.remove_on_exec = 1;
	a.sigtrap = 1;
	a.sig_data = SIG_DATA;
	a.exclude_kernel = 1;	/* allowed at perf_event_paranoid 2: user time is sampled */
	a.exclude_hv = 1;
	a.disabled = 1;
	/* The process's first thread (the constructor's, or a fork child's only one), also when
	 * a registered process starts sampling from its provider thread (manager-link.c). */
	int fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)fxtp.pid, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void enable(int fd)
{
	fxtp_sampling.fd = fd;
	__atomic_store_n(&fxtp_sampling.active, 1, __ATOMIC_RELEASE);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Fork child: the parent's samples are not the child's, and the parent's event does not
 * follow: the child starts over with a pool of its own and an event of its own. */
static void after_fork_child(void)
{
	int saved = errno;
	fxtp_sampling.active = 0;
	fxtp_sampling.next = 0;
	fxtp_sampling.lost = 0;
	cur = NULL;
	if (fxtp_sampling.fd >= 0)
		close(fxtp_sampling.fd);
	fxtp_sampling.fd = -1;
	int fd = open_event();
	if (fd >= 0)
		enable(fd);
	errno = saved;
}

void fxtp_sample_start(void)
{
	if (!fxtp_sampling.hz)
		return;
	if (fxtp_sampling.pool) {
		/* A new trace of a registered process: the pool starts over (the last trace's
		 * samples were written at its stop), the event runs again. */
		fxtp_sampling.next = 0;
		fxtp_sampling.lost = 0;
		__atomic_fetch_add(&round_no, 1, __ATOMIC_RELEASE);
		if (fxtp_sampling.fd >= 0)
			enable(fxtp_sampling.fd);
		return;
	}
	size_t bytes = fxtp.buffer_size / 4;
	if (bytes < (4u << 20))
		bytes = 4u << 20;
	void *pool = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pool == MAP_FAILED) {
		fxtp_warn("cannot sample; sampling off", strerror(errno));
		return;
	}
	fxtp_sampling.pool = pool;
	fxtp_sampling.nblocks = (uint32_t)(bytes / sizeof(struct fxtp_sblock));
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	void *prime[4];
	unw_backtrace(prime, 4);	/* its one-time setup (pthread_once, key) outside any handler */

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	fxtp_real_init();
	if (!fxtp_real.sigaction || fxtp_real.sigaction(SIGTRAP, &sa, NULL) < 0) {
		fxtp_warn("cannot sample (SIGTRAP handler); sampling off", NULL);
		return;
	}
	int fd = open_event();
	if (fd < 0) {
		fxtp_warn("cannot sample (perf_event_open task-clock); sampling off", strerror(-fd));
		return;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	enable(fd);
}

void fxtp_sample_stop(void)
{
	__atomic_store_n(&fxtp_sampling.active, 0, __ATOMIC_RELEASE);
	if (fxtp_sampling.fd >= 0)
		ioctl(fxtp_sampling.fd, PERF_EVENT_IOC_DISABLE, 0);
}
