/* fxt-calls: canonical summary of the function calls in an FXT archive, for end-to-end tests.
 * Reads every record with the project's reader (strict mode), counts duration complete events
 * per thread name, function and caller/callee pair, and checks that durations on each thread
 * nest or are disjoint, that every thread with events is named by a kernel object record whose
 * `process` koid names a process, and that nothing was dropped. Output is sorted, so it diffs
 * against a golden file; a violation prints one line on stderr, exit 1 (2: usage error). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/reader.h"

/* One duration complete event, reduced to what the checks need. */
struct call {
	uint64_t start, end;
	uint32_t func;	/* index into the function table */
	uint32_t parent; /* func of the innermost enclosing call, or NO_PARENT (check_nesting) */
};

#define NO_PARENT UINT32_MAX

/* Events of one thread (by koid pair), and its name from the latest kernel object record. */
struct thread {
	struct fxt_koids koids;
	struct call *calls;
	size_t ncalls, cap;
	struct fxt_sv name;
	int named;
	uint64_t process_koid;	/* `process` argument of its kernel object record */
	uint64_t depth;		/* deepest nesting found by check_nesting() */
};

/* Interned function names: open addressing over views into the mapped archive. */
struct functab {
	struct fxt_sv *names;
	size_t names_cap;
	uint32_t n, cap;	/* cap: power of two, slots holds index + 1 (0 = empty) */
	uint32_t *slots;
};

struct summary {
	struct thread *threads;
	size_t nthreads, cap;
	struct functab funcs;
	struct process {
		uint64_t koid;
		struct fxt_sv name;
	} *procs;
	size_t nprocs, proc_cap;
	uint64_t drops;
};

