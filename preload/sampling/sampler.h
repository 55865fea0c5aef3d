/* Sampled call stacks (sampler.c: perf task-clock timers, signal handler, raw stack pool;
 * sample-records.c: slices and raw stack records written at flush). The handler stores raw program
 * counters only; everything else happens at flush, outside any handler. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SAMPLE_H
#define FXT_PRELOAD_SAMPLE_H

#include <stdint.h>

#define FXTP_SAMPLE_MAX_DEPTH 128u

/* The raw pool: blocks of FXTP_SAMPLE_BLOCK_WORDS words, each owned by one thread. A block is
 * { tid, used, samples... }; a sample is { ts, n | epoch << 32, pc[0] (interrupted pc),
 * pc[1..n) (return addresses, callers outward) }, epoch the value of fxtp_sampling.epoch when
 * it was taken. used (words after the 2-word block header) is published with release after
 * each whole sample. */
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
	uint32_t epoch;			/* objects unloaded so far (sample-records.c; atomic) */
};
extern struct fxtp_sampling fxtp_sampling;

/* Starts sampling the process (after the tracer runs), or again after a stop (a registered
 * process's next trace: the pool starts over): one warning line and no sampling on failure.
 * Not thread-safe (constructor, provider thread). */
void fxtp_sample_start(void);
/* Stops the handler from recording (every thread). Async-signal-safe. */
void fxtp_sample_stop(void);
/* Notes an object dlclose unloaded: its file (NULL: unknown), its span [lo, hi) (from its first
 * PT_LOAD segment's aligned start) and load bias. The samples taken until now with a pc in the
 * span are named from that file at flush, whatever is mapped there later. Fails: silently (a
 * file that cannot be kept or read: those pcs are named 0x<pc>). Not async-signal-safe; called
 * by names.c's dlclose with the intern lock held (one caller at a time). */
void fxtp_samples_unloaded(const char *path, uintptr_t lo, uintptr_t hi, uintptr_t base);
/* Writes the samples taken before stop (ticks) into the buffer: raw stack records and slices.
 * Stops sampling first. Not async-signal-safe (symbolizes, allocates): never from a signal. */
void fxtp_samples_flush(uint64_t stop);

#endif
