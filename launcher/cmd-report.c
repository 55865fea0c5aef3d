/* `fxt report FILE`: where did the time go. Streams the archive twice through the exact
 * profile aggregator (client/profile.c: pass 1 also finds the trace start) and prints per
 * process (or thread) a function table — calls, total, self, average, max — or the call tree,
 * then in sections of their own: sampled stacks (category "sample"), lock waits ("lock"),
 * thread creation spans ("pthread") and the tracer's stalls ("fxtauto"), none of which are the
 * program's functions or count in their self time. Filters: processes, threads, time window
 * (client/selection.c: calls inside it), function glob. Exit status (launcher/cmd.h): 0 ok;
 * 1 invalid archive (the figures of what precedes the problem are printed) or filters that
 * match nothing; 2 usage, unreadable file. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "launcher/cmd.h"
#include "writer/fields.h"

#define TREE_MAX_DEPTH 256

struct report {
	struct fxt_prof *prof;
	struct ctab names;	/* a = kernel object type, b = koid -> struct named */
	struct ctab uobjs;	/* a = process koid, b = pointer -> struct named */
	struct ctab labels;	/* join wait labels made here: key.s owned (malloc) */
	struct fxt_sel sel;	/* --pid, --tid, --since/--until (--from/--to) */
	uint64_t start_ns;	/* first pass: the trace start (earliest event time) */
	uint64_t matched;	/* events that passed --pid/--tid */
	uint64_t dropped;	/* records the archive says were dropped */
	uint64_t overwritten, wrapped;	/* about how many records circular buffers overwrote,
					 * and how many buffers wrapped */
	uint64_t kept_ns;	/* the shortest span such a buffer kept */
	uint64_t untraced;	/* processes the archive says ran untraced */
	const char *glob;
	size_t limit, printed;	/* printed: rows and tree lines shown */
	enum fxt_prof_sort sort;
	int tree, threads, edges;
	struct fxt_oncpu *oncpu;	/* context switches (pass 1), or NULL */
	int pass2;
	struct fxt_sv last_cat;		/* the category of the last duration event */
	enum fxt_prof_kind last_kind;	/* and its kind (an indexed category is one view) */
};

struct named {
	struct ckey key;
	struct fxt_sv name;
};

static const char usage[] =
	"usage: fxt report [options] FILE\n"
	"Per-function time of an FXT archive, per process: calls, total (inclusive, each call\n"
	"counted, recursion included), self (total minus time in recorded callees), avg, max.\n"
	"  --sort KEY       self (default), total, calls, avg, max, name, on-cpu or off-cpu\n"
	"  --limit N        at most N rows per table (in --tree: N children per node)\n"
	"  --threads        one table (or tree) per thread instead of per process\n"
	"  --tree           call tree with inclusive times and call counts\n"
	"  --edges          one line per caller->callee pair of functions, summed over all\n"
	"                   threads and processes: COUNT<tab>CALLER<tab>CALLEE, sorted by\n"
	"                   caller and callee; CALLER is (root) for a call no recorded call\n"
	"                   encloses on its thread (main, thread start functions); lock waits,\n"
	"                   thread spans and tracer stalls are not calls (their callees'\n"
	"                   caller is the function around them)\n"
	"  --function GLOBS only functions whose name matches a glob (comma-separated;\n"
	"                   repeatable; in --tree: paths to them)\n"
	"%s"
	"  --from TIME      --since +TIME (older name: after the trace start, + or not)\n"
	"  --to TIME        --until +TIME\n"
	"Sampled stacks (category sample), lock waits (lock), thread creation (pthread) and the\n"
	"tracer's own stalls (fxtauto) get sections of their own: they are not the program's\n"
	"functions, and a caller's self time excludes them as it excludes its callees.\n"
	"With context switch records (recorded by default where perf_event allows): self is\n"
	"on-CPU time, on-cpu and off-cpu (total minus on-cpu) columns per function, rows\n"
	"[preempted] and [blocked] with each thread's time off CPU, and per lock object the\n"
	"time its waiters were blocked off CPU.\n"
	CMD_EXIT_USAGE;

