/* Clocks shared by the preload and the manager: CLOCK_MONOTONIC in nanoseconds, whether the CPU has
 * an invariant TSC (then the preload timestamps with rdtsc and the manager can calibrate the same
 * counter), a reading of both at one instant, and the one ticks-per-second formula. Header-only, no state; safe in any thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_CLOCK_H
#define FXT_COMMON_CLOCK_H

#include <cpuid.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

static inline uint64_t fxt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The rate of a counter that advanced `ticks` while CLOCK_MONOTONIC advanced ns (> 0)
 * nanoseconds: ticks per second, rounded down (128-bit product: no overflow for any run).
 * Fails: never (ns must not be 0). Async-signal-safe. */
static inline uint64_t fxt_ticks_per_second(uint64_t ticks, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / ns);
}

/* A reading of the TSC and CLOCK_MONOTONIC at the same instant: *ticks is the midpoint of two TSC
 * reads around the clock read, off by at most *width / 2 ticks; the narrowest of 8 tries (a
 * preempted try is wide). Fails: never. Async-signal-safe. */
static inline void fxt_tsc_pair(uint64_t *ticks, uint64_t *ns, uint64_t *width)
{
	*width = UINT64_MAX;
	*ticks = *ns = 0;	/* the first try always replaces them */
	for (int i = 0; i < 8; i++) {
		uint64_t a = __rdtsc(), n = fxt_mono_ns(), b = __rdtsc();
		if (b - a < *width) {
			*width = b - a;
			*ticks = a + (b - a) / 2;
			*ns = n;
		}
	}
}

/* 1 when CPUID reports an invariant TSC (leaf 0x80000007, EDX bit 8). */
static inline int fxt_invariant_tsc(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

#endif
