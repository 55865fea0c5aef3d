/* `fxt report FILE`: where did the time go. Streams the archive twice (launcher/cmd/profread.c)
 * through the exact profile aggregator (client/profile.c: pass 1 also finds the trace start)
 * and prints per process (or thread) a function table — calls, total, self, average, max — or
 * the call tree, then in sections of their own: sampled stacks (category "sample"), lock waits
 * ("lock"), thread creation spans ("pthread") and the tracer's stalls ("fxtauto"), none of
 * which are the program's functions or count in their self time. Filters: processes, threads,
 * time window (client/selection.c: calls inside it), function glob. With --diff, two archives
 * read so, their function rows side by side (client/profdiff.c). Exit status (launcher/cmd/cmd.h):
 * 0 ok; 1 invalid archive (the figures of what precedes the problem are printed) or filters
 * that match nothing; 2 usage, unreadable file. */
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
#include "common/grow.h"
#include "launcher/cmd/cmd.h"
#include "launcher/cmd/profread.h"
#include "writer/fields.h"

#define TREE_MAX_DEPTH 256
#define TREE_MEMORY_MIB 192	/* --tree-memory's default */

struct report {
	struct profread pr;	/* the archive read, its selection and figures */
	const char *glob;
	size_t limit, printed;	/* printed: rows and tree lines shown */
	enum fxt_prof_sort sort;
	int tree, threads, edges;
};

