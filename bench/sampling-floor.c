/* The floor of bench/sampling.sh: what the kernel alone costs for sampling at FXT_SAMPLE Hz
 * (default 997). Preloaded, it opens the same perf task-clock event fxtauto opens (signal on
 * each period of the process's user CPU time, inherited by new threads) with a handler that
 * only counts: no stack walk, no pool, no archive. The difference between this and fxtauto's
 * FXT_SAMPLE row is fxtauto's own share. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long signals;

static void on_trap(int sig)
{
	(void)sig;
	signals++;
}

__attribute__((constructor)) static void floor_init(void)
{
	const char *rate = getenv("FXT_SAMPLE");
	long hz = rate && *rate ? atol(rate) : 997;
	if (hz <= 0)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ULL / (unsigned long)hz;
	a.inherit = 1;
	a.inherit_thread = 1;
	a.remove_on_exec = 1;
	a.sigtrap = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}