static void die(const char *fmt, const char *arg)
{
	fputs("fxt-calls: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p)
		die("%s", "out of memory");
	*cap = n;
	return p;
}

static int sv_eq(struct fxt_sv a, struct fxt_sv b)
{
	return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

static int sv_cmp(struct fxt_sv a, struct fxt_sv b)
{
	int c = memcmp(a.s, b.s, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static uint32_t sv_hash(struct fxt_sv v)
{
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < v.len; i++)
		h = (h ^ (unsigned char)v.s[i]) * 16777619u;
	return h;
}

static void functab_rehash(struct functab *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	free(t->slots);
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		die("%s", "out of memory");
	t->cap = cap;
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t s = sv_hash(t->names[i]) & (cap - 1);
		while (t->slots[s])
			s = (s + 1) & (cap - 1);
		t->slots[s] = i + 1;
	}
}

static uint32_t functab_intern(struct functab *t, struct fxt_sv name)
{
	t->names = grow(t->names, &t->names_cap, t->n + 1, sizeof(*t->names));
	if ((t->n + 1) * 2 > t->cap)
		functab_rehash(t);
	uint32_t s = sv_hash(name) & (t->cap - 1);
	for (; t->slots[s]; s = (s + 1) & (t->cap - 1))
		if (sv_eq(t->names[t->slots[s] - 1], name))
			return t->slots[s] - 1;
	t->names[t->n] = name;
	t->slots[s] = ++t->n;
	return t->n - 1;
}

static struct thread *thread_of(struct summary *sum, struct fxt_koids k)
{
	for (size_t i = sum->nthreads; i-- > 0;)
		if (sum->threads[i].koids.pid == k.pid && sum->threads[i].koids.tid == k.tid)
			return &sum->threads[i];
	sum->threads = grow(sum->threads, &sum->cap, sum->nthreads + 1, sizeof(*sum->threads));
	struct thread *t = &sum->threads[sum->nthreads++];
	memset(t, 0, sizeof(*t));
	t->koids = k;
	return t;
}

/* A thread kernel object record names the thread with koid == tid of the process given by
 * its `process` argument; without that argument the thread cannot be placed. */
static void add_kobj(struct summary *sum, const struct fxt_record *rec)
{
	if (rec->u.kobj.obj_type == FXT_OBJ_TYPE_PROCESS) {
		sum->procs = grow(sum->procs, &sum->proc_cap, sum->nprocs + 1, sizeof(*sum->procs));
		sum->procs[sum->nprocs++] = (struct process){ rec->u.kobj.koid, rec->u.kobj.name };
		return;
	}
	if (rec->u.kobj.obj_type != FXT_OBJ_TYPE_THREAD)
		return;
	for (unsigned i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];
		if (a->type == FXT_AT_KOID && sv_eq(a->name, (struct fxt_sv){ "process", 7 })) {
			struct fxt_koids k = { a->v.u64, rec->u.kobj.koid };
			struct thread *t = thread_of(sum, k);
			t->name = rec->u.kobj.name;
			t->named = 1;
			t->process_koid = a->v.u64;
			return;
		}
	}
	fprintf(stderr, "fxt-calls: thread kernel object %" PRIu64 " at offset %" PRIu64
		" has no `process` koid argument\n", rec->u.kobj.koid, rec->offset);
	exit(1);
}

static void add_event(struct summary *sum, const struct fxt_record *rec)
{
	if (rec->u.event.event_type != FXT_ET_DURATION_COMPLETE ||	/* waits, thread starts */
	    sv_eq(rec->u.event.category, (struct fxt_sv){ "lock", 4 }) ||	/* are not calls */
	    sv_eq(rec->u.event.category, (struct fxt_sv){ "pthread", 7 }) ||
	    sv_eq(rec->u.event.category, (struct fxt_sv){ "fxtauto", 7 }))	/* tracer stalls */
		return;
	if (rec->u.event.end_ts < rec->u.event.ts) {
		fprintf(stderr, "fxt-calls: complete event at offset %" PRIu64 " ends before it starts\n",
			rec->offset);
		exit(1);
	}
	struct thread *t = thread_of(sum, rec->u.event.thread);
	t->calls = grow(t->calls, &t->cap, t->ncalls + 1, sizeof(*t->calls));
	t->calls[t->ncalls++] = (struct call){ rec->u.event.ts, rec->u.event.end_ts,
					       functab_intern(&sum->funcs, rec->u.event.name),
					       NO_PARENT };
}

static void read_archive(struct summary *sum, struct fxt_reader *r, const char *path)
{
	struct fxt_record rec;
	int res;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (rec.type == FXT_RT_EVENT)
			add_event(sum, &rec);
		else if (rec.type == FXT_RT_KERNEL_OBJECT)
			add_kobj(sum, &rec);
		else if (rec.type == FXT_RT_METADATA && rec.u.meta.meta_type == FXT_MT_PROVIDER_EVENT &&
			 rec.u.meta.event_id == FXT_PE_BUFFER_OVERFLOW)
			sum->drops++;
	}
	if (res != FXT_READ_END) {
		const struct fxt_read_error *e = fxt_reader_error(r);
		fprintf(stderr, "fxt-calls: %s: %s at offset %" PRIu64 ": %s\n", path,
			res == FXT_READ_TRUNCATED ? "truncated" : "corrupt", e->offset, e->msg);
		exit(1);
	}
}

static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);	/* longer (enclosing) first */
}

/* With calls sorted by start (enclosing first on ties), a stack of open intervals finds any
 * pair that overlaps without one containing the other. Records the deepest nesting. */
static void check_nesting(struct summary *sum, struct thread *t)
{
	struct call **stack = malloc((t->ncalls + 1) * sizeof(*stack));
	size_t depth = 0;
	if (!stack)
		die("%s", "out of memory");
	qsort(t->calls, t->ncalls, sizeof(*t->calls), call_cmp);
	for (size_t i = 0; i < t->ncalls; i++) {
		struct call *c = &t->calls[i];
		while (depth && c->end > stack[depth - 1]->end) {
			struct call *top = stack[depth - 1];
			if (c->start < top->end) {
				fprintf(stderr, "fxt-calls: thread %" PRIu64 ": %.*s [%" PRIu64 ",%" PRIu64
					"] overlaps %.*s [%" PRIu64 ",%" PRIu64 "] without nesting\n",
					t->koids.tid, (int)sum->funcs.names[c->func].len,
					sum->funcs.names[c->func].s, c->start, c->end,
					(int)sum->funcs.names[top->func].len, sum->funcs.names[top->func].s,
					top->start, top->end);
				exit(1);
			}
			depth--;
		}
		c->parent = depth ? stack[depth - 1]->func : NO_PARENT;
		stack[depth++] = c;
		if (depth > t->depth)
			t->depth = depth;
	}
	free(stack);
}

