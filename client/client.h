/* The trace client's library (fxt_client), used by `fxt report`, `fxt json`, `fxt stats`: a keyed
 * table, time parsing/formatting, an exact two-pass profile aggregator (per-function and call-tree
 * figures from the spans of each thread, in runs that may come in any order), and a streaming
 * Catapult JSON converter. Memory grows with distinct keys (functions, paths, threads, objects),
 * stack depth and runs, never with the number of calls or callees. Nothing here prints diagnostics
 * or exits; one object per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_CLIENT_H
#define FXT_CLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "fxt/reader.h"

/* The time of ticks as every reading command shows it: CLOCK_MONOTONIC ns by the current
 * provider's clock record, else ns at its initialization record's rate (fxt_reader_mono_ns()).
 * Fails: never. */
static inline uint64_t fxt_client_ns(const struct fxt_reader *r, uint64_t ticks)
{
	uint64_t ns;
	fxt_reader_mono_ns(r, ticks, &ns);
	return ns;
}

/* ---- keyed table (hashtab.c): entries of a fixed size that begin with a struct ckey ---- */
struct ckey {
	uint64_t a, b;
	struct fxt_sv s;
};

struct ctab {
	size_t esize;		/* entry size, >= sizeof(struct ckey) */
	uint32_t n, cap;	/* entries used / slots in idx (power of two) */
	uint32_t *idx;		/* slot -> entry index + 1, 0 when free */
	unsigned char *ents;	/* n entries of esize bytes, in insertion order */
	uint32_t ents_cap;
};

/* Zeroed entries of esize bytes. Returns 0 or -ENOMEM. Not thread-safe. */
int ctab_init(struct ctab *t, size_t esize);
void ctab_free(struct ctab *t);
/* Index of the entry with key k, created zeroed (key set) when missing and create != 0.
 * Returns -1 when missing and not created, -2 (ENOMEM) when creation failed. */
int64_t ctab_get(struct ctab *t, const struct ckey *k, int create);
static inline void *ctab_at(const struct ctab *t, uint32_t i)
{
	return t->ents + (size_t)i * t->esize;
}
int sv_eq(struct fxt_sv x, struct fxt_sv y);

/* ---- time (timefmt.c) ---- */
/* Parses "10ms", "1.5s", "250us", "42ns", "42" (ns). Returns 0 or -EINVAL. */
int fxt_time_parse(const char *s, uint64_t *ns);
/* Writes ns in the unit that keeps 1-4 integer digits ("812 ns", "12.345 us", "1.200 s").
 * Returns buf. */
char *fxt_time_fmt(char *buf, size_t len, uint64_t ns);

struct fxt_oncpu;	/* oncpu.c, below */

/* ---- profile aggregation (profile.c) ---- */
enum fxt_prof_kind {
	FXT_PK_FUNC = 0,	/* duration events of the program's own categories */
	FXT_PK_LOCK = 1,	/* category "lock": lock waits, callees of the enclosing function */
	FXT_PK_SAMPLE = 2,	/* category "sample": sampled stacks, a timeline of their own */
	FXT_PK_STALL = 3,	/* category "fxtauto": the tracer's own stalls, callees too */
	FXT_PK_THREAD = 4,	/* category "pthread": pthread_create and thread_start spans */
	FXT_PK_COUNT = 5,
};

struct fxt_prof_opts {
	int per_thread;		/* rows and trees per thread instead of per process */
	int tree;		/* build the call tree too */
	uint64_t from_ns, to_ns; /* count calls with from <= start and end <= to (absolute ns) */
};

/* One aggregated row: a function (or lock object) in a process, or in a thread. */
struct fxt_prof_row {
	struct ckey key;	/* a = pid, b = tid (0 when merged), s = name */
	uint64_t calls, total, self, max;	/* self: on CPU (with fxt_prof_set_oncpu()) */
	uint64_t oncpu;		/* of total, ns on CPU (fxt_prof_set_oncpu(); else = total) */
};

/* A call-tree node: inclusive time and calls of one call path. */
struct fxt_prof_node {
	struct fxt_sv name;
	unsigned kind;		/* enum fxt_prof_kind: FUNC, LOCK, STALL, THREAD or SAMPLE */
	uint64_t calls, total, self;
	uint32_t child, sibling; /* node indexes + 1, 0 = none */
};

/* A tree root: one per process (or thread with per_thread). */
struct fxt_prof_root {
	struct ckey key;	/* a = pid, b = tid or 0 */
	uint32_t node;		/* node index + 1 of a nameless root, 0 = none yet */
};