static struct fxt_sv name_of(struct report *rp, unsigned type, uint64_t koid)
{
	struct ckey k = { type, koid, { "", 0 } };
	int64_t i = ctab_get(&rp->names, &k, 0);
	return i < 0 ? k.s : ((struct named *)ctab_at(&rp->names, (uint32_t)i))->name;
}

static int remember(struct ctab *t, uint64_t a, uint64_t b, struct fxt_sv name)
{
	struct ckey k = { a, b, { "", 0 } };
	int64_t i = ctab_get(t, &k, 1);
	if (i < 0)
		return -ENOMEM;
	((struct named *)ctab_at(t, (uint32_t)i))->name = name;
	return 0;
}

static int is_cat(struct fxt_sv c, const char *s)
{
	return c.len == strlen(s) && !memcmp(c.s, s, c.len);
}

/* label kept in rp->labels (made once per distinct text). Returns 0 or -ENOMEM. */
static int label_intern(struct report *rp, const char *text, struct fxt_sv *out)
{
	struct ckey k = { 0, 0, { text, (uint32_t)strlen(text) } };
	int64_t i = ctab_get(&rp->labels, &k, 0);
	struct named *n;
	char *copy;

	if (i < 0) {
		if (!(copy = strdup(text)))
			return -ENOMEM;
		k.s.s = copy;
		if ((i = ctab_get(&rp->labels, &k, 1)) < 0) {
			free(copy);
			return -ENOMEM;
		}
	}
	n = ctab_at(&rp->labels, (uint32_t)i);
	*out = n->key.s;
	return 0;
}

/* A pthread_join wait's label: "join NAME 0xPTHREAD" (threads of one name stay apart). */
static int join_label(struct report *rp, const struct fxt_record *rec, struct fxt_sv *out)
{
	struct fxt_sv name = { "thread", 6 };
	uint64_t ptr = 0;
	char buf[320];

	for (unsigned i = 0; i < rec->nargs; i++) {
		if (rec->args[i].type == FXT_AT_STRING && rec->args[i].v.str.len)
			name = rec->args[i].v.str;
		else if (rec->args[i].type == FXT_AT_POINTER)
			ptr = rec->args[i].v.u64;
	}
	snprintf(buf, sizeof(buf), "join %.*s 0x%" PRIx64, (int)(name.len < 256 ? name.len : 256),
		 name.s, ptr);
	return label_intern(rp, buf, out);
}

/* A lock wait's label: its string argument, else its pointer's userspace object name. */
static struct fxt_sv lock_label(struct report *rp, const struct fxt_record *rec)
{
	struct fxt_sv none = { "", 0 };

	for (unsigned i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_AT_STRING && rec->args[i].v.str.len)
			return rec->args[i].v.str;
	for (unsigned i = 0; i < rec->nargs; i++) {
		if (rec->args[i].type == FXT_AT_POINTER) {
			struct ckey k = { rec->u.event.thread.pid, rec->args[i].v.u64, none };
			int64_t j = ctab_get(&rp->uobjs, &k, 0);
			if (j >= 0)
				return ((struct named *)ctab_at(&rp->uobjs, (uint32_t)j))->name;
		}
	}
	return none;
}

/* Pass 1: what the archive says it lost (fxtauto's "records dropped" and "records overwritten"
 * instants), for the note under the figures. */
static int note_loss(struct report *rp, const struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t n, from;
	if (fxt_record_dropped(rec, &n)) {
		rp->dropped += n;
	} else if (fxt_record_overwritten(rec, &n, &from)) {
		uint64_t end = fxt_client_ns(r, rec->u.event.ts);
		uint64_t kept = end - fxt_client_ns(r, from < rec->u.event.ts ? from : rec->u.event.ts);
		if (!rp->wrapped++ || kept < rp->kept_ns)
			rp->kept_ns = kept;
		rp->overwritten += n;
	} else if (is_cat(rec->u.event.category, "fxtauto") &&
		   is_cat(rec->u.event.name, "process not traced")) {
		rp->untraced++;
	}
	return 0;
}

