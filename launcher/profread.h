/* The reading half of `fxt report` and `fxt flame` (profread.c): an archive streamed through
 * the exact profile aggregator (client/profile.c) in its passes, with the events sorted into
 * kinds (functions, lock waits, sampled stacks, tracer stalls, thread spans), lock objects
 * named, context switches turned into on-CPU time, the selection (client/selection.c)
 * applied, and what the archive says it lost counted. Memory: as client/profile.c, plus the
 * names of kernel and userspace objects. One object per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_PROFREAD_H
#define FXT_LAUNCHER_PROFREAD_H

#include <stdint.h>
#include <stdio.h>

#include "client/client.h"

struct profread {
	struct fxt_prof *prof;
	struct ctab names;	/* a = kernel object type, b = koid -> name */
	struct ctab uobjs;	/* a = process koid, b = pointer -> name */
	struct ctab labels;	/* join wait labels made here: key.s owned (malloc) */
	struct fxt_sel sel;	/* --pid, --tid, --since/--until (--from/--to): the caller's */
	uint64_t start_ns;	/* first pass: the trace start (earliest event time) */
	uint64_t matched;	/* events that passed --pid/--tid */
	uint64_t dropped;	/* records the archive says were dropped */
	uint64_t overwritten, wrapped;	/* about how many records circular buffers overwrote,
					 * and how many buffers wrapped */
	uint64_t kept_ns;	/* the shortest span such a buffer kept */
	uint64_t untraced;	/* processes the archive says ran untraced */
	struct fxt_oncpu *oncpu;	/* context switches (pass 1), or NULL: none recorded */
	int pass2;
};

/* Reads path (FILE as given: cmd_input() is applied) into pr->prof, made with options po (its
 * window comes from pr->sel, which the caller filled and checked; start_ns must be UINT64_MAX).
 * cmd names the command in messages ("fxt CMD: ..."). Returns 0 when the figures are ready
 * (res->status may still be TRUNCATED or CORRUPT: what precedes the problem), or 1 when there
 * is nothing to show: *code holds the exit status so far (0 when res says why). Either way
 * profread_close() ends it. */
int profread_run(struct profread *pr, const char *cmd, const char *path,
		 const struct fxt_prof_opts *po, struct fxt_client_result *res, int *code);
/* The name of kernel object koid of type FXT_OBJ_TYPE_* ("" when unnamed). */
struct fxt_sv profread_name(struct profread *pr, unsigned type, uint64_t koid);
/* What the figures miss, as the archive says (records dropped, buffers overwritten, processes
 * untraced): notes to f, each after an empty line. */
void profread_print_loss(const struct profread *pr, FILE *f);
/* Says why a read did not end cleanly (res), frees pr and closes res. Returns the exit status:
 * code or the read's, whichever is higher. */
int profread_close(struct profread *pr, const char *cmd, const char *path,
		   struct fxt_client_result *res, int code);

#endif
