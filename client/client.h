/* The trace client's library (fxt_client), used by `fxt report`, `fxt replay`, `fxt json`,
 * `fxt stats` and `fxt flame`: a keyed table, time parsing/formatting, the selection of
 * threads and a time window they share, an exact two-pass profile aggregator (per-function and
 * call-tree figures from the spans of each thread, in runs that may come in any order), a
 * streaming replay, a streaming Catapult JSON converter and flame graph writers. Memory grows
 * with distinct keys (functions, paths up to a tree budget, threads, objects), stack depth and
 * runs (and, for replay, its bounded wait), never with the number of calls or callees. Nothing here prints
 * diagnostics or exits; one object per thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_CLIENT_H
#define FXT_CLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "common/order.h"
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
	size_t ents_cap;	/* entries room in ents */
};

/* An empty table of zeroed entries of esize bytes (nothing allocated until the first one:
 * cannot fail). Not thread-safe. */
void ctab_init(struct ctab *t, size_t esize);
void ctab_free(struct ctab *t);
/* Frees what each entry owns (drop(entry), in insertion order), then the table. */
void ctab_free_each(struct ctab *t, void (*drop)(void *entry));
/* Index of the entry with key k, created zeroed (key set) when missing and create != 0.
 * Returns -1 when missing and not created, -2 (ENOMEM) when creation failed. */
int64_t ctab_get(struct ctab *t, const struct ckey *k, int create);
/* Keeps the first n entries (n <= t->n), the others forgotten. Fails: never. */
void ctab_truncate(struct ctab *t, uint32_t n);
static inline void *ctab_at(const struct ctab *t, uint32_t i)
{
	return t->ents + (size_t)i * t->esize;
}
/* The entry keyed by the numbers a and b alone (an empty string), created zeroed when missing
 * and create != 0. Returns NULL when missing and not created, or when creation failed (ENOMEM). */
void *ctab_ids(struct ctab *t, uint64_t a, uint64_t b, int create);
int sv_eq(struct fxt_sv x, struct fxt_sv y);
/* Byte order of the contents (a prefix first): below 0, 0 or above 0, as memcmp(). */
int sv_cmp(struct fxt_sv x, struct fxt_sv y);

/* ---- sorted arrays ---- */
/* The first index of the n elements at arr (elem bytes each, ascending by the uint64_t at byte
 * offset key of each) whose key is above x, n when none. hint: the last answer of the caller,
 * who asks about keys close to each other: taken when it is the answer, else a binary search.
 * Fails: never. */