/* Under the figures: what they miss, as the archive says. */
static void print_loss(const struct report *rp)
{
	if (rp->untraced)
		printf("\nnote: %" PRIu64 " process%s ran untraced (fxt dump shows which and why): "
		       "the figures miss %s calls\n", rp->untraced, rp->untraced == 1 ? "" : "es",
		       rp->untraced == 1 ? "its" : "their");
	if (rp->dropped)
		printf("\nnote: %" PRIu64 " records were dropped while recording (fxt stats): the "
		       "figures miss their calls\n", rp->dropped);
	if (rp->wrapped) {
		char t[32];
		printf("\nnote: circular buffer%s overwrote the oldest records (about %" PRIu64
		       "): the figures cover only the last %s%s\n", rp->wrapped == 1 ? "" : "s",
		       rp->overwritten, fxt_time_fmt(t, sizeof(t), rp->kept_ns),
		       rp->wrapped == 1 ? "" : " (the shortest kept)");
	}
}

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct report *rp = ctx;
	const struct fxt_koids *th;
	enum fxt_prof_kind k = FXT_PK_FUNC;
	struct fxt_sv obj = { "", 0 };
	unsigned et;
	uint64_t ts;

	switch (rec->type) {
	case FXT_RT_EVENT:
		break;
	case FXT_RT_THREAD:	/* every chunk starts with one: another stretch may follow */
	case FXT_RT_METADATA:
		return fxt_prof_cut(rp->prof);
	case FXT_RT_KERNEL_OBJECT:
		return remember(&rp->names, rec->u.kobj.obj_type, rec->u.kobj.koid, rec->u.kobj.name);
	case FXT_RT_USERSPACE_OBJECT:
		return remember(&rp->uobjs, rec->u.uobj.process_koid, rec->u.uobj.pointer,
				rec->u.uobj.name);
	case FXT_RT_SCHEDULING:
		if (rp->pass2 || rec->u.sched.sched_type != FXT_ST_CONTEXT_SWITCH)
			return 0;
		if (!rp->oncpu && fxt_oncpu_new(&rp->oncpu) < 0)
			return -ENOMEM;
		return fxt_oncpu_switch(rp->oncpu, &rec->u.sched.out_thread,
					rec->u.sched.out_state, &rec->u.sched.in_thread,
					fxt_client_ns(r, rec->u.sched.ts));
	default:
		return 0;
	}
	et = rec->u.event.event_type;
	th = &rec->u.event.thread;
	ts = fxt_client_ns(r, rec->u.event.ts);	/* once: the conversion divides */
	if (!rp->pass2 && ts < rp->start_ns)
		rp->start_ns = ts;	/* the trace start, as fxt_trace_start_note() finds it */
	if (et == FXT_ET_INSTANT && !rp->pass2)
		return note_loss(rp, r, rec);
	if (!fxt_sel_thread(&rp->sel, th->pid, th->tid))
		return fxt_prof_cut(rp->prof);
	if (et < FXT_ET_DURATION_BEGIN || et > FXT_ET_DURATION_COMPLETE)
		return 0;
	rp->matched++;
	if (rec->u.event.category.s == rp->last_cat.s &&
	    rec->u.event.category.len == rp->last_cat.len)
		k = rp->last_kind;
	else if (is_cat(rec->u.event.category, "lock"))
		k = FXT_PK_LOCK;
	else if (is_cat(rec->u.event.category, "sample"))
		k = FXT_PK_SAMPLE;
	else if (is_cat(rec->u.event.category, "fxtauto"))
		k = FXT_PK_STALL;
	else if (is_cat(rec->u.event.category, "pthread"))
		k = FXT_PK_THREAD;
	rp->last_cat = rec->u.event.category;
	rp->last_kind = k;
	if (k == FXT_PK_LOCK) {
		obj = lock_label(rp, rec);
		if (is_cat(rec->u.event.name, "join") && et != FXT_ET_DURATION_END &&
		    join_label(rp, rec, &obj) < 0)
			return -ENOMEM;
	}
	switch (et) {
	case FXT_ET_DURATION_COMPLETE:
		return fxt_prof_span(rp->prof, k, th->pid, th->tid, rec->u.event.name, obj, ts,
				     fxt_client_ns(r, rec->u.event.end_ts));
	case FXT_ET_DURATION_BEGIN:
		return fxt_prof_begin(rp->prof, k, th->pid, th->tid, rec->u.event.name, obj, ts);
	default:
		return fxt_prof_end(rp->prof, k, th->pid, th->tid, ts);
	}
}