struct fxt_prof;

/* The input is given twice (three times, see fxt_prof_rescan()), in the same order: pass 1 finds
 * the spans that may enclose spans of other runs, fxt_prof_rescan() sorts them, pass 2 counts.
 * A run is a stretch of one thread's spans written one after the other (kind SAMPLE apart from
 * the others); runs of a thread may come in any order. Nesting is by time interval per thread,
 * whatever the order of spans in a run. Memory: one run of at most 4096 spans, the spans open
 * at each run's first end (every span of a thread whose runs interleave in time), rows and
 * distinct tree paths. Every function below: one profile per thread. */

/* Returns 0 or -ENOMEM. */
int fxt_prof_new(struct fxt_prof **out, const struct fxt_prof_opts *o);
/* Rows get their on-CPU time from o (finished; owned by the caller, alive until
 * fxt_prof_finish()): self times become on-CPU self times, and each thread's time off CPU
 * becomes rows "[preempted]" and "[blocked]" of kind FUNC. Call before pass 2. Fails: never. */
void fxt_prof_set_oncpu(struct fxt_prof *p, const struct fxt_oncpu *o);
void fxt_prof_free(struct fxt_prof *p);
/* A call that ended (complete event). object labels lock waits. Fails: -ENOMEM, -EINVAL for
 * a kind out of range. */
int fxt_prof_span(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		  struct fxt_sv name, struct fxt_sv object, uint64_t start, uint64_t end);
/* Begin/end events: a begin opens a frame on the thread, an end closes the innermost one (the
 * span is placed where its end is). Fails as fxt_prof_span(). */
int fxt_prof_begin(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		   struct fxt_sv name, struct fxt_sv object, uint64_t ts);
int fxt_prof_end(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		 uint64_t ts);
/* The spans that follow may be another stretch of their thread (a thread record starts every
 * chunk; a record left out by a filter). Fails: -ENOMEM. */
int fxt_prof_cut(struct fxt_prof *p);
/* Ends pass 1 (pass 1's name views may die once it returns: what is kept is copied); pass 2 takes
 * views that live until fxt_prof_free(). Pass 2 counts calls with from_ns <= start and end <= to_ns
 * (0: no end). Returns 0, or 1 when pass 1 must be given again first (then call this again):
 * a thread whose runs interleave in time (a signal handler's calls in a chunk of their own)
 * keeps all its spans as possible parents, which pass 1 learns only at its end. Fails: -ENOMEM,
 * -EINVAL when called after pass 1 ended. */
int fxt_prof_rescan(struct fxt_prof *p, uint64_t from_ns, uint64_t to_ns);
/* Ends pass 2. Call once before reading results. Fails: -ENOMEM, -EINVAL before a rescan. */
int fxt_prof_finish(struct fxt_prof *p);
/* Rows of one kind, in an array owned by p. Call after fxt_prof_finish(); sorting it (below)
 * ends all further input. */
struct fxt_prof_row *fxt_prof_rows(struct fxt_prof *p, enum fxt_prof_kind k, size_t *n);
/* Frames opened by begin events and never ended (not counted). */
uint64_t fxt_prof_unclosed(const struct fxt_prof *p);
/* Spans pass 1 kept as possible parents of other runs' spans (what memory grows with). */
uint64_t fxt_prof_cross(const struct fxt_prof *p);
/* Tree roots (kind FUNC or SAMPLE) and node access. */
struct fxt_prof_root *fxt_prof_roots(struct fxt_prof *p, enum fxt_prof_kind k, size_t *n);
const struct fxt_prof_node *fxt_prof_node(const struct fxt_prof *p, uint32_t idx1);

enum fxt_prof_sort { FXT_SORT_SELF, FXT_SORT_TOTAL, FXT_SORT_CALLS, FXT_SORT_AVG,
		     FXT_SORT_MAX, FXT_SORT_NAME, FXT_SORT_ONCPU, FXT_SORT_OFFCPU };
/* Sorts rows by process, then thread, then the key (descending figures, ascending names). */
void fxt_prof_sort(struct fxt_prof_row *rows, size_t n, enum fxt_prof_sort by);

/* ---- on-CPU time from context switch records (oncpu.c) ---- */
struct fxt_oncpu;
/* Returns 0 or -ENOMEM. */
int fxt_oncpu_new(struct fxt_oncpu **out);
void fxt_oncpu_free(struct fxt_oncpu *o);
/* One context switch at ts_ns: thread out leaves the CPU in FXT thread state out_state
 * (FXT_THREAD_STATE_RUNNING: preempted; else blocked), thread in takes it (tid 0: not a thread
 * of the trace). Fails: -ENOMEM, -EINVAL after fxt_oncpu_finish(). */
