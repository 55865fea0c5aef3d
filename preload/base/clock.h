/* The clock of the trace (clock.c): calibration at start and at the finish. fxtp_now() and
 * fxtp_after() (the hooks' reads) are inlines in fxtp.h. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_CLOCK_H
#define FXT_PRELOAD_CLOCK_H

#include <stdint.h>

#include "writer/buffer.h"

/* Chooses the clock (TSC or CLOCK_MONOTONIC), takes its first calibration pair, sets
 * fxtp_tick_gap and converts fxtp.min_ticks from ns into ticks. Fails: never. Not thread-safe
 * (constructor). */
void fxtp_clock_init(void);
/* A (ticks, ns) pair of the same instant: fxt_tsc_pair(); without a TSC, ticks are the clock
 * itself: one read, exact (width 0). Async-signal-safe. */
void fxtp_clock_pair(uint64_t *ticks, uint64_t *ns, uint64_t *width);
/* Ticks per second over [start, now], and in *end the pair it ends at (the end of the
 * archive's clock record). The two pairs' error is at most (w0 + w1) / 2 ticks, so a span of
 * CALIBRATE_SPAN * (w0 + w1 + CALIBRATE_PAD) ticks bounds the rate's error by 1/8000 (the
 * archive's must be within 0.1%): a process that ran that long (typically under 1 ms) does not
 * wait, a shorter one spins until then, and never past CALIBRATE_MIN_NS. Async-signal-safe. */
uint64_t fxtp_ticks_per_second(struct fxt_clock_pair *end);
/* Stores the ticks-per-second measured so far and the clock reading it ends at in a standalone
 * archive file, so a killed run's file carries a calibrated clock (`fxt recover`).
 * Async-signal-safe. */
void fxtp_refresh_tps(void);

#endif