static const char usage[] =
	"usage: fxt report [options] FILE\n"
	"       fxt report --diff [options] OLD NEW\n"
	"Per-function time of an FXT archive, per process: calls, total (inclusive, each call\n"
	"counted, recursion included), self (total minus time in recorded callees), avg, max.\n"
	"  --sort KEY       self (default), total, calls, avg, max, name, on-cpu or off-cpu\n"
	"  --limit N        at most N rows per table (in --tree: N children per node)\n"
	"  --threads        one table (or tree) per thread instead of per process\n"
	"  --tree           call tree with inclusive times and call counts\n"
	"  --tree-memory MIB\n"
	"                   memory for the call tree (192); past it, call paths go to a\n"
	"                   temporary file in $TMPDIR and are merged back: the same tree\n"
	"  --edges          one line per caller->callee pair of functions, summed over all\n"
	"                   threads and processes: COUNT<tab>CALLER<tab>CALLEE, sorted by\n"
	"                   caller and callee; CALLER is (root) for a call no recorded call\n"
	"                   encloses on its thread (main, thread start functions); lock waits,\n"
	"                   thread spans and tracer stalls are not calls (their callees'\n"
	"                   caller is the function around them)\n"
	"  --diff           two runs side by side: per function (summed over processes and\n"
	"                   threads) calls, total and self of OLD and NEW, change and ratio\n"
	"                   NEW/OLD; sorted by the largest change of total (--sort self, calls\n"
	"                   or name); + marks a function only in NEW, - one only in OLD\n"
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
	struct fxt_sv pn = profread_name(&rp->pr, FXT_OBJ_TYPE_PROCESS, pid);

	printf("\n== %s: process %" PRIu64 " (%.*s)", what, pid, (int)pn.len, pn.s);
	if (rp->threads) {
		struct fxt_sv tn = profread_name(&rp->pr, FXT_OBJ_TYPE_THREAD, tid);
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
	struct fxt_prof_row *rows = fxt_prof_rows(rp->pr.prof, k, &n);
	uint64_t sum = 0;
	char t[5][32];
	int cpu = rp->pr.oncpu && (k == FXT_PK_FUNC || k == FXT_PK_LOCK);

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

/* Whether the subtree of tree record i has a record matching the glob (everything matches
 * without one) down to printed depth TREE_MAX_DEPTH (a root's children are at 0). Returns 1,
 * 0 or -errno reading the tree. */
static int tree_has_match(struct report *rp, struct fxt_tree *t, uint64_t i)
{
	struct fxt_tree_rec top, r;

	if (!rp->glob)
		return 1;
	if (fxt_tree_get(t, i, &top) < 0)
		return -EIO;
	for (uint64_t j = i; j < top.end; j++) {
		if (fxt_tree_get(t, j, &r) < 0)
			return -EIO;
		if (r.depth > TREE_MAX_DEPTH + 1)
			j = r.end - 1;	/* below what is looked at */
		else if (name_ok(rp, fxt_tree_name(t, &r)))
			return 1;
	}
	return 0;
}

/* A child to print: heaviest first, of equal ones the path made last (as the list of a node's
 * children, newest first, sorted stably). */
struct kid {
	uint64_t i, total, seq;
};

static int kid_cmp(const void *x, const void *y)
{
	const struct kid *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* Prints the children of tree record i, indented by depth. matched: an ancestor matched the
 * glob, so the whole subtree shows. Returns 0, -ENOMEM or -errno reading the tree. */
static int print_children(struct report *rp, struct fxt_tree *t, uint64_t i, int depth,
			  int matched)
{
	struct fxt_tree_rec n, c;
	struct kid *kids = NULL;
	size_t cnt = 0, cap = 0, shown = 0;
	char tm[2][32];
	int rc = 0;

	if (fxt_tree_get(t, i, &n) < 0)
		return -EIO;
	if (n.end == i + 1)
		return 0;
	if (depth >= TREE_MAX_DEPTH) {
		printf("%*s...\n", 40 + 2 * depth, "");
		return 0;
	}
	for (uint64_t j = i + 1; j < n.end; j = c.end) {
		if (fxt_tree_get(t, j, &c) < 0) {
			free(kids);
			return -EIO;
		}
		if (FXT_GROW(kids, &cap, cnt + 1) < 0) {
			free(kids);
			return -ENOMEM;
		}
		kids[cnt++] = (struct kid){ j, c.total, c.seq };
	}
	qsort(kids, cnt, sizeof(*kids), kid_cmp);
	for (size_t k = 0; k < cnt && !rc; k++) {
		struct fxt_sv name;
		int m;
		if ((rc = fxt_tree_get(t, kids[k].i, &c)) < 0)
			break;
		name = fxt_tree_name(t, &c);
		m = matched || name_ok(rp, name);
		if (!m && (rc = tree_has_match(rp, t, kids[k].i)) <= 0)
			continue;
		rc = 0;
		if (!c.calls || (rp->limit && shown >= rp->limit))
			continue;
		shown++;
		rp->printed++;
		printf("%12s %12s %10" PRIu64 "  %*s%s%.*s\n", fxt_time_fmt(tm[0], 32, c.total),
		       fxt_time_fmt(tm[1], 32, c.self), c.calls, 2 * depth, "", fxt_prof_mark(c.kind),
		       (int)name.len, name.s);
		rc = print_children(rp, t, kids[k].i, depth + 1, m);
	}
	free(kids);
	return rc;
}

/* Whether root record i (*r) has a child with calls to show. Returns 1, 0 or -errno reading
 * the tree. */
static int root_shows(struct report *rp, struct fxt_tree *t, const struct fxt_tree_rec *r,
		      uint64_t i)
{
	struct fxt_tree_rec c;
	int rc = 0;

	for (uint64_t j = i + 1; j < r->end && !rc; j = c.end) {
		if (fxt_tree_get(t, j, &c) < 0)
			return -EIO;
		rc = c.calls ? tree_has_match(rp, t, j) : 0;
	}
	return rc;
}

/* Prints one tree per root of kind k that has a call to show. Returns 0, -ENOMEM or -errno
 * of the tree's temporary file. */
static int print_trees(struct report *rp, enum fxt_prof_kind k, const char *what)
{
	size_t nroots;
	struct fxt_prof_root *roots = fxt_prof_roots(rp->pr.prof, k, &nroots);
	struct fxt_tree *t;
	struct fxt_tree_rec r;
	int rc = fxt_prof_tree(rp->pr.prof, &t);

	for (uint64_t i = 0; rc >= 0 && i < fxt_tree_size(t); i = r.end) {
		if ((rc = fxt_tree_get(t, i, &r)) < 0)
			break;
		if (r.kind != k || r.key >= nroots || (rc = root_shows(rp, t, &r, i)) <= 0)
			continue;
		print_owner(rp, roots[r.key].key.a, roots[r.key].key.b, what);
		printf("%12s %12s %10s  %s\n", "total", "self", "calls", "call path");
		rc = print_children(rp, t, i, 0, 0);
	}
	return rc < 0 ? rc : 0;
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
	for (uint32_t c = fxt_prof_node(rp->pr.prof, idx)->child; c;
	     c = fxt_prof_node(rp->pr.prof, c)->sibling) {
		const struct fxt_prof_node *n = fxt_prof_node(rp->pr.prof, c);
		struct fxt_sv up = caller;
		if (n->kind == FXT_PK_FUNC) {
			if (FXT_GROW(es->e, &es->cap, es->n + 1) < 0)
				return -ENOMEM;
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
	struct fxt_prof_root *roots = fxt_prof_roots(rp->pr.prof, FXT_PK_FUNC, &n);
	size_t ncallers;
	struct fxt_prof_root *callers = fxt_prof_callers(rp->pr.prof, &ncallers);

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

/* A change of calls: "0", "+N" or "-N". Returns buf. */
static char *calls_change(char *buf, size_t len, const uint64_t v[2])
{
	if (v[0] == v[1])
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%c%" PRIu64, v[1] > v[0] ? '+' : '-',
			 v[1] > v[0] ? v[1] - v[0] : v[0] - v[1]);
	return buf;
}

/* A change of time: "0", "+1.200 ms" or "-3 ns". Returns buf. */
static char *time_change(char *buf, size_t len, const uint64_t v[2])
{
	char t[32];

	if (v[0] == v[1])
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%c%s", v[1] > v[0] ? '+' : '-',
			 fxt_time_fmt(t, sizeof(t), v[1] > v[0] ? v[1] - v[0] : v[0] - v[1]));
	return buf;
}

/* new / old: "1.00" when equal (0 and 0 too), "-" when old is 0. Returns buf. */
static char *ratio(char *buf, size_t len, const uint64_t v[2])
{
	if (v[0] == v[1])
		snprintf(buf, len, "1.00");
	else if (!v[0])
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", (double)v[1] / (double)v[0]);
	return buf;
}

/* The function table of two runs side by side (run[0] old, run[1] new), summed over processes
 * and threads, sorted by the size of the change (fxt_prof_diff_sort()). Returns the exit
 * status. */
static int print_diff(struct report run[2], char **paths)
{
	struct fxt_prof_diff_row *rows;
	size_t n, shown = 0;
	char t[12][32];

	if (fxt_prof_diff(run[0].pr.prof, run[1].pr.prof, FXT_PK_FUNC, &rows, &n) < 0)
		return profread_no_memory(&run[0].pr, "report");
	fxt_prof_diff_sort(rows, n, run[0].sort);
	for (size_t i = 0; i < n; i++) {
		const struct fxt_prof_diff_row *d = &rows[i];
		if (!name_ok(&run[0], d->name) || (run[0].limit && shown >= run[0].limit))
			continue;
		if (!shown++)
			printf("== functions: %s -> %s (+ only in the second, - only in the first) ==\n"
			       "%10s %10s %10s %6s %11s %11s %12s %6s %11s %11s %12s %6s    %s\n",
			       paths[0], paths[1], "calls", "calls", "change", "ratio", "total",
			       "total", "change", "ratio", "self", "self", "change", "ratio",
			       "function");
		printf("%10" PRIu64 " %10" PRIu64 " %10s %6s %11s %11s %12s %6s %11s %11s %12s %6s  "
		       "%c %.*s\n", d->calls[0], d->calls[1],
		       calls_change(t[0], sizeof(t[0]), d->calls), ratio(t[1], sizeof(t[1]), d->calls),
		       fxt_time_fmt(t[2], sizeof(t[2]), d->total[0]),
		       fxt_time_fmt(t[3], sizeof(t[3]), d->total[1]),
		       time_change(t[4], sizeof(t[4]), d->total), ratio(t[5], sizeof(t[5]), d->total),
		       fxt_time_fmt(t[6], sizeof(t[6]), d->self[0]),
		       fxt_time_fmt(t[7], sizeof(t[7]), d->self[1]),
		       time_change(t[8], sizeof(t[8]), d->self), ratio(t[9], sizeof(t[9]), d->self),
		       !d->in[0] ? '+' : !d->in[1] ? '-' : ' ', (int)d->name.len, d->name.s);
	}
	free(rows);
	if (shown)
		return 0;
	if (run[0].glob) {
		fprintf(stderr, "fxt report: %s, %s: no calls match --function %s\n", paths[0],
			paths[1], run[0].glob);
		return CMD_EXIT_INVALID;
	}
	printf("%s, %s: no function calls recorded\n", paths[0], paths[1]);
	return 0;
}

/* `--diff OLD NEW`: each read as report reads one (selections apply to both, relative times
 * from each one's start), then side by side. An archive that cannot be read whole is not
 * compared: one line, its exit status. Returns the exit status. */
static int report_diff(const struct report *rp, const struct fxt_prof_opts *po, char **paths)
{
	struct report run[2] = { *rp, *rp };	/* the options; the selection's sets shared */
	int code = 0;
	char msg[320];

	for (int i = 0; i < 2 && !code; i++) {
		code = profread_status(&run[i].pr, "report", paths[i],
				       profread_load(&run[i].pr, "report", paths[i], po));
		if (!code && fxt_sel_warning(&run[i].pr.sel, run[i].pr.start_ns, msg, sizeof(msg)))
			fprintf(stderr, "fxt report: %s: %s\n", paths[i], msg);
	}
	if (!code)
		code = print_diff(run, paths);
	for (int i = 0; i < 2; i++)
		profread_free(&run[i].pr);
	return code;
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
		{ "edges", no_argument, 0, 'g' },      { "diff", no_argument, 0, 'd' },
		{ "tree-memory", required_argument, 0, 'M' },
		{ 0, 0, 0, 0 },
	};
	struct report rp = { .pr.start_ns = UINT64_MAX, .sort = FXT_SORT_SELF };
	struct fxt_prof_opts po = { 0 };
	static char globs[4096];	/* --function's lists, joined by commas */
	uint64_t lim, tree_mib = TREE_MEMORY_MIB;
	int c, code = 0, diff = 0, sort_set = 0;
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
			sort_set = 1;
			break;
		case 'l':
			if (parse_u64(optarg, &lim) < 0 || !lim) {
				fprintf(stderr, "fxt report: --limit %s: expected a positive number\n",
					optarg);
				return CMD_EXIT_ERROR;
			}
			rp.limit = (size_t)lim;
			break;
		case 'M':
			if (parse_u64(optarg, &tree_mib) < 0 || !tree_mib || tree_mib > (1u << 20)) {
				fprintf(stderr, "fxt report: --tree-memory %s: expected MiB, 1 to "
					"1048576\n", optarg);
				return CMD_EXIT_ERROR;
			}
			break;
		case 'T': rp.threads = 1; break;
		case 't': rp.tree = 1; break;
		case 'g': rp.edges = 1; break;
		case 'd': diff = 1; break;
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
		case FXT_SEL_FROM: case FXT_SEL_TO:
			if (fxt_sel_option(&rp.pr.sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt report: %s\n", msg);
				fxt_sel_free(&rp.pr.sel);
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
		default:
			fxt_sel_free(&rp.pr.sel);
			return cmd_sel_usage(c, usage);
		}
	}
	if (fxt_sel_operands(&rp.pr.sel, "report", argc - optind, diff ? 2 : 1, msg,
			     sizeof(msg)) < 0) {
		fprintf(stderr, "fxt report: %s\n", msg);
		fxt_sel_free(&rp.pr.sel);
		return CMD_EXIT_ERROR;
	}
	if (diff && (rp.threads || rp.tree || rp.edges ||
		     (rp.sort != FXT_SORT_TOTAL && rp.sort != FXT_SORT_SELF &&
		      rp.sort != FXT_SORT_CALLS && rp.sort != FXT_SORT_NAME))) {
		fprintf(stderr, "fxt report: --diff compares functions over all processes and "
			"threads: no --threads, --tree or --edges; --sort total, self, calls or "
			"name\n");
		fxt_sel_free(&rp.pr.sel);
		return CMD_EXIT_ERROR;
	}
	po.per_thread = rp.threads;
	po.tree = rp.tree || rp.edges;
	po.edges = rp.edges;
	/* the nodes two thirds; the tree's records, when it fits, at most the rest */
	po.tree_budget = rp.tree && !rp.edges ? (size_t)(tree_mib << 20) / 3 * 2 : 0;
	if (diff) {
		if (!sort_set)
			rp.sort = FXT_SORT_TOTAL;	/* uftrace report --diff's default key */
		code = report_diff(&rp, &po, argv + optind);
		fxt_sel_free(&rp.pr.sel);
		return code;
	}
	if ((code = profread_load(&rp.pr, "report", argv[optind], &po)))
		goto out;
	if (rp.edges) {
		if (print_edges(&rp) < 0)
			goto nomem;
		goto done;
	}
	if (rp.tree) {
		int rc = print_trees(&rp, FXT_PK_FUNC, "call tree");
		if (rc >= 0)
			rc = print_trees(&rp, FXT_PK_SAMPLE, "sampled call tree");
		if (rc == -ENOMEM)
			goto nomem;
		if (rc < 0) {
			code = profread_tree_error(&rp.pr, "report", rc);
			goto out;
		}
	} else {
		print_table(&rp, FXT_PK_FUNC, "functions", "calls", "function", 1);
		print_table(&rp, FXT_PK_SAMPLE, "sampled stacks (time estimated from slices)",
			    "slices", "function", 1);
	}
	print_table(&rp, FXT_PK_LOCK, "lock waits", "waits", "object", 0);
	print_table(&rp, FXT_PK_THREAD, "thread creation (tracer spans, category pthread)",
		    "calls", "span", 0);
	print_table(&rp, FXT_PK_STALL, "tracer stalls (category fxtauto)", "stalls", "stall", 0);
	if (fxt_prof_unclosed(rp.pr.prof))
		printf("\n%" PRIu64 " begin events never ended (not counted)\n",
		       fxt_prof_unclosed(rp.pr.prof));
done:
	if (!rp.edges)
		profread_print_loss(&rp.pr, stdout);
	if (!rp.printed && !rp.glob && !fxt_sel_window(&rp.pr.sel) && !fxt_sel_threads(&rp.pr.sel))
		printf("%s: no function calls recorded\n", argv[optind]);
	if (!rp.printed && (rp.glob || fxt_sel_window(&rp.pr.sel))) {
		struct fxt_sel window = rp.pr.sel;	/* the window alone */
		window.pids.n = window.tids.n = 0;
		fprintf(stderr, "fxt report: %s: no calls match%s%s%s\n", argv[optind],
			rp.glob ? " --function " : "", rp.glob ? rp.glob : "",
			fxt_sel_describe(&window, what, sizeof(what)));
		code = CMD_EXIT_INVALID;
	}
	if (fxt_sel_warning(&rp.pr.sel, rp.pr.start_ns, msg, sizeof(msg)))
		fprintf(stderr, "fxt report: %s\n", msg);
out:
	code = profread_status(&rp.pr, "report", argv[optind], code);
	profread_free(&rp.pr);
	fxt_sel_free(&rp.pr.sel);
	return code;
nomem:
	code = profread_no_memory(&rp.pr, "report");
	goto out;
}