int fxt_oncpu_switch(struct fxt_oncpu *o, const struct fxt_koids *out, uint32_t out_state,
		     const struct fxt_koids *in, uint64_t ts_ns);
/* Switch records given so far. */
uint64_t fxt_oncpu_switches(const struct fxt_oncpu *o);
/* Ends input: builds each thread's on-CPU intervals. Fails: -ENOMEM, -EINVAL when called twice. */
int fxt_oncpu_finish(struct fxt_oncpu *o);
/* On-CPU ns of thread tid within [start, end] (ns); end - start for a thread without switches
 * or before fxt_oncpu_finish(). Fails: never. */
uint64_t fxt_oncpu_time(const struct fxt_oncpu *o, uint64_t tid, uint64_t start, uint64_t end);
/* The FXT thread state of a thread switched out while it could still run (preempted). */
#define FXT_THREAD_STATE_RUNNING 1u
/* A thread's off-CPU time: [0] preempted, [1] blocked (or any other state). */
struct fxt_offcpu {
	uint64_t pid, tid;	/* pid as the switch records give it (0 when they name no process) */
	uint64_t stretches[2], ns[2], max[2];
};
/* Threads with switch records (after fxt_oncpu_finish()). */
size_t fxt_oncpu_threads(const struct fxt_oncpu *o);
/* Thread i's off-CPU stretches (switch out to the next switch in) lying in [from, to] (ns).
 * Call after fxt_oncpu_finish(), i < fxt_oncpu_threads(). Fails: never. */
void fxt_oncpu_offcpu(const struct fxt_oncpu *o, size_t i, uint64_t from, uint64_t to,
		      struct fxt_offcpu *out);

/* ---- reading an archive (drive.c) ---- */
enum fxt_client_status {
	FXT_CS_OK = 0,		/* clean end */
	FXT_CS_TRUNCATED,	/* last record cut short: everything before it was read (warn) */
	FXT_CS_CORRUPT,		/* malformed record: read up to it */
	FXT_CS_OPEN,		/* cannot open or map the file, or not an FXT archive */
	FXT_CS_CALLBACK,	/* the callback failed (err holds its negative errno) */
};

struct fxt_client_result {
	enum fxt_client_status status;
	int err;			/* negative errno for OPEN and CALLBACK */
	struct fxt_read_error where;	/* TRUNCATED and CORRUPT: offset and reason */
	struct fxt_reader_stats stats;	/* counters at the end of the read */
	struct fxt_reader *reader;	/* kept open (views stay valid) until fxt_client_close() */
};

typedef int (*fxt_client_fn)(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec);

/* Reads the archive at path (a file, or a pipe read into memory) record by record, calling fn
 * for each (the magic number record first: a file without it is refused as FXT_CS_OPEN, err
 * -EINVAL; an empty one as FXT_CS_OPEN, err -ENODATA). Returns res->status. */
int fxt_client_read(const char *path, fxt_client_fn fn, void *ctx, struct fxt_client_result *res);
/* Reads the same bytes again from the first record (fxt_reader_rewind() of res->reader: a
 * pipe is not read twice), calling fn for each. Views from the first read stay valid until
 * fxt_client_close(). Returns res->status (FXT_CS_CALLBACK, err -ENOMEM, when the tables
 * cannot be made again). */
int fxt_client_reread(fxt_client_fn fn, void *ctx, struct fxt_client_result *res);
/* Closes the reader of a read (string views die with it). Accepts a result with none. */
void fxt_client_close(struct fxt_client_result *res);
/* One line (no newline) describing a result that is not FXT_CS_OK (the exit status is the
 * launcher's: launcher/cmd.h). Returns msg. */
const char *fxt_client_message(const struct fxt_client_result *res, const char *path, char *msg,
			       size_t len);

/* ---- Catapult JSON (json.c) ---- */
struct fxt_json;

/* Writes to out (which the caller owns and closes). Returns 0 or -ENOMEM. */
int fxt_json_new(struct fxt_json **out, FILE *f);
/* Converts one record (others are ignored). r converts ticks. Returns 0 or -EIO. */
int fxt_json_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec);
/* Closes the JSON document and flushes. Returns 0 or -EIO. */
int fxt_json_finish(struct fxt_json *j);
void fxt_json_free(struct fxt_json *j);
/* Events written so far. */
uint64_t fxt_json_events(const struct fxt_json *j);

#endif
