/* The floor of bench/calls.sh: the least an exit-time tracer can do per call. Preloaded as
 * the -finstrument-functions hooks, it reads the TSC at entry and exit and stores 24 bytes
 * (start, end, function) per call into a per-thread ring; nothing else (no names, no file). */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <x86intrin.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))
#define TLS __thread __attribute__((tls_model("initial-exec")))

enum { STACK = 1024, RING = 4096 };	/* both powers of two */

struct rec {
	uint64_t start, end;
	void *fn;
};

static TLS uint64_t starts[STACK];
static TLS unsigned depth;
static TLS unsigned pos;
static TLS struct rec ring[RING];

EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn, (void)site;
	starts[++depth & (STACK - 1)] = __rdtsc();
}

EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct rec *r = &ring[pos++ & (RING - 1)];
	r->start = starts[depth-- & (STACK - 1)];
	r->end = __rdtsc();
	r->fn = fn;
}