/* Every thread that has events must be named, and its process must be named too. */
static void check_threads(struct summary *sum)
{
	for (size_t i = 0; i < sum->nthreads; i++) {
		struct thread *t = &sum->threads[i];
		if (!t->named) {
			fprintf(stderr, "fxt-calls: thread %" PRIu64 " of process %" PRIu64
				" has events but no kernel object record naming it\n", t->koids.tid,
				t->koids.pid);
			exit(1);
		}
		size_t p = 0;
		while (p < sum->nprocs && sum->procs[p].koid != t->process_koid)
			p++;
		if (p == sum->nprocs) {
			fprintf(stderr, "fxt-calls: thread %" PRIu64 " names process %" PRIu64
				" but no process kernel object record has that koid\n", t->koids.tid,
				t->process_koid);
			exit(1);
		}
		check_nesting(sum, t);
	}
}

static int thread_name_cmp(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	return sv_cmp(x->name, y->name);
}

static const struct functab *sort_funcs_tab;
static int func_order_cmp(const void *a, const void *b)
{
	return sv_cmp(sort_funcs_tab->names[*(const uint32_t *)a],
		      sort_funcs_tab->names[*(const uint32_t *)b]);
}

/* Function indices in name order, so every listing below is sorted. */
static uint32_t *func_order(const struct functab *t)
{
	uint32_t *order = malloc((t->n + 1) * sizeof(*order));
	if (!order)
		die("%s", "out of memory");
	for (uint32_t i = 0; i < t->n; i++)
		order[i] = i;
	sort_funcs_tab = t;
	qsort(order, t->n, sizeof(*order), func_order_cmp);
	return order;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* `edge THREAD COUNT CALLER CALLEE` for threads [from, to): how often each function ran
 * directly inside each other one (CALLER `-`: at the top of the thread), sorted by name.
 * rank[f] is f's position in name order. */
static void print_edges(const struct summary *sum, size_t from, size_t to, const uint32_t *order,
			const uint32_t *rank)
{
	size_t n = 0, k = 0;
	for (size_t i = from; i < to; i++)
		n += sum->threads[i].ncalls;
	uint64_t *keys = malloc((n + 1) * sizeof(*keys));
	if (!keys)
		die("%s", "out of memory");
	for (size_t i = from; i < to; i++)
		for (size_t c = 0; c < sum->threads[i].ncalls; c++) {
			const struct call *call = &sum->threads[i].calls[c];
			uint64_t p = call->parent == NO_PARENT ? 0 : rank[call->parent] + 1ull;
			keys[k++] = p << 32 | rank[call->func];
		}
	qsort(keys, n, sizeof(*keys), u64_cmp);
	struct fxt_sv thread = sum->threads[from].name;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && keys[j] == keys[i]; j++)
			;
		uint64_t p = keys[i] >> 32;
		struct fxt_sv callee = sum->funcs.names[order[(uint32_t)keys[i]]];
		struct fxt_sv caller = p ? sum->funcs.names[order[p - 1]] : (struct fxt_sv){ "-", 1 };
		printf("edge\t%.*s\t%zu\t%.*s\t%.*s\n", (int)thread.len, thread.s, j - i,
		       (int)caller.len, caller.s, (int)callee.len, callee.s);
	}
	free(keys);
}

/* Prints one line per group of threads sharing a name (`thread NAME COUNT MAXDEPTH`), then
 * `call THREAD COUNT FUNCTION` per function that group called and its edges (print_edges),
 * all tab-separated. */
