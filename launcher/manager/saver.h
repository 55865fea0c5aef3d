/* Archive writing of the trace manager (launcher/manager/saver.c): each provider's records go from its
 * shared buffer straight into the one archive file, in sections: [provider section] [durable
 * records new since the last save] [chunk records new since the last save], the first time
 * preceded by provider info, initialization, clock and process records. Streaming saves and the final
 * sweep use the same code, so a record is written exactly once and never copied again (no spool
 * file). Used by manager.c; single-threaded. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_SAVER_H
#define FXT_LAUNCHER_SAVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/manager/out.h"
#include "launcher/manager/stats.h"
#include "launcher/manager/vet.h"
#include "writer/buffer.h"

/* How far a chunk (by index) was saved: its sequence number then, and the bytes written. */
struct saved_chunk {
	uint64_t seq;
	uint64_t bytes;
};

/* One traced process image (a provider) as the saver knows it. */
struct fxt_saved {
	int pid, ppid;			/* ppid 0: unknown */
	uint32_t id;			/* provider id in the archive */
	int snapshot;			/* read for a snapshot: still running, not killed */
	struct fxt_buf buf;		/* attached read-only mapping; buf.hdr = &layout (set
				 * again by each save: the struct may move) */
	struct fxt_buf_hdr layout;	/* the header as attached: the layout never read again */
	const struct fxt_buf_hdr *live;	/* the header in the mapping: counters only, untrusted */
	struct fxt_vet *vet;		/* its records' checker, NULL before the first save */
	char name[256];			/* its process name from its records, "" if none */
	struct saved_chunk *chunks;	/* nchunks entries */
	uint64_t durable_saved;		/* bytes of the durable area already in the archive */
	uint64_t init_at;		/* archive offset of its ticks-per-second word, 0: none yet */
	uint64_t kept_from;		/* circular: stamp of the oldest record the last save found
					 * (first event of the oldest chunk), 0: none */
	uint64_t kept_chunks;		/* circular: chunks holding records at the last save */
	uint64_t kept_words;		/* circular: words of records in them */
	uint64_t clock_at;		/* archive offset of its clock record's payload */
	uint64_t *koids;		/* distinct thread koids seen (for the summary) */
	size_t nkoids, koids_cap;
	struct fxt_manager_stats st;	/* what its sections hold */
};

/* The manager's own readings of the providers' clock (the TSC, or CLOCK_MONOTONIC ns without
 * one), for what a provider did not store in its header: its clock record's start (a buffer
 * read before its header was complete), its end and its ticks per second (until it stops, or
 * when it was killed). */
struct fxt_saver_clock {
	struct fxt_clock_pair start;	/* at the manager's start */
	struct fxt_clock_pair now;	/* read just before the save */
	uint64_t tps;			/* ticks per second from start to now (1e9 within 1 ms) */
};

/* Saves what provider s gained since its last save: a section of its new durable and chunk
 * records (none if nothing is new). cutoff: leave out events stamped after it (0: none).
 * clock: the manager's readings, for the clock and initialization records of a provider that
 * has not stored its own (struct fxt_saver_clock). Every record is copied into the write buffer and vetted there (launcher/
 * vet.h) before it counts: the first bad one ends the provider's data (nothing more is saved
 * from it; fxt_vet_problem(s->vet) says why). Fails: -errno of the archive file, -ENOMEM. */
int fxt_saver_save(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		   const struct fxt_saver_clock *clock);

/* A process none of whose records are in the archive (it ran untraced: no buffer, an exec
 * without the preload; or its buffer header was unreadable), said in the archive in the
 * section of provider `id` (the manager's own, past every process's id): with first, that
 * provider's prologue ("fxtrun", the manager's clock); then the process record of pid named
 * `name` and an instant `event` ("process not traced", "provider data corrupt"; category
 * fxtauto, argument `reason`: why) at the clock's now. Fails: -errno (the archive's write
 * error). */
int fxt_saver_note(struct fxt_out *o, uint32_t id, const struct fxt_saver_clock *clock, int first,
		   int pid, const char *name, const char *event, const char *why);

/* Ends provider s: a last save (events stamped after cutoff or after the provider's stop left
 * out; cutoff 0: none; the durable records after a hole a killed writer left are saved too),
 * its dropped-records report (buffer-full event and count), and its final
 * ticks per second and clock pairs patched into its initialization and clock records. A provider that has not stopped
 * is reported as killed (its open calls were never ended), or, under a snapshot (s->snapshot),
 * as cut there. A provider whose data
 * ended early (a bad record) gets a buffer-full event and an instant "provider data corrupt"
 * of category fxtauto with the reason (argument "reason"), so that `fxt check` excuses what it
 * lacks. Fails: -errno. */
int fxt_saver_finish(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		     const struct fxt_saver_clock *clock);

#endif