/* Whether name matches one of the globs (comma-separated, as --filter takes them). */
static int name_ok(const struct report *rp, struct fxt_sv name)
{
	char buf[512], pat[512];

	if (!rp->glob)
		return 1;
	snprintf(buf, sizeof(buf), "%.*s", (int)name.len, name.s);
	for (const char *g = rp->glob; *g;) {
		size_t n = strcspn(g, ",");
		snprintf(pat, sizeof(pat), "%.*s", (int)n, g);
		if (n && !fnmatch(pat, buf, 0))
			return 1;
		g += n + (g[n] == ',');
	}
	return 0;
}

static void print_owner(struct report *rp, uint64_t pid, uint64_t tid, const char *what)
{
	struct fxt_sv pn = name_of(rp, FXT_OBJ_TYPE_PROCESS, pid);

	printf("\n== %s: process %" PRIu64 " (%.*s)", what, pid, (int)pn.len, pn.s);
	if (rp->threads) {
		struct fxt_sv tn = name_of(rp, FXT_OBJ_TYPE_THREAD, tid);
		printf(", thread %" PRIu64 " (%.*s)", tid, (int)tn.len, tn.s);
	}
	printf(" ==\n");
}

/* Prints the rows of kind k, one table per process (or thread) with at least one row to show;
 * self: with the self column (callees are possible). Returns rows printed. */
static size_t print_table(struct report *rp, enum fxt_prof_kind k, const char *what,
			  const char *count_col, const char *col, int self)
{
	size_t n, shown = 0, all = 0;
	struct fxt_prof_row *rows = fxt_prof_rows(rp->prof, k, &n);
	uint64_t sum = 0;
	char t[5][32];
	int cpu = rp->oncpu && (k == FXT_PK_FUNC || k == FXT_PK_LOCK);

	fxt_prof_sort(rows, n, rp->sort);
	for (size_t i = 0; i < n; i++) {
		struct fxt_prof_row *w = &rows[i];
		if (i && (w->key.a != rows[i - 1].key.a || w->key.b != rows[i - 1].key.b)) {
			if (k == FXT_PK_STALL && shown)
				printf("%10s %12s  all tracer stalls (not in any function's self time)\n",
				       "", fxt_time_fmt(t[4], sizeof(t[4]), sum));
			shown = 0;
			sum = 0;
		}
		if (!name_ok(rp, w->key.s) || (rp->limit && shown >= rp->limit))
			continue;
		if (!shown++) {
			print_owner(rp, w->key.a, w->key.b, what);
			if (self)
				printf("%10s %12s %12s %12s %12s", count_col, "total", "self",
				       "avg", "max");
			else
				printf("%10s %12s %12s %12s", count_col, "total", "avg", "max");
			if (cpu)
				printf(" %12s %12s", k == FXT_PK_LOCK ? "running" : "on-cpu",
				       k == FXT_PK_LOCK ? "blocked" : "off-cpu");
			printf("  %s\n", col);
		}
		all++;
		sum += w->total;
		fxt_time_fmt(t[0], sizeof(t[0]), w->total);
		fxt_time_fmt(t[1], sizeof(t[1]), w->self);
		fxt_time_fmt(t[2], sizeof(t[2]), w->calls ? w->total / w->calls : 0);
		fxt_time_fmt(t[3], sizeof(t[3]), w->max);
		if (self)
			printf("%10" PRIu64 " %12s %12s %12s %12s", w->calls, t[0], t[1], t[2], t[3]);
		else
			printf("%10" PRIu64 " %12s %12s %12s", w->calls, t[0], t[2], t[3]);
		if (cpu) {
			char c[2][32];
			printf(" %12s %12s", fxt_time_fmt(c[0], sizeof(c[0]), w->oncpu),
			       fxt_time_fmt(c[1], sizeof(c[1]),
					    w->total > w->oncpu ? w->total - w->oncpu : 0));
		}
		printf("  %.*s\n", (int)w->key.s.len, w->key.s.s);
	}
	if (k == FXT_PK_STALL && shown)
		printf("%10s %12s  all tracer stalls (not in any function's self time)\n", "",
		       fxt_time_fmt(t[4], sizeof(t[4]), sum));
	rp->printed += all;
	return all;
}

