/* The reading of an archive for `fxt report`, `fxt report --diff` (once per archive) and
 * `fxt flame` (profread.c): the archive streamed through the exact profile aggregator
 * (client/profile.c) in its passes, with the events sorted into kinds (functions, lock waits,
 * sampled stacks, tracer stalls, thread spans), lock objects named, context switches turned
 * into on-CPU time, the selection (client/selection.c) applied, and what the archive says it
 * lost counted. Memory: as client/profile.c, plus the names of kernel and userspace objects,
 * views into the read's bytes (res). One object per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_PROFREAD_H
#define FXT_LAUNCHER_PROFREAD_H

#include <stdint.h>
#include <stdio.h>

#include "client/client.h"

struct profread {
	struct fxt_prof *prof;
	struct fxt_client_result res;	/* the read: its bytes hold the names below */
	struct ctab names;	/* a = kernel object type, b = koid -> name */
	struct ctab uobjs;	/* a = process koid, b = pointer -> name */
	struct ctab labels;	/* join wait labels made here: key.s owned (malloc) */
	struct fxt_sel sel;	/* --pid, --tid, --since/--until: the caller's (it frees it);
				 * from_ns / to_ns resolved here against this archive's start */
	uint64_t start_ns;	/* first pass: the trace start (earliest event time) */
	uint64_t matched;	/* events that passed --pid/--tid */
	uint64_t dropped;	/* records the archive says were dropped */
	uint64_t overwritten, wrapped;	/* about how many records circular buffers overwrote,
					 * and how many buffers wrapped */
	uint64_t kept_ns;	/* the shortest span such a buffer kept */
	uint64_t untraced;	/* processes the archive says ran untraced */
	uint64_t corrupt;	/* processes whose data the archive says ended early (corrupt) */
	struct fxt_oncpu *oncpu;	/* context switches (pass 1), or NULL: none recorded */
	int pass2;
	struct fxt_sv last_cat;		/* the category of the last duration event */
	enum fxt_prof_kind last_kind;	/* and its kind (an indexed category is one view) */
};

/* Reads path (FILE as given: cmd_input() is applied) into pr->prof, made with options po: pass 1
 * (the trace start, context switches, the notes of loss, the spans that enclose other runs'
 * spans), pass 1 again while the aggregator asks, the window, pass 2 (the figures). pr: zeroed
 * but for sel (filled and checked by the caller) and start_ns (UINT64_MAX). cmd names the
 * command in messages ("fxt CMD: ..."). Returns 0 with the figures ready (pr->res.status OK,
 * or TRUNCATED / CORRUPT: the figures of what precedes the problem), else the exit status:
 * the read stopped (pr->res says why: profread_status() says it), or one line was printed
 * (out of memory, a window that cannot be, threads that are not in the archive). Either way
 * profread_free() ends it. */
int profread_load(struct profread *pr, const char *cmd, const char *path,
		  const struct fxt_prof_opts *po);
/* The name of kernel object koid of type FXT_OBJ_TYPE_* ("" when unnamed). */
struct fxt_sv profread_name(struct profread *pr, unsigned type, uint64_t koid);
/* What the figures miss, as the archive says (records dropped, buffers overwritten, processes
 * untraced, data corrupt): notes to f, each after an empty line. */
void profread_print_loss(const struct profread *pr, FILE *f);
/* Out of memory after or while reading: "fxt CMD: out of memory", and the read says nothing
 * more. Returns CMD_EXIT_ERROR. */
int profread_no_memory(struct profread *pr, const char *cmd);
/* The call tree's temporary file failed (err: a negative errno, not -ENOMEM): "fxt CMD: the
 * call tree's temporary file in $TMPDIR: REASON", and the read says nothing more. Returns
 * CMD_EXIT_ERROR. */
int profread_tree_error(struct profread *pr, const char *cmd, int err);
/* Says why the read did not end cleanly (one line on stderr; none when it did). Returns the
 * exit status: code or the read's, whichever is higher. */
int profread_status(const struct profread *pr, const char *cmd, const char *path, int code);
/* Frees what profread_load() made and closes the read; not pr->sel (the caller's, which copies
 * of pr may share). */
void profread_free(struct profread *pr);

#endif