static void print_by_thread(struct summary *sum, const uint32_t *order, int want_calls)
{
	uint64_t *counts = calloc(sum->funcs.n + 1, sizeof(*counts));
	uint32_t *rank = malloc((sum->funcs.n + 1) * sizeof(*rank));
	if (!counts || !rank)
		die("%s", "out of memory");
	for (uint32_t f = 0; f < sum->funcs.n; f++)
		rank[order[f]] = f;
	qsort(sum->threads, sum->nthreads, sizeof(*sum->threads), thread_name_cmp);
	for (size_t i = 0; i < sum->nthreads;) {
		size_t j = i;
		uint64_t depth = 0;
		memset(counts, 0, sum->funcs.n * sizeof(*counts));
		for (; j < sum->nthreads && sv_eq(sum->threads[j].name, sum->threads[i].name); j++) {
			for (size_t c = 0; c < sum->threads[j].ncalls; c++)
				counts[sum->threads[j].calls[c].func]++;
			if (sum->threads[j].depth > depth)
				depth = sum->threads[j].depth;
		}
		struct fxt_sv name = sum->threads[i].name;
		printf("thread\t%.*s\t%zu\t%" PRIu64 "\n", (int)name.len, name.s, j - i, depth);
		for (uint32_t f = 0; want_calls && f < sum->funcs.n; f++)
			if (counts[order[f]])
				printf("call\t%.*s\t%" PRIu64 "\t%.*s\n", (int)name.len, name.s,
				       counts[order[f]], (int)sum->funcs.names[order[f]].len,
				       sum->funcs.names[order[f]].s);
		if (want_calls)
			print_edges(sum, i, j, order, rank);
		i = j;
	}
	free(counts);
	free(rank);
}

/* `func COUNT FUNCTION` over all threads: for programs whose work moves between threads. */
static void print_functions(struct summary *sum, const uint32_t *order)
{
	uint64_t *counts = calloc(sum->funcs.n + 1, sizeof(*counts));
	if (!counts)
		die("%s", "out of memory");
	for (size_t i = 0; i < sum->nthreads; i++)
		for (size_t c = 0; c < sum->threads[i].ncalls; c++)
			counts[sum->threads[i].calls[c].func]++;
	for (uint32_t f = 0; f < sum->funcs.n; f++)
		printf("func\t%" PRIu64 "\t%.*s\n", counts[order[f]], (int)sum->funcs.names[order[f]].len,
		       sum->funcs.names[order[f]].s);
	free(counts);
}

static void usage(FILE *f)
{
	fputs("usage: fxt-calls [-f|-t|-p|-n] ARCHIVE\n"
	      "  (default) per thread name: `thread NAME NTHREADS MAXDEPTH`, then\n"
	      "            `call THREAD COUNT FUNCTION` for each function it called and\n"
	      "            `edge THREAD COUNT CALLER CALLEE` for each caller/callee pair\n"
	      "  -t        thread lines only\n"
	      "  -f        `func COUNT FUNCTION` summed over all threads\n"
	      "  -p        `process NAME` for each process kernel object record\n"
	      "  -n        total number of duration complete events\n"
	      "Checks nesting, thread and process names, no drops; exits 1 with one line if not.\n",
	      f);
}

int main(int argc, char **argv)
{
	int mode = 'c', opt;
	while ((opt = getopt(argc, argv, "ftpnh")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt == '?')
			return usage(stderr), 2;
		mode = opt;
	}
	if (optind + 1 != argc)
		return usage(stderr), 2;

	const char *path = argv[optind];
	struct fxt_reader *r;
	int err = fxt_reader_open(&r, path, FXT_READER_STRICT);
	if (err) {
		fprintf(stderr, "fxt-calls: %s: %s\n", path, strerror(-err));
		return 1;
	}
	struct summary sum = { 0 };
	read_archive(&sum, r, path);
	if (sum.drops)
		die("%s", "the archive reports dropped records: counts would be incomplete");
	if (fxt_reader_stats(r)->records == 0)
		die("%s: empty archive", path);
	check_threads(&sum);

	uint32_t *order = func_order(&sum.funcs);
	uint64_t total = 0;
	switch (mode) {
	case 'f':
		print_functions(&sum, order);
		break;
	case 'p':
		for (size_t i = 0; i < sum.nprocs; i++)
			printf("process\t%.*s\n", (int)sum.procs[i].name.len, sum.procs[i].name.s);
		break;
	case 'n':
		for (size_t i = 0; i < sum.nthreads; i++)
			total += sum.threads[i].ncalls;
		printf("%" PRIu64 "\n", total);
		break;
	default:
		print_by_thread(&sum, order, mode == 'c');
	}
	free(order);
	for (size_t i = 0; i < sum.nthreads; i++)
		free(sum.threads[i].calls);
	free(sum.threads);
	free(sum.funcs.names);
	free(sum.funcs.slots);
	free(sum.procs);
	fxt_reader_close(r);
	return 0;
}