/* Whether the subtree at idx has a node matching the glob (everything matches without one). */
static int tree_has_match(struct report *rp, uint32_t idx, int depth)
{
	const struct fxt_prof_node *n = fxt_prof_node(rp->prof, idx);

	if (name_ok(rp, n->name))
		return 1;
	if (depth >= TREE_MAX_DEPTH)
		return 0;
	for (uint32_t c = n->child; c; c = fxt_prof_node(rp->prof, c)->sibling)
		if (tree_has_match(rp, c, depth + 1))
			return 1;
	return 0;
}

/* What a tree line shows before a name that is not one of the program's functions. */
static const char *mark(unsigned kind)
{
	switch (kind) {
	case FXT_PK_LOCK: return "[lock wait] ";
	case FXT_PK_STALL: return "[tracer stall] ";
	case FXT_PK_THREAD: return "[thread] ";
	default: return "";
	}
}

static int node_cmp(const void *x, const void *y, void *arg)
{
	const struct fxt_prof_node *a = fxt_prof_node(arg, *(const uint32_t *)x);
	const struct fxt_prof_node *b = fxt_prof_node(arg, *(const uint32_t *)y);
	return a->total != b->total ? (a->total > b->total ? -1 : 1) : 0;
}

/* Prints the children of idx (heaviest first), indented by depth. matched: an ancestor
 * matched the glob, so the whole subtree shows. */
