/* Sampled call stacks (sample.c: perf task-clock timers, signal handler, raw stack pool;
 * samples.c: slices and raw stack records written at flush). The handler stores raw program
 * counters only; everything else happens at flush, outside any handler. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SAMPLE_H
#define FXT_PRELOAD_SAMPLE_H

#include <stdint.h>

#define FXTP_SAMPLE_MAX_DEPTH 128u

/* The raw pool: blocks of FXTP_SAMPLE_BLOCK_WORDS words, each owned by one thread. A block is
 * { tid, used, samples... }; a sample is { ts, n, pc[0] (interrupted pc), pc[1..n) (return
 * addresses, callers outward) }. used (words after the 2-word block header) is published with
 * release after each whole sample. */
#define FXTP_SAMPLE_BLOCK_WORDS 2048u
struct fxtp_sblock {
	uint64_t tid;
	uint64_t used;
	uint64_t w[FXTP_SAMPLE_BLOCK_WORDS - 2];
};

struct fxtp_sampling {
	unsigned hz;			/* 0: sampling off */
	int active;			/* the handler records */
	int fd;				/* the perf event (inherited by new threads), or -1 */
	struct fxtp_sblock *pool;
	uint32_t nblocks;		/* capacity */
	uint32_t next;			/* blocks taken (atomic) */
	uint64_t lost;			/* samples dropped: pool full (atomic) */
};
extern struct fxtp_sampling fxtp_sampling;

/* Starts sampling the process (after the tracer runs): one warning line and no sampling on
 * failure. Not thread-safe (constructor). */
void fxtp_sample_start(void);
/* Stops the handler from recording (every thread). Async-signal-safe. */
void fxtp_sample_stop(void);
/* Writes the samples taken before stop (ticks) into the buffer: raw stack records and slices.
 * Stops sampling first. Not async-signal-safe (symbolizes, allocates): never from a signal. */
void fxtp_samples_flush(uint64_t stop);

#endif
