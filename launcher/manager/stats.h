/* What an archive holds, as the trace manager counts it (launcher/manager/manager.c and
 * saver.c) for the summary (summary.c) and the service's REPLY: one struct, no code. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_MANAGER_STATS_H
#define FXT_LAUNCHER_MANAGER_STATS_H

#include <stdint.h>

/* What the archive holds. */
struct fxt_manager_stats {
	uint64_t processes;	/* providers in the archive */
	uint64_t threads;	/* thread kernel object records */
	uint64_t events;	/* event records */
	uint64_t bytes;		/* archive size */
	uint64_t dropped;	/* records the providers dropped */
	uint32_t drop_reasons;	/* why (enum fxt_buf_drop_reason bits) */
	uint64_t overwritten;	/* providers whose circular buffer wrapped (oldest records gone) */
	uint64_t overwritten_records;	/* about how many records they overwrote (chunks
					 * overwritten x records per kept chunk) */
	uint64_t kept_ns, span_ns;	/* of the one that kept the shortest window: its last
					 * kept_ns of span_ns recorded (0: none wrapped) */
	uint64_t saved;		/* bytes saved while running (streaming) */
	uint64_t refused;	/* providers refused (unknown protocol version) */
	uint64_t impostors;	/* connections refused: STARTED for a pid not the peer's own */
	uint64_t corrupt;	/* providers whose data ended at a bad record (launcher/manager/vet.h) */
	uint64_t untraced;	/* processes that could not get a buffer (FXT_SESSION_UNTRACED_SUFFIX) */
	int untraced_errno;	/* why, for the first of them */
	int untraced_pid;	/* the first of them, and its program */
	char untraced_name[64];
	uint64_t shed;		/* processes that exec'd without the preload (the same files) */
	int shed_pid;		/* the first of them, and what it exec'd */
	char shed_path[200];
	int corrupt_pid;	/* the first of them, and why */
	char corrupt_why[200];
};

#endif
