/* The clock of the trace: TSC ticks when the CPU has an invariant TSC, else CLOCK_MONOTONIC
 * nanoseconds (fxtp.use_tsc); its first calibration pair and fxtp_tick_gap at start, the ticks
 * per second over the whole run at the finish, and the rate so far stored in a standalone file.
 * Calls no other part of the preload (the buffer's header it writes is fxtp.buf). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/base/clock.h"

#include "common/clock.h"
#include "preload/base/fxtp.h"
#include "writer/outfile.h"

static uint64_t fxtp_t0_width;	/* ticks of uncertainty of (fxtp.t0_ticks, fxtp.t0_ns) */

#define CALIBRATE_MIN_NS 10000000ULL /* the longest calibration wait: up to 10 ms of run */
#define CALIBRATE_SPAN 4000ULL	      /* span / pair error of a calibration (see below) */
#define CALIBRATE_PAD 64ULL	      /* ticks added to the pairs' widths: reordered reads */
#define GAP_NS 50000ULL	   /* the quick calibration of fxtp_tick_gap at start */

void fxtp_clock_pair(uint64_t *ticks, uint64_t *ns, uint64_t *width)
{
	if (!fxtp.use_tsc) {
		*ticks = *ns = fxt_mono_ns();
		*width = 0;
		return;
	}
	fxt_tsc_pair(ticks, ns, width);
}

uint64_t fxtp_ticks_per_second(struct fxt_clock_pair *end)
{
	uint64_t width;
	do {
		fxtp_clock_pair(&end->ticks, &end->ns, &width);
	} while (fxtp.use_tsc && end->ns - fxtp.t0_ns < CALIBRATE_MIN_NS &&
		 end->ticks - fxtp.t0_ticks <
			 CALIBRATE_SPAN * (fxtp_t0_width + width + CALIBRATE_PAD));
	if (!fxtp.use_tsc)
		return 1000000000ULL;
	return fxt_ticks_per_second(end->ticks - fxtp.t0_ticks, end->ns - fxtp.t0_ns);
}

/* Ticks that surely put two timestamps in different nanoseconds (fxtp_after): the TSC's
 * ticks per ns rounded up, with 1/64 to spare for the quick calibration's error (50 us, pairs
 * good to a few ticks); 1 when timestamps are ns. */
static uint64_t tick_gap(void)
{
	if (!fxtp.use_tsc)
		return 1;
	uint64_t ns;
	while ((ns = fxt_mono_ns()) - fxtp.t0_ns < GAP_NS)
		;
	uint64_t tps = fxt_ticks_per_second(fxtp_now() - fxtp.t0_ticks, ns - fxtp.t0_ns);
	return (tps + tps / 64) / 1000000000ULL + 1;
}

void fxtp_clock_init(void)
{
	fxtp.use_tsc = fxt_invariant_tsc();
	fxtp_clock_pair(&fxtp.t0_ticks, &fxtp.t0_ns, &fxtp_t0_width);
	fxtp_tick_gap = tick_gap();
	if (fxtp.min_ticks && fxtp.use_tsc) {
		/* A short calibration (1 ms) converts FXT_MIN_DURATION into TSC ticks. */
		uint64_t ns;
		while ((ns = fxt_mono_ns()) - fxtp.t0_ns < 1000000)
			;
		uint64_t tps = fxt_ticks_per_second(fxtp_now() - fxtp.t0_ticks, ns - fxtp.t0_ns);
		fxtp.min_ticks = (uint64_t)((unsigned __int128)fxtp.min_ticks * tps / 1000000000ULL);
	}
}

void fxtp_refresh_tps(void)
{
	struct fxt_clock_pair now;
	uint64_t width;
	fxtp_clock_pair(&now.ticks, &now.ns, &width);
	if (fxtp.use_tsc && now.ns - fxtp.t0_ns >= 1000000)
		fxt_outfile_set_tps(&fxtp.buf,
				    fxt_ticks_per_second(now.ticks - fxtp.t0_ticks,
							 now.ns - fxtp.t0_ns),
				    &now);
}