static int print_children(struct report *rp, uint32_t idx, int depth, int matched)
{
	const struct fxt_prof_node *n = fxt_prof_node(rp->prof, idx);
	size_t cnt = 0, shown = 0;
	uint32_t *kids;
	char t[2][32];

	for (uint32_t c = n->child; c; c = fxt_prof_node(rp->prof, c)->sibling)
		cnt++;
	if (!cnt)
		return 0;
	if (depth >= TREE_MAX_DEPTH) {
		printf("%*s...\n", 40 + 2 * depth, "");
		return 0;
	}
	kids = malloc(cnt * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	cnt = 0;
	for (uint32_t c = n->child; c; c = fxt_prof_node(rp->prof, c)->sibling)
		kids[cnt++] = c;
	qsort_r(kids, cnt, sizeof(*kids), node_cmp, rp->prof);
	for (size_t i = 0; i < cnt; i++) {
		const struct fxt_prof_node *c = fxt_prof_node(rp->prof, kids[i]);
		int m = matched || name_ok(rp, c->name);
		if ((!m && !tree_has_match(rp, kids[i], depth)) || !c->calls ||
		    (rp->limit && shown >= rp->limit))
			continue;
		shown++;
		rp->printed++;
		printf("%12s %12s %10" PRIu64 "  %*s%s%.*s\n", fxt_time_fmt(t[0], 32, c->total),
		       fxt_time_fmt(t[1], 32, c->self), c->calls, 2 * depth, "", mark(c->kind),
		       (int)c->name.len, c->name.s);
		if (print_children(rp, kids[i], depth + 1, m) < 0) {
			free(kids);
			return -ENOMEM;
		}
	}
	free(kids);
	return 0;
}

/* Prints one tree per root that has a call to show. Returns 0 or -ENOMEM. */
static int print_trees(struct report *rp, enum fxt_prof_kind k, const char *what)
{
	size_t n;
	struct fxt_prof_root *roots = fxt_prof_roots(rp->prof, k, &n);

	for (size_t i = 0; i < n; i++) {
		const struct fxt_prof_node *r = fxt_prof_node(rp->prof, roots[i].node);
		uint32_t c;
		for (c = r->child; c; c = fxt_prof_node(rp->prof, c)->sibling)
			if (fxt_prof_node(rp->prof, c)->calls && tree_has_match(rp, c, 0))
				break;
		if (!c)
			continue;
		print_owner(rp, roots[i].key.a, roots[i].key.b, what);
		printf("%12s %12s %10s  %s\n", "total", "self", "calls", "call path");
		if (print_children(rp, roots[i].node, 0, 0) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One caller->callee pair of the call trees and its calls. */
struct edge {
	struct fxt_sv caller, callee;
	uint64_t calls;
};

struct edges {
	struct edge *e;
	size_t n, cap;
};

static int sv_cmp(struct fxt_sv a, struct fxt_sv b)
{
	int c = memcmp(a.s, b.s, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int edge_cmp(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;
	int c = sv_cmp(a->caller, b->caller);
	return c ? c : sv_cmp(a->callee, b->callee);
}

/* Adds the edges below node idx, whose nearest function ancestor is named caller. Nodes that
 * are not calls (lock waits, thread spans, stalls) pass their caller on. Returns 0 or -ENOMEM. */
static int collect_edges(struct report *rp, struct edges *es, uint32_t idx, struct fxt_sv caller)
{
	for (uint32_t c = fxt_prof_node(rp->prof, idx)->child; c;
	     c = fxt_prof_node(rp->prof, c)->sibling) {
		const struct fxt_prof_node *n = fxt_prof_node(rp->prof, c);
		struct fxt_sv up = caller;
		if (n->kind == FXT_PK_FUNC) {
			if (es->n == es->cap) {
				size_t nc = es->cap ? es->cap * 2 : 1024;
				struct edge *ne = realloc(es->e, nc * sizeof(*ne));
				if (!ne)
					return -ENOMEM;
				es->e = ne;
				es->cap = nc;
			}
			es->e[es->n++] = (struct edge){ caller, n->name, n->calls };
			up = n->name;
		}
		if (collect_edges(rp, es, c, up) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Prints every caller->callee pair of the function call trees, summed over processes and
 * threads (names compared as text): the profile collapsed each tree to its pairs (opts edges:
 * below a root, the calls no call encloses; below each function's caller node, its callees).
 * Returns 0 or -ENOMEM. */
static int print_edges(struct report *rp)
{
	struct fxt_sv root = { "(root)", 6 };
	struct edges es = { 0 };
	size_t n, i, j;
	struct fxt_prof_root *roots = fxt_prof_roots(rp->prof, FXT_PK_FUNC, &n);
	size_t ncallers;
	struct fxt_prof_root *callers = fxt_prof_callers(rp->prof, &ncallers);

	for (i = 0; i < n + ncallers; i++)
		if (collect_edges(rp, &es, i < n ? roots[i].node : callers[i - n].node,
				  i < n ? root : callers[i - n].key.s) < 0) {
			free(es.e);
			return -ENOMEM;
		}
	if (es.n)
		qsort(es.e, es.n, sizeof(*es.e), edge_cmp);
	for (i = 0; i < es.n; i = j) {
		uint64_t calls = 0;
		for (j = i; j < es.n && !edge_cmp(&es.e[i], &es.e[j]); j++)
			calls += es.e[j].calls;
		if (calls && (name_ok(rp, es.e[i].caller) || name_ok(rp, es.e[i].callee))) {
			printf("%" PRIu64 "\t%.*s\t%.*s\n", calls, (int)es.e[i].caller.len,
			       es.e[i].caller.s, (int)es.e[i].callee.len, es.e[i].callee.s);
			rp->printed++;
		}
	}
	free(es.e);
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int parse_sort(const char *s, enum fxt_prof_sort *by)
{
	static const char *const keys[] = { "self", "total", "calls", "avg", "max", "name",
					    "on-cpu", "off-cpu" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(s, keys[i])) {
			*by = (enum fxt_prof_sort)i;
			return 0;
		}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, 0, 's' }, { "limit", required_argument, 0, 'l' },
		{ "threads", no_argument, 0, 'T' },    { "tree", no_argument, 0, 't' },
		FXT_SEL_OPTIONS,
		{ "function", required_argument, 0, 'f' },
		{ "from", required_argument, 0, FXT_SEL_FROM },
		{ "to", required_argument, 0, FXT_SEL_TO }, { "help", no_argument, 0, 'h' },
		{ "edges", no_argument, 0, 'g' },
		{ 0, 0, 0, 0 },
	};
	struct report rp = { .sort = FXT_SORT_SELF, .start_ns = UINT64_MAX };
	struct fxt_prof_opts po = { 0 };
	static char globs[4096];	/* --function's lists, joined by commas */
	struct fxt_client_result res = { 0 };
	uint64_t lim;
	int c, code = 0;
	char msg[320], what[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_sort(optarg, &rp.sort) < 0) {
				fprintf(stderr, "fxt report: --sort %s: expected self, total, calls, "
					"avg, max, name, on-cpu or off-cpu\n", optarg);
				return CMD_EXIT_ERROR;
			}
			break;
		case 'l':
			if (parse_u64(optarg, &lim) < 0 || !lim) {
				fprintf(stderr, "fxt report: --limit %s: expected a positive number\n",
					optarg);
				return CMD_EXIT_ERROR;
			}
			rp.limit = (size_t)lim;
			break;
		case 'T': rp.threads = 1; break;
		case 't': rp.tree = 1; break;
		case 'g': rp.edges = 1; break;
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
		case FXT_SEL_FROM: case FXT_SEL_TO:
			if (fxt_sel_option(&rp.sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt report: %s\n", msg);
				fxt_sel_free(&rp.sel);
				return CMD_EXIT_ERROR;
			}
			break;
		case 'f': {	/* repeatable: the lists joined */
			size_t at = strlen(globs);
			if (at + 1 + strlen(optarg) >= sizeof(globs)) {
				fprintf(stderr, "fxt report: --function: too many globs\n");
				return CMD_EXIT_ERROR;
			}
			snprintf(globs + at, sizeof(globs) - at, "%s%s", at ? "," : "", optarg);
			rp.glob = globs;
			break;
		}
		case 'h':
			printf(usage, fxt_sel_usage);
			fxt_sel_free(&rp.sel);
			return 0;
		default:
			fprintf(stderr, usage, fxt_sel_usage);
			fxt_sel_free(&rp.sel);
			return CMD_EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fxt report: expected one archive (try fxt report --help)\n");
		fxt_sel_free(&rp.sel);
		return CMD_EXIT_ERROR;
	}
	if (fxt_sel_check(&rp.sel, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt report: %s\n", msg);
		fxt_sel_free(&rp.sel);
		return CMD_EXIT_ERROR;
	}
	po.per_thread = rp.threads;
	po.tree = rp.tree || rp.edges;
	po.edges = rp.edges;
	if (ctab_init(&rp.names, sizeof(struct named)) || ctab_init(&rp.uobjs, sizeof(struct named)) ||
	    ctab_init(&rp.labels, sizeof(struct named)) || fxt_prof_new(&rp.prof, &po) < 0)
		goto nomem;
	/* pass 1: the trace start and the spans that enclose other runs' spans */
	fxt_client_read(cmd_input(argv[optind]), on_record, &rp, &res);
	if (res.status == FXT_CS_OPEN || res.status == FXT_CS_CALLBACK)
		goto out;
	if (fxt_sel_resolve(&rp.sel, rp.start_ns, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt report: %s\n", msg);
		code = CMD_EXIT_ERROR;
		res.status = FXT_CS_OK;
		goto out;
	}
	if (rp.oncpu) {
		if (fxt_oncpu_finish(rp.oncpu) < 0)
			goto nomem;
		fxt_prof_set_oncpu(rp.prof, rp.oncpu);
	}
	rp.pass2 = 1;	/* context switches and names are read once */
	while ((c = fxt_prof_rescan(rp.prof, rp.sel.from_ns, rp.sel.to_ns)) == 1) {
		/* a thread's runs interleave (signal handlers): pass 1 again, knowing it */
		fxt_client_reread(on_record, &rp, &res);
		if (res.status == FXT_CS_OPEN || res.status == FXT_CS_CALLBACK)
			goto out;
	}
	if (c < 0)
		goto nomem;
	/* the same reader reads the same bytes again (a pipe is read once): its views stay valid */
	ctab_free(&rp.names);
	ctab_free(&rp.uobjs);
	if (ctab_init(&rp.names, sizeof(struct named)) || ctab_init(&rp.uobjs, sizeof(struct named)))
		goto nomem;
	if (fxt_sel_threads(&rp.sel) && !rp.matched) {
		struct fxt_sel threads = rp.sel;	/* the threads alone */
		threads.since.set = threads.until.set = 0;
		fprintf(stderr, "fxt report: %s: no events%s\n", argv[optind],
			fxt_sel_describe(&threads, what, sizeof(what)));
		code = CMD_EXIT_INVALID;
		goto out;
	}
	rp.matched = 0;
	/* pass 2: the figures */
	fxt_client_reread(on_record, &rp, &res);
	if (res.status == FXT_CS_OPEN || res.status == FXT_CS_CALLBACK ||
	    fxt_prof_finish(rp.prof) < 0)
		goto out;
	if (rp.edges) {
		if (print_edges(&rp) < 0)
			goto nomem;
		goto done;
	}
	if (rp.tree) {
		if (print_trees(&rp, FXT_PK_FUNC, "call tree") < 0 ||
		    print_trees(&rp, FXT_PK_SAMPLE, "sampled call tree") < 0)
			goto nomem;
	} else {
		print_table(&rp, FXT_PK_FUNC, "functions", "calls", "function", 1);
		print_table(&rp, FXT_PK_SAMPLE, "sampled stacks (time estimated from slices)",
			    "slices", "function", 1);
	}
	print_table(&rp, FXT_PK_LOCK, "lock waits", "waits", "object", 0);
	print_table(&rp, FXT_PK_THREAD, "thread creation (tracer spans, category pthread)",
		    "calls", "span", 0);
	print_table(&rp, FXT_PK_STALL, "tracer stalls (category fxtauto)", "stalls", "stall", 0);
	if (fxt_prof_unclosed(rp.prof))
		printf("\n%" PRIu64 " begin events never ended (not counted)\n",
		       fxt_prof_unclosed(rp.prof));
done:
	if (!rp.edges)
		print_loss(&rp);
	if (!rp.printed && !rp.glob && !fxt_sel_window(&rp.sel) && !fxt_sel_threads(&rp.sel))
		printf("%s: no function calls recorded\n", argv[optind]);
	if (!rp.printed && (rp.glob || fxt_sel_window(&rp.sel))) {
		struct fxt_sel window = rp.sel;	/* the window alone */
		window.pids.n = window.tids.n = 0;
		fprintf(stderr, "fxt report: %s: no calls match%s%s%s\n", argv[optind],
			rp.glob ? " --function " : "", rp.glob ? rp.glob : "",
			fxt_sel_describe(&window, what, sizeof(what)));
		code = CMD_EXIT_INVALID;
	}
	if (fxt_sel_warning(&rp.sel, rp.start_ns, msg, sizeof(msg)))
		fprintf(stderr, "fxt report: %s\n", msg);
out:
	if (res.status != FXT_CS_OK) {
		fprintf(stderr, "fxt report: %s\n",
			fxt_client_message(&res, argv[optind], msg, sizeof(msg)));
		if (cmd_exit_client(&res) > code)
			code = cmd_exit_client(&res);
	}
	fxt_client_close(&res);
	fxt_prof_free(rp.prof);
	fxt_oncpu_free(rp.oncpu);
	fxt_sel_free(&rp.sel);
	ctab_free(&rp.names);
	ctab_free(&rp.uobjs);
	for (uint32_t i = 0; i < rp.labels.n; i++)
		free((char *)((struct named *)ctab_at(&rp.labels, i))->key.s.s);
	ctab_free(&rp.labels);
	return code;
nomem:
	fprintf(stderr, "fxt report: out of memory\n");
	code = CMD_EXIT_ERROR;
	res.status = FXT_CS_OK;
	goto out;
}