static inline uint32_t fxt_upper_bound(const void *arr, size_t elem, size_t key, uint32_t n,
				       uint32_t hint, uint64_t x)
{
#define FXT_KEY_(i) (*(const uint64_t *)((const char *)arr + (size_t)(i) * elem + key))
	uint32_t lo = hint, hi = n;

	if (lo > hi || (lo && FXT_KEY_(lo - 1) > x) || (lo < hi && FXT_KEY_(lo) <= x))
		lo = 0;		/* not the hint's place: a binary search */
	else
		hi = lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (FXT_KEY_(mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
#undef FXT_KEY_
}

/* ---- time (timefmt.c) ---- */
/* Parses "10ms", "1.5s", "250us", "42ns", "1.200 s" (one space before the unit, as
 * fxt_time_fmt() prints), exactly (decimal digits, rounded to the nearest ns); a bare number
 * counts bare_unit ns each. Returns 0 or -EINVAL (not a time, a sign, past 2^64 ns). */
int fxt_time_parse_in(const char *s, uint64_t bare_unit, uint64_t *ns);
/* fxt_time_parse_in(s, 1, ns): a bare number is nanoseconds. */
int fxt_time_parse(const char *s, uint64_t *ns);
/* Writes ns in the unit that keeps 1-4 integer digits ("812 ns", "12.345 us", "1.200 s").
 * Returns buf. */
char *fxt_time_fmt(char *buf, size_t len, uint64_t ns);
/* Writes a time stamp (ns of the archive's clock) as seconds with nanoseconds
 * ("12986.123456789"), which fxt_time_parse_in(s, 1000000000, ...) reads back. Returns buf. */
char *fxt_time_fmt_stamp(char *buf, size_t len, uint64_t ns);

/* ---- selection: threads and a time window (selection.c) ---- */
/* The rule of every reading command: a call (span) is selected when it lies inside the window
 * (from_ns <= start, end <= to_ns), a point event when from_ns <= ts <= to_ns; threads by
 * process and thread id (an empty set: all). Time stamps are ns of the archive's clock. */
struct fxt_idset {
	uint64_t *ids;
	size_t n, cap;
};
struct fxt_when {
	uint64_t ns;	/* as given: a stamp, or ns after the trace start when rel */
	int set, rel;
};
struct fxt_sel {
	struct fxt_idset pids, tids;
	struct fxt_when since, until;
	uint64_t from_ns, to_ns;	/* after fxt_sel_resolve(): the window, [0, UINT64_MAX] */
};
/* Option codes for getopt_long (above any character) and the table entries of the four
 * options; report adds FXT_SEL_FROM / FXT_SEL_TO under --from/--to. */
enum { FXT_SEL_PID = 0x1000, FXT_SEL_TID, FXT_SEL_SINCE, FXT_SEL_UNTIL, FXT_SEL_FROM,
       FXT_SEL_TO };
#define FXT_SEL_OPTIONS                                                                    \
	{ "pid", required_argument, 0, FXT_SEL_PID },                                      \
	{ "tid", required_argument, 0, FXT_SEL_TID },                                      \
	{ "since", required_argument, 0, FXT_SEL_SINCE },                                  \
	{ "until", required_argument, 0, FXT_SEL_UNTIL }
/* The options' lines of a usage text. */
extern const char fxt_sel_usage[];
/* Takes option opt (an FXT_SEL_* code) with its argument. TIME: a stamp in seconds (a bare
 * number) or with a unit; +TIME after the trace start (--from/--to: always after it). Returns 0,
 * or -EINVAL / -ENOMEM with one line in err. */
int fxt_sel_option(struct fxt_sel *s, int opt, const char *arg, char *err, size_t len);
/* Whether --until is before --since where that is known before reading. Returns 0 or -ERANGE
 * with one line in err. */
int fxt_sel_check(const struct fxt_sel *s, char *err, size_t len);
/* What every reading command checks after its options: want archives (1 or 2) among the
 * operands left, and fxt_sel_check(). Returns 0, or -EINVAL / -ERANGE with one line in err
 * ("expected one archive (try fxt CMD --help)"). */
int fxt_sel_operands(const struct fxt_sel *s, const char *cmd, int operands, int want,
		     char *err, size_t len);
/* Whether a bound counts from the trace start (which must then be found first). */
int fxt_sel_needs_start(const struct fxt_sel *s);
/* Sets from_ns / to_ns, relative bounds counted from start_ns (UINT64_MAX: no event: 0).
 * Returns 0 or -ERANGE (until before since) with one line in err. */
int fxt_sel_resolve(struct fxt_sel *s, uint64_t start_ns, char *err, size_t len);
/* Whether the thread / the process (by --pid alone) is selected; whether a thread set / a
 * window was given. */
int fxt_sel_thread(const struct fxt_sel *s, uint64_t pid, uint64_t tid);
int fxt_sel_process(const struct fxt_sel *s, uint64_t pid);
int fxt_sel_threads(const struct fxt_sel *s);
int fxt_sel_window(const struct fxt_sel *s);
/* Whether a span [start, end] / a point lies in the window (after fxt_sel_resolve()). */
int fxt_sel_span(const struct fxt_sel *s, uint64_t start, uint64_t end);
int fxt_sel_point(const struct fxt_sel *s, uint64_t ts);
/* " of process P of thread T in the window [A, B]" (empty without a selection). Returns buf. */
char *fxt_sel_describe(const struct fxt_sel *s, char *buf, size_t len);
/* A note when a stamp given without + lies long before the trace start (a + forgotten), else
 * NULL. Returns buf or NULL. */
const char *fxt_sel_warning(const struct fxt_sel *s, uint64_t start_ns, char *buf, size_t len);
void fxt_sel_free(struct fxt_sel *s);
/* The trace start: the earliest time stamp of an event record. Lowers *start (UINT64_MAX
 * before any) with rec. Fails: never. */
void fxt_trace_start_note(uint64_t *start, const struct fxt_reader *r,
			  const struct fxt_record *rec);
/* The same as a fxt_client_fn: ctx is the uint64_t start. Returns 0. */
int fxt_trace_start_fn(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec);

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
	int edges;		/* with tree: collapse it to caller->callee pairs (its nodes are
				 * one per pair, not one per call path): see fxt_prof_callers() */
	uint64_t from_ns, to_ns; /* count calls with from <= start and end <= to (absolute ns) */
	size_t tree_budget;	/* tree without edges: bytes its nodes may take before they are
				 * written out (fxt_prof_tree()); 0: no bound */
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
	uint32_t caller;	/* edges: index + 1 of the node of this function as a caller,
				 * where its callees hang (fxt_prof_callers()); else 0 */
	uint64_t calls, total, self;
	uint64_t seq;		/* the order it was made in (fxt_prof_tree(): ties) */
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
void fxt_prof_set_oncpu(struct fxt_prof *p, struct fxt_oncpu *o);
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
 * chunk; a record left out by a filter). Fails: -ENOMEM; with tree_budget, this and the
 * input calls above also -errno of the tree's temporary file (fxt_prof_tree()). */
int fxt_prof_cut(struct fxt_prof *p);
/* Ends pass 1 (pass 1's name views may die once it returns: what is kept is copied); pass 2 takes
 * views that live until fxt_prof_free(). Pass 2 counts calls with from_ns <= start and end <= to_ns
 * (0: no end). Returns 0, or 1 when pass 1 must be given again first (then call this again):
 * a thread whose runs interleave in time (a signal handler's calls in a chunk of their own)
 * keeps all its spans as possible parents, which pass 1 learns only at its end. Fails: -ENOMEM,
 * -EINVAL when called after pass 1 ended. */
int fxt_prof_rescan(struct fxt_prof *p, uint64_t from_ns, uint64_t to_ns);
/* Ends pass 2. Call once before reading results. Fails: -ENOMEM, -EINVAL before a rescan,
 * -errno of the tree's temporary file. */
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
/* With opts edges: one node per function name as a caller (key.s the name, node its index + 1),
 * never counted: its children are its callees, each counting the calls of that pair, and the
 * spans that are not functions (lock waits, stalls, thread spans) with their own callees below
 * them. A root's children are the calls no recorded call encloses. */
struct fxt_prof_root *fxt_prof_callers(struct fxt_prof *p, size_t *n);
const struct fxt_prof_node *fxt_prof_node(const struct fxt_prof *p, uint32_t idx1);
/* Tree nodes made (indexes 1 to this). */
uint32_t fxt_prof_nodes(const struct fxt_prof *p);
struct fxt_tree;
/* The finished tree (made with tree = 1, no edges) as records (calltree.c), made on the first
 * call after fxt_prof_finish(); owned by p. With tree_budget, the nodes are written to a
 * temporary file whenever they would take more, and merged back here: the records are the
 * same whatever the budget. Returns 0, -ENOMEM or -errno of the temporary file. */
int fxt_prof_tree(struct fxt_prof *p, struct fxt_tree **out);
/* What shows before a node's name when it is not one of the program's functions:
 * "[lock wait] ", "[tracer stall] ", "[thread] ", else "". */
const char *fxt_prof_mark(unsigned kind);

enum fxt_prof_sort { FXT_SORT_SELF, FXT_SORT_TOTAL, FXT_SORT_CALLS, FXT_SORT_AVG,
		     FXT_SORT_MAX, FXT_SORT_NAME, FXT_SORT_ONCPU, FXT_SORT_OFFCPU };
/* Sorts rows by process, then thread, then the key (descending figures, ascending names). */
void fxt_prof_sort(struct fxt_prof_row *rows, size_t n, enum fxt_prof_sort by);

/* ---- the call tree as records, in bounded memory (calltree.c) ----
 * A profile's call tree in preorder: each root (one per fxt_prof_roots() entry of kind FUNC,
 * then SAMPLE, in their order), then its subtree, siblings by kind and name. A path that a
 * profile over its budget made several times (fxt_tree_spill()) is one record, its figures
 * summed. Memory: its names, and while merging one buffer per spill. */
struct fxt_tree_rec {
	uint64_t calls, total, self;
	uint64_t seq;		/* the order its path was first made in */
	uint64_t end;		/* index past its subtree */
	uint32_t key;		/* depth 0: its index in fxt_prof_roots(kind); else its name's */
	uint32_t depth;		/* 0: a root (nameless) */
	uint32_t kind;		/* enum fxt_prof_kind */
	uint32_t unused;
};
/* Returns 0 or -ENOMEM. */
int fxt_tree_new(struct fxt_tree **out);
void fxt_tree_free(struct fxt_tree *t);
/* Writes p's tree as it is to the temporary file (made in $TMPDIR on first use, unlinked at
 * once); p may then drop those figures and paths. Returns 0, -ENOMEM or -errno. */
int fxt_tree_spill(struct fxt_tree *t, const struct fxt_prof *p);
/* Ends the records with p's tree as it is: merged with what was spilled, if anything (then
 * kept in the file), else kept in memory. Returns 0, -ENOMEM or -errno. */
int fxt_tree_finish(struct fxt_tree *t, const struct fxt_prof *p);
/* Records (after fxt_tree_finish()); spills written. */
uint64_t fxt_tree_size(const struct fxt_tree *t);
uint32_t fxt_tree_runs(const struct fxt_tree *t);
/* Record i into *r. Returns 0, -EINVAL past the end or -errno reading the file. */
int fxt_tree_get(struct fxt_tree *t, uint64_t i, struct fxt_tree_rec *r);
/* A record's name (a view alive as long as the profile; "" for a root). */
struct fxt_sv fxt_tree_name(const struct fxt_tree *t, const struct fxt_tree_rec *r);

/* ---- two runs side by side (profdiff.c) ---- */
/* A function of two runs, [0] the old one, [1] the new one: its rows summed over processes and
 * threads (runs have other ids). in[r]: run r has a row of it (else its figures there are 0). */
struct fxt_prof_diff_row {
	struct fxt_sv name;	/* a view into a profile: alive while both are */
	uint64_t calls[2], total[2], self[2];
	int in[2];
};
/* The rows of kind k of two finished profiles (fxt_prof_finish()), one per name, in *out
 * (malloc, the caller frees; *n of them). Returns 0 or -ENOMEM. */
int fxt_prof_diff(struct fxt_prof *old, struct fxt_prof *new, enum fxt_prof_kind k,
		  struct fxt_prof_diff_row **out, size_t *n);
/* Sorts by the size of the change (either way) of total (FXT_SORT_TOTAL and any key but these),
 * self or calls, largest first, then by name; FXT_SORT_NAME: by name. */
void fxt_prof_diff_sort(struct fxt_prof_diff_row *rows, size_t n, enum fxt_prof_sort by);

/* ---- on-CPU time from context switch records (oncpu.c) ---- */
struct fxt_oncpu;
/* Returns 0 or -ENOMEM. */
int fxt_oncpu_new(struct fxt_oncpu **out);
void fxt_oncpu_free(struct fxt_oncpu *o);
/* One context switch at ts_ns: thread out leaves the CPU in FXT thread state out_state
 * (FXT_THREAD_STATE_RUNNING: preempted; else blocked), thread in takes it (tid 0: not a thread
 * of the trace). Counts from the next fxt_oncpu_finish(). Fails: -ENOMEM. */
int fxt_oncpu_switch(struct fxt_oncpu *o, const struct fxt_koids *out, uint32_t out_state,
		     const struct fxt_koids *in, uint64_t ts_ns);
/* Switch records given so far. */
uint64_t fxt_oncpu_switches(const struct fxt_oncpu *o);
/* Builds each thread's on-CPU intervals from the switches given so far; called again after more
 * switches, rebuilds the threads that got some. Fails: -ENOMEM. */
int fxt_oncpu_finish(struct fxt_oncpu *o);
/* On-CPU ns of thread tid within [start, end] (ns), from the switches given before the last
 * fxt_oncpu_finish(); end - start for a thread without any then. Not const: o keeps where it
 * looked last. Fails: never. */
uint64_t fxt_oncpu_time(struct fxt_oncpu *o, uint64_t tid, uint64_t start, uint64_t end);
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
/* A stretch off CPU: [start, end) from a switch out in FXT thread state `state` to the
 * thread's next switch in (in time, whatever the order the switches were given in). */
struct fxt_offstretch {
	uint64_t start, end;
	uint32_t state;
};
/* Thread i's off-CPU stretches in time order, *n of them, and its thread id. Call after
 * fxt_oncpu_finish(), i < fxt_oncpu_threads(). Fails: never. */
const struct fxt_offstretch *fxt_oncpu_stretches(const struct fxt_oncpu *o, size_t i,
						 uint64_t *tid, size_t *n);

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
 * launcher's: launcher/cmd/cmd.h). Returns msg. */
const char *fxt_client_message(const struct fxt_client_result *res, const char *path, char *msg,
			       size_t len);

/* ---- log mirrors (logmirror.c): the `log` instant beside a log record, shown once ---- */
struct fxt_logs {
	struct ctab last;	/* per thread: its latest log record */
};
/* Cannot fail (ctab_init()). */
void fxt_logs_init(struct fxt_logs *l);
void fxt_logs_free(struct fxt_logs *l);
/* A log record (views kept: the reader stays open). Returns 0 or -ENOMEM. */
int fxt_logs_note(struct fxt_logs *l, const struct fxt_record *rec);
/* Whether event rec is the mirror of its thread's latest log record (each matches once).
 * Fails: never. */
int fxt_logs_mirror(struct fxt_logs *l, const struct fxt_record *rec);

/* ---- replay (replay.c): per thread, calls in start order, indented, with events in place ----
 * Each thread's lines are printed under a "== process P (name), thread T (name) ==" header:
 *   TIME DURATION [ON-CPU] | INDENT [^ ][KIND ][CATEGORY:]NAME[ #ID][ ARG=VALUE...]
 * TIME the start (fxt_time_fmt_stamp()), DURATION and ON-CPU (the column is there when context
 * switches were read) for calls, KIND for events that are not calls (instant, counter,
 * async-begin, async-instant, async-end, flow-begin, flow-step, flow-end, log: its message as
 * NAME, quoted), INDENT two spaces per enclosing call. */
struct fxt_replay;
#define FXT_REPLAY_HOLD 262144
struct fxt_replay_opts {
	const struct fxt_sel *sel;	/* resolved threads and window, or NULL (the caller's) */
	const char *glob;	/* --function: comma-separated globs (their subtrees), or NULL */
	unsigned depth;		/* lines less deep than this (from a --function match), 0: all */
	uint64_t min_ns;	/* calls shorter than this are not printed */
	size_t hold;		/* events waiting for their callers before a thread is printed
				 * early (0: FXT_REPLAY_HOLD) */
};
struct fxt_replay_stats {
	uint64_t lines;		/* lines printed (events; headers and notes apart) */
	uint64_t early_prints;	/* times a thread was printed early (over hold waiting) */
	uint64_t early_threads;	/* threads printed early at least once */
	uint64_t late;		/* calls printed after lines they enclose (marked ^) */
	uint64_t waited;	/* events that waited to be printed: a hold of this many keeps
				 * every thread in order */
	uint64_t unended;	/* begin events never ended */
};
/* Writes to f (owned by the caller). Returns 0 or -ENOMEM. */
int fxt_replay_new(struct fxt_replay **out, const struct fxt_replay_opts *o, FILE *f);
/* Bytes a waiting event takes at least (its text apart). */
size_t fxt_replay_event_bytes(void);
/* Takes the next record (views must live until fxt_replay_free(): keep the reader open); may
 * print. Returns 0 or -ENOMEM. */
int fxt_replay_record(struct fxt_replay *p, const struct fxt_reader *r,
		      const struct fxt_record *rec);
/* Prints what waits, thread by thread (by process and thread id). Returns 0, -ENOMEM or -EIO. */
int fxt_replay_finish(struct fxt_replay *p);
const struct fxt_replay_stats *fxt_replay_stats(const struct fxt_replay *p);
void fxt_replay_free(struct fxt_replay *p);

/* ---- flame graphs (flame.c): a finished profile's call tree (made with tree = 1) ----
 * Frames from the bottom: the process ("LABEL"), its thread with per_thread, then the call
 * path; a frame's width is its path's inclusive time, the sum of the self times (fxt_prof_node
 * self: on CPU with fxt_prof_set_oncpu()) of the path and every path below it. */
#define FXT_FLAME_MAX_DEPTH 2048	/* deeper frames' time stays in their ancestor there */
struct fxt_flame_opts {
	enum fxt_prof_kind kind;	/* FXT_PK_FUNC (calls) or FXT_PK_SAMPLE (sampled stacks) */
	int threads;		/* the profile is per thread: a thread frame under each process */
	/* Writes the name of process pid (tid 0) or of its thread tid into buf. */
	void (*label)(void *ctx, uint64_t pid, uint64_t tid, char *buf, size_t len);
	void *ctx;
	const char *title, *subtitle;	/* SVG: the headings */
};
struct fxt_flame_stats {
	uint64_t cut;		/* paths cut at FXT_FLAME_MAX_DEPTH frames */
};
/* Folded stacks: "FRAME;FRAME;... NS" per call path with own time (';' in a name written as
 * ':', control characters as spaces), paths in name order. Returns 0, -ENOMEM or -EIO. */
int fxt_flame_folded(FILE *f, struct fxt_prof *p, const struct fxt_flame_opts *o,
		     struct fxt_flame_stats *st);
/* A self-contained interactive SVG (inline script: click to zoom, search, hover details;
 * frames narrower than 0.1 px left out). Returns 0, -ENOMEM or -EIO. */
int fxt_flame_svg(FILE *f, struct fxt_prof *p, const struct fxt_flame_opts *o,
		  struct fxt_flame_stats *st);

/* ---- Catapult JSON (json.c) ---- */
struct fxt_json;

/* Writes to out (which the caller owns and closes). Returns 0 or -ENOMEM. */
int fxt_json_new(struct fxt_json **out, FILE *f);
/* From now on converts only what sel selects (resolved; owned by the caller, alive until
 * fxt_json_finish()): see json.c for calls that cross the window's bounds. Fails: never. */
void fxt_json_select(struct fxt_json *j, const struct fxt_sel *sel);
/* Converts one record (others are ignored). r converts ticks. Returns 0, -EIO or -ENOMEM. */
int fxt_json_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec);
/* Writes the off-CPU slices (json.c), closes the JSON document and flushes. Returns 0, -EIO
 * or -ENOMEM. */
int fxt_json_finish(struct fxt_json *j);
void fxt_json_free(struct fxt_json *j);
/* Events written so far. */
uint64_t fxt_json_events(const struct fxt_json *j);

#endif
