/* Exact profile aggregation in two passes over the same spans (client.h): per-function rows
 * (calls, total, self, max) and an optional call tree. Spans are cut into runs: stretches of
 * one thread's spans that it wrote one after the other (a chunk, or part of one). Inside a run
 * a walk from its end meets every parent before its children, so one stack of open ancestors
 * gives each span's callee time. A parent in another run is one that began at or before its
 * run's earliest end (the chain of frames open there, at most the stack depth per run): pass 1
 * keeps just those "cross" spans per thread, sorted into a skeleton tree; in pass 2 a span
 * with no parent in its run finds it in the skeleton. So runs may come in any order, and memory
 * is a run (RUN_CAP spans), its stack, the skeleton, rows and distinct tree paths (with edges,
 * distinct caller->callee pairs: a function's callees hang under one node of it). With a tree
 * budget, the paths made in pass 2 are written out (calltree.c) whenever another run could
 * take the tree past it, and dropped: the skeleton's nodes, made before pass 2, stay. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

/* Spans of FUNC, LOCK, STALL and THREAD nest together; SAMPLE slices form their own timeline. */
enum { FAM_CALLS, FAM_SAMPLES, FAM_COUNT };

/* Spans buffered per run: splitting a run anywhere keeps it a stretch of one writer. */
#define RUN_CAP 4096u

struct span {
	uint64_t start, end;
	struct fxt_sv name;
	unsigned kind;
	uint32_t cross; /* skeleton index + 1 of a cross span (pass 2), 0 for others */
	uint32_t at;	/* its place in its run as written */
};

/* A cross span: a parent maybe of spans in other runs. */
struct cross {
	uint64_t start, end, callees, callees_on;
	struct fxt_sv name; /* pass 1 copies it into the pool: pass 1's views die with its reader */
	unsigned kind;
	uint32_t seq;	 /* its rank among its thread's cross spans in input order */
	uint32_t parent; /* skeleton index + 1, 0: a root */
	uint32_t node;	 /* tree node index + 1 */
};

struct open {
	uint64_t start;
	struct fxt_sv name;
	unsigned kind;
};

/* The first and last end of one run (pass 1). */
struct ends {
	uint64_t first, last;
};

struct fam {
	struct cross *x;	/* pass 1: in input order; pass 2: sorted (the skeleton) */
	uint32_t nx;
	size_t cx;		/* room in x */
	struct ends *ends;	/* pass 1: each run's ends */
	uint32_t nends;
	size_t cends;		/* room in ends */
	int all_cross;		/* every span may be a parent: this thread's runs interleave in
				 * time (a signal handler's level writes a chunk of its own while
				 * level 0's is open; a call written late in another run) */
	uint32_t *by_seq;	/* pass 2: seq -> skeleton index */
	uint32_t hint;		/* pass 2: skeleton_find()'s last place: the spans of a run
				 * mostly lie between the same two cross spans' starts */
	uint32_t seq;		/* cross spans met so far in this pass */
	struct open *open;
	uint32_t nopen;
	size_t copen;		/* room in open */
	uint32_t root;		/* tree root node index + 1, 0 until needed */
};

struct thr {
	struct ckey key; /* a = pid, b = tid */
	uint32_t index;	 /* its index + 1 in thrs (entries move as the table grows) */
	struct fam f[FAM_COUNT];
};

/* Direct-mapped cache from a name's address (indexed strings share it) to its row. */
#define RCACHE_SIZE 4096
struct rcache {
	const char *s;
	uint32_t len, row;
	unsigned kind;
	uint64_t pid, tid;
};

/* An open ancestor in the walk of a run. */
struct anc {
	uint32_t i;	 /* run index */
	uint32_t node;
	uint64_t on;	 /* its on-CPU time */
	uint64_t callees, callees_on;
};

/* Tree child lookup: (parent node, kind, name) -> node. */
struct child {
	struct ckey key;
	uint32_t node;
};

/* Direct-mapped cache in front of it, by the name's address (indexed names share one). */
#define NCACHE_SIZE 4096
struct ncache {
	const char *s;
	uint32_t len, parent, kind, node;
};

struct pool {
	struct pool *next;
	size_t used, cap;
	char data[];
};

struct fxt_prof {
	struct fxt_prof_opts o;
	int pass;	/* 1 or 2 */
	struct ctab rows[FXT_PK_COUNT];
	struct ctab roots[FXT_PK_COUNT];
	struct ctab thrs, children;
	struct ctab callers;	/* edges: name -> struct fxt_prof_root of its caller node */
	struct thr *last;
	struct span run[RUN_CAP];
	uint32_t nrun;
	uint32_t run_thr; /* thread index + 1 in thrs (a ctab moves its entries as it grows) */
	int run_fam;
	struct anc *stack;
	uint32_t nstack;
	size_t cstack;		/* room in stack */
	struct fxt_prof_node *nodes;
	uint32_t nnodes;
	size_t cnodes;		/* room in nodes */
	uint64_t unclosed, cross_total;
	struct pool *pool;
	struct rcache rc[RCACHE_SIZE];
	struct ncache nc[NCACHE_SIZE];
	struct fxt_oncpu *oncpu;	/* or NULL: on CPU throughout */
	uint64_t made;		/* nodes made, written out ones too: the next node's seq */
	uint32_t npinned;	/* nodes made before pass 2 (roots, the skeleton's): never dropped */
	uint32_t nchildren_pinned; /* their entries in children, the first ones */
	struct fxt_tree *tree;	/* what was written out, then the records; or NULL */
	int tree_done;
};

int fxt_prof_new(struct fxt_prof **out, const struct fxt_prof_opts *o)
{
	struct fxt_prof *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->pass = 1;
	if (!p->o.to_ns)
		p->o.to_ns = UINT64_MAX;
	for (int k = 0; k < FXT_PK_COUNT; k++) {
		ctab_init(&p->rows[k], sizeof(struct fxt_prof_row));
		ctab_init(&p->roots[k], sizeof(struct fxt_prof_root));
	}
	ctab_init(&p->thrs, sizeof(struct thr));
	ctab_init(&p->children, sizeof(struct child));
	ctab_init(&p->callers, sizeof(struct fxt_prof_root));
	*out = p;
	return 0;
}

void fxt_prof_set_oncpu(struct fxt_prof *p, struct fxt_oncpu *o)
{
	p->oncpu = o;
}

static void thr_drop(void *entry)
{
	struct thr *t = entry;
	for (int f = 0; f < FAM_COUNT; f++) {
		free(t->f[f].x);
		free(t->f[f].ends);
		free(t->f[f].by_seq);
		free(t->f[f].open);
	}
}

void fxt_prof_free(struct fxt_prof *p)
{
	if (!p)
		return;
	for (int k = 0; k < FXT_PK_COUNT; k++) {
		ctab_free(&p->rows[k]);
		ctab_free(&p->roots[k]);
	}
	ctab_free_each(&p->thrs, thr_drop);
	ctab_free(&p->children);
	ctab_free(&p->callers);
	while (p->pool) {
		struct pool *n = p->pool->next;
		free(p->pool);
		p->pool = n;
	}
	free(p->stack);
	free(p->nodes);
	fxt_tree_free(p->tree);
	free(p);
}

/* A copy of s that lives as long as p. Returns 0 or -ENOMEM. */
static int pool_copy(struct fxt_prof *p, struct fxt_sv *s)
{
	struct pool *b = p->pool;

	if (!b || b->cap - b->used < s->len) {
		size_t cap = s->len > 65536 ? s->len : 65536;
		if (!(b = malloc(sizeof(*b) + cap)))
			return -ENOMEM;
		b->next = p->pool;
		b->used = 0;
		b->cap = cap;
		p->pool = b;
	}
	if (s->len)
		memcpy(b->data + b->used, s->s, s->len);
	s->s = b->data + b->used;
	b->used += s->len;
	return 0;
}

static int fam_of(unsigned k)
{
	return k == FXT_PK_SAMPLE ? FAM_SAMPLES : FAM_CALLS;
}

static struct thr *thr_get(struct fxt_prof *p, uint64_t pid, uint64_t tid)
{
	struct ckey k = { pid, tid, { "", 0 } };
	int64_t i;

	if (p->last && p->last->key.a == pid && p->last->key.b == tid)
		return p->last;
	i = ctab_get(&p->thrs, &k, 1);
	p->last = i < 0 ? NULL : ctab_at(&p->thrs, (uint32_t)i);
	if (p->last)
		p->last->index = (uint32_t)i + 1;
	return p->last;
}

static struct fxt_prof_row *row_get(struct fxt_prof *p, unsigned k, uint64_t pid, uint64_t tid,
				    struct fxt_sv name)
{
	uintptr_t h = ((uintptr_t)name.s ^ (uintptr_t)(tid * 0x9e3779b97f4a7c15ULL) ^ k) >> 3;
	struct rcache *c = &p->rc[(h ^ (h >> 12)) & (RCACHE_SIZE - 1)];
	struct ckey key = { pid, p->o.per_thread ? tid : 0, name };
	int64_t i;

	if (c->s == name.s && c->len == name.len && c->kind == k && c->pid == pid &&
	    c->tid == tid)
		return ctab_at(&p->rows[k], c->row);
	i = ctab_get(&p->rows[k], &key, 1);
	if (i < 0)
		return NULL;
	*c = (struct rcache){ name.s, name.len, (uint32_t)i, k, pid, tid };
	return ctab_at(&p->rows[k], (uint32_t)i);
}

/* On-CPU ns of thread t in [start, end]: all of it without switch records. */
static uint64_t on_cpu(struct fxt_prof *p, const struct thr *t, uint64_t start, uint64_t end)
{
	return p->oncpu ? fxt_oncpu_time(p->oncpu, t->key.b, start, end) : end - start;
}

/* Counts one call of kind k into its row when it lies in the window. on: its on-CPU time
 * (on_cpu()), callees: time in its recorded callees, callees_on: of that, on CPU. Self time is
 * on-CPU time: the call's own on-CPU time less its callees' (equal to wall self time without
 * switch records). Returns 0 or -ENOMEM. */
static int count(struct fxt_prof *p, const struct thr *t, unsigned k, struct fxt_sv name,
		 uint64_t start, uint64_t end, uint64_t on, uint64_t callees, uint64_t callees_on,
		 uint32_t node)
{
	uint64_t dur = end - start;
	uint64_t self = p->oncpu ? (callees_on < on ? on - callees_on : 0)
				 : (callees < dur ? dur - callees : 0);
	struct fxt_prof_row *r;

	if (start < p->o.from_ns || end > p->o.to_ns)
		return 0;
	if (!(r = row_get(p, k, t->key.a, t->key.b, name)))
		return -ENOMEM;
	r->calls++;
	r->total += dur;
	r->self += self;
	r->oncpu += on;
	if (dur > r->max)
		r->max = dur;
	if (node) {
		struct fxt_prof_node *n = &p->nodes[node - 1];
		n->calls++;
		n->total += dur;
		n->self += self;
	}
	return 0;
}

/* ---- call tree nodes ---- */

static uint32_t node_new(struct fxt_prof *p, struct fxt_sv name, unsigned kind)
{
	if (FXT_GROW(p->nodes, &p->cnodes, (size_t)p->nnodes + 1) < 0)
		return 0;
	memset(&p->nodes[p->nnodes], 0, sizeof(p->nodes[0]));
	p->nodes[p->nnodes].name = name;
	p->nodes[p->nnodes].kind = kind;
	p->nodes[p->nnodes].seq = ++p->made;
	return ++p->nnodes;
}

/* Edges: the node of function name as a caller, made on first use (name's view lives as long
 * as p: a tree node's). Returns its index + 1, 0 on ENOMEM. */
static uint32_t caller_node(struct fxt_prof *p, struct fxt_sv name)
{
	struct ckey k = { 0, 0, name };
	int64_t i = ctab_get(&p->callers, &k, 1);
	struct fxt_prof_root *c;

	if (i < 0)
		return 0;
	c = ctab_at(&p->callers, (uint32_t)i);
	if (!c->node)
		c->node = node_new(p, name, FXT_PK_FUNC);
	return c->node;
}

/* The child of parent for (kind, name), made on first use; with edges, a function's callees
 * are children of its caller node, whatever the path to it. Returns its index + 1, 0 on
 * ENOMEM. */
static uint32_t node_child(struct fxt_prof *p, uint32_t parent, unsigned kind, struct fxt_sv name)
{
	struct ckey k = { p->nodes[parent - 1].caller ? p->nodes[parent - 1].caller : parent, kind,
			  name };
	uintptr_t h = ((uintptr_t)name.s >> 3) ^ ((uintptr_t)k.a * 0x9e3779b1u) ^ kind;
	struct ncache *hit = &p->nc[(h ^ (h >> 12)) & (NCACHE_SIZE - 1)];
	int64_t i;
	struct child *c;

	parent = (uint32_t)k.a;
	if (hit->s == name.s && hit->len == name.len && hit->parent == parent && hit->kind == kind &&
	    hit->node)
		return hit->node;
	if ((i = ctab_get(&p->children, &k, 1)) < 0)
		return 0;
	c = ctab_at(&p->children, (uint32_t)i);
	if (!c->node) {
		uint32_t caller = 0;
		if (p->o.edges && kind == FXT_PK_FUNC && !(caller = caller_node(p, name)))
			return 0;
		if (!(c->node = node_new(p, name, kind)))
			return 0;
		p->nodes[c->node - 1].caller = caller;
		p->nodes[c->node - 1].sibling = p->nodes[parent - 1].child;
		p->nodes[parent - 1].child = c->node;
	}
	*hit = (struct ncache){ name.s, name.len, parent, kind, c->node };
	return c->node;
}

/* The nameless root of thread t's tree of family f (per process unless per_thread). */
static uint32_t root_of(struct fxt_prof *p, struct thr *t, int f)
{
	unsigned k = f == FAM_SAMPLES ? FXT_PK_SAMPLE : FXT_PK_FUNC;
	struct ckey key = { t->key.a, p->o.per_thread ? t->key.b : 0, { "", 0 } };
	struct fxt_prof_root *root;
	int64_t ri;

	if (t->f[f].root)
		return t->f[f].root;
	if ((ri = ctab_get(&p->roots[k], &key, 1)) < 0)
		return 0;
	root = ctab_at(&p->roots[k], (uint32_t)ri);
	if (!root->node && !(root->node = node_new(p, key.s, k)))
		return 0;
	return t->f[f].root = root->node;
}

/* ---- the skeleton of cross spans ---- */

static int cross_cmp(const void *x, const void *y)
{
	const struct cross *a = x, *b = y;
	int c = fxt_cmp_u64(a->start, b->start);

	if (!c)
		c = fxt_cmp_u64(b->end, a->end); /* the outer one first */
	return c ? c : fxt_cmp_u64(b->seq, a->seq); /* same interval: the later one encloses */
}

/* Sorts thread t's cross spans of family f and links each to its innermost enclosing one.
 * Returns 0 or -ENOMEM. */
static int skeleton_build(struct fxt_prof *p, struct thr *t, int f)
{
	struct fam *fm = &t->f[f];
	uint32_t *stack, n = 0;

	if (!fm->nx)
		return 0;
	qsort(fm->x, fm->nx, sizeof(*fm->x), cross_cmp);
	fm->by_seq = malloc(fm->nx * sizeof(*fm->by_seq));
	stack = malloc(fm->nx * sizeof(*stack));
	if (!fm->by_seq || !stack) {
		free(stack);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < fm->nx; i++) {
		struct cross *c = &fm->x[i];
		while (n && fm->x[stack[n - 1]].end < c->end)
			n--;
		c->parent = n ? stack[n - 1] + 1 : 0;
		stack[n++] = i;
		fm->by_seq[c->seq < fm->nx ? c->seq : 0] = i;
		c->callees = c->callees_on = 0;
		if (p->o.tree) {
			uint32_t up = c->parent ? fm->x[c->parent - 1].node : root_of(p, t, f);
			if (!up || !(c->node = node_child(p, up, c->kind, c->name))) {
				free(stack);
				return -ENOMEM;
			}
		}
	}
	free(stack);
	return 0;
}

/* The innermost cross span of fm enclosing [start, end]: index + 1, 0 when none. */
static uint32_t skeleton_find(struct fam *fm, uint64_t start, uint64_t end)
{
	/* the first cross span starting after start */
	uint32_t lo = fxt_upper_bound(fm->x, sizeof(*fm->x), offsetof(struct cross, start), fm->nx,
				      fm->hint, start), j;

	fm->hint = lo;
	for (j = lo; j && fm->x[j - 1].end < end; j = fm->x[j - 1].parent)
		;
	return j;
}

/* ---- runs ---- */

/* The earliest end of the current run: spans starting at or before it may enclose spans of
 * runs written before it. */
static uint64_t run_first_end(const struct fxt_prof *p)
{
	uint64_t m = UINT64_MAX;
	for (uint32_t i = 0; i < p->nrun; i++)
		if (p->run[i].end < m)
			m = p->run[i].end;
	return m;
}

static int pass1_run(struct fxt_prof *p, struct thr *t, int f)
{
	struct fam *fm = &t->f[f];
	uint64_t first = run_first_end(p), last = 0;

	for (uint32_t i = 0; i < p->nrun; i++)
		last = p->run[i].end > last ? p->run[i].end : last;
	if (FXT_GROW(fm->ends, &fm->cends, (size_t)fm->nends + 1) < 0)
		return -ENOMEM;
	fm->ends[fm->nends++] = (struct ends){ first, last };
	for (uint32_t i = 0; i < p->nrun; i++) {
		struct span *s = &p->run[i];
		if (s->start > first && !fm->all_cross)
			continue;
		if (FXT_GROW(fm->x, &fm->cx, (size_t)fm->nx + 1) < 0)
			return -ENOMEM;
		struct cross *c = &fm->x[fm->nx];
		*c = (struct cross){ s->start, s->end, 0, 0, s->name, s->kind, fm->nx, 0, 0 };
		if (pool_copy(p, &c->name) < 0)
			return -ENOMEM;
		fm->nx++;
	}
	return 0;
}

/* Closes the innermost open ancestor of the walk: its callee time is complete. */
static int pop(struct fxt_prof *p, struct thr *t)
{
	struct anc *a = &p->stack[--p->nstack];
	struct span *s = &p->run[a->i];

	if (s->cross)
		return 0; /* counted at the end: callees in other runs may follow */
	return count(p, t, s->kind, s->name, s->start, s->end, a->on, a->callees, a->callees_on,
		     a->node);
}

/* Links the run's cross spans to the skeleton: pass 1 numbered them in the order written,
 * so this comes before the run is sorted. */
static void mark_cross(struct fxt_prof *p, struct fam *fm)
{
	uint64_t first = run_first_end(p);

	for (uint32_t i = 0; i < p->nrun; i++)
		if ((p->run[i].start <= first || fm->all_cross) && fm->seq < fm->nx)
			p->run[i].cross = fm->by_seq[fm->seq++] + 1;
}

static int pass2_run(struct fxt_prof *p, struct thr *t, int f)
{
	struct fam *fm = &t->f[f];

	if (FXT_GROW(p->stack, &p->cstack, p->nrun) < 0)
		return -ENOMEM;
	p->nstack = 0;
	for (uint32_t i = p->nrun; i-- > 0;) {
		struct span *s = &p->run[i];
		uint64_t dur = s->end - s->start, on = on_cpu(p, t, s->start, s->end);
		uint32_t up = 0, node = 0;

		while (p->nstack) {
			const struct span *top = &p->run[p->stack[p->nstack - 1].i];
			if (top->start <= s->start && s->end <= top->end)
				break;
			if (pop(p, t) < 0)
				return -ENOMEM;
		}
		if (p->nstack) {
			struct anc *a = &p->stack[p->nstack - 1];
			struct span *top = &p->run[a->i];
			if (top->cross) {
				fm->x[top->cross - 1].callees += dur;
				fm->x[top->cross - 1].callees_on += on;
			} else {
				a->callees += dur;
				a->callees_on += on;
			}
			up = a->node;
		} else {
			uint32_t x = s->cross ? fm->x[s->cross - 1].parent
					      : skeleton_find(fm, s->start, s->end);
			if (x) {
				fm->x[x - 1].callees += dur;
				fm->x[x - 1].callees_on += on;
			}
			up = x ? fm->x[x - 1].node : p->o.tree ? root_of(p, t, f) : 0;
		}
		if (s->cross)
			node = fm->x[s->cross - 1].node;
		else if (p->o.tree && (!up || !(node = node_child(p, up, s->kind, s->name))))
			return -ENOMEM;
		p->stack[p->nstack++] = (struct anc){ i, node, on, 0, 0 };
	}
	while (p->nstack)
		if (pop(p, t) < 0)
			return -ENOMEM;
	return 0;
}

/* Whether span a ends before b in the walk's order: by end time, then the inner (later start)
 * of two ending together, then as written (a callee is written before its caller). */
static int ends_before(const struct span *a, const struct span *b)
{
	if (a->end != b->end)
		return a->end < b->end;
	if (a->start != b->start)
		return a->start > b->start;
	return a->at < b->at;
}

/* Puts the run in the order of its ends for pass 2's walk: nesting comes from time, not from
 * the order records were written (a tracer stall is written into the new chunk before the
 * event of the call whose exit took it, yet ends after it). Insertion sort: a run is almost
 * always in order already, and one pass is then all it costs. Ties keep the written order.
 * Pass 1 needs no order (a run's first end, and its cross spans numbered as written). */
static void run_sort(struct fxt_prof *p)
{
	for (uint32_t i = 1; i < p->nrun; i++) {
		struct span s = p->run[i];
		uint32_t j = i;
		while (j && ends_before(&s, &p->run[j - 1])) {
			p->run[j] = p->run[j - 1];
			j--;
		}
		p->run[j] = s;
	}
}

/* ---- the tree budget ---- */

/* Bytes the tree's nodes and child table would take after one more run (RUN_CAP nodes more
 * at most): they grow by fxt_grow()'s sizes, the table's slots to twice its entries. */
static size_t tree_bytes_next(const struct fxt_prof *p)
{
	size_t want_ents = p->children.n + RUN_CAP;
	size_t nodes = fxt_grow_cap(p->cnodes, (size_t)p->nnodes + RUN_CAP);
	size_t ents = fxt_grow_cap(p->children.ents_cap, want_ents);
	size_t slots = fxt_grow_cap(p->children.cap, want_ents * 2);

	return nodes * sizeof(*p->nodes) + ents * p->children.esize + slots * sizeof(uint32_t);
}

/* Writes the tree out when another run could take it past the budget, then drops what pass 2
 * made: the pinned nodes lose their figures and the children made since. Unless the pinned
 * nodes are most of it (the skeleton's memory is not the tree's to bound). Returns 0,
 * -ENOMEM or -errno of the temporary file. */
static int tree_bound(struct fxt_prof *p)
{
	int rc;

	if (!p->o.tree_budget || p->o.edges || tree_bytes_next(p) <= p->o.tree_budget ||
	    p->nnodes - p->npinned < p->nnodes / 2)
		return 0;
	if ((!p->tree && (rc = fxt_tree_new(&p->tree)) < 0) ||
	    (rc = fxt_tree_spill(p->tree, p)) < 0)
		return rc;
	for (uint32_t i = 0; i < p->npinned; i++) {
		struct fxt_prof_node *n = &p->nodes[i];
		uint32_t c = n->child;
		while (c > p->npinned)	/* newer children come first in the list */
			c = p->nodes[c - 1].sibling;
		n->child = c;
		n->calls = n->total = n->self = 0;
	}
	p->nnodes = p->npinned;
	ctab_truncate(&p->children, p->nchildren_pinned);
	for (int k = 0; k < FXT_PK_COUNT; k++)
		for (uint32_t i = 0; i < p->roots[k].n; i++) {
			struct fxt_prof_root *r = ctab_at(&p->roots[k], i);
			if (r->node > p->npinned)
				r->node = 0;
		}
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++)
			if (t->f[f].root > p->npinned)
				t->f[f].root = 0;
	}
	memset(p->nc, 0, sizeof(p->nc));
	return 0;
}

int fxt_prof_tree(struct fxt_prof *p, struct fxt_tree **out)
{
	int rc;

	if (p->pass != 2 || !p->o.tree || p->o.edges)
		return -EINVAL;
	if (!p->tree_done) {
		if ((!p->tree && (rc = fxt_tree_new(&p->tree)) < 0) ||
		    (rc = fxt_tree_finish(p->tree, p)) < 0)
			return rc;
		p->tree_done = 1;
	}
	*out = p->tree;
	return 0;
}

/* Ends the current run. Returns 0, -ENOMEM or -errno of the tree's temporary file. */
static int run_close(struct fxt_prof *p)
{
	int rc = 0;

	if (p->nrun && p->run_thr) {
		struct thr *t = ctab_at(&p->thrs, p->run_thr - 1);
		if (p->pass == 1) {
			rc = pass1_run(p, t, p->run_fam);
		} else {
			mark_cross(p, &t->f[p->run_fam]);
			run_sort(p);
			if (!(rc = pass2_run(p, t, p->run_fam)))
				rc = tree_bound(p);
		}
	}
	p->nrun = 0;
	p->run_thr = 0;
	return rc;
}

int fxt_prof_cut(struct fxt_prof *p)
{
	return run_close(p);
}

/* ---- input ---- */

static int add_span(struct fxt_prof *p, struct thr *t, unsigned k, struct fxt_sv name,
		    uint64_t start, uint64_t end)
{
	int f = fam_of(k);
	uint32_t ti = t->index;
	int rc;

	if ((p->run_thr != ti || p->run_fam != f || p->nrun == RUN_CAP) && (rc = run_close(p)) < 0)
		return rc;
	p->run_thr = ti;
	p->run_fam = f;
	p->run[p->nrun] = (struct span){ start, end > start ? end : start, name, k, 0, p->nrun };
	p->nrun++;
	return 0;
}

int fxt_prof_span(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		  struct fxt_sv name, struct fxt_sv object, uint64_t start, uint64_t end)
{
	struct thr *t = thr_get(p, pid, tid);

	if (!t || (unsigned)k >= FXT_PK_COUNT)
		return t ? -EINVAL : -ENOMEM;
	if (k == FXT_PK_LOCK && object.len)
		name = object;
	return add_span(p, t, k, name, start, end);
}

int fxt_prof_begin(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		   struct fxt_sv name, struct fxt_sv object, uint64_t ts)
{
	struct thr *t = thr_get(p, pid, tid);
	struct fam *fm;

	if (!t || (unsigned)k >= FXT_PK_COUNT)
		return t ? -EINVAL : -ENOMEM;
	fm = &t->f[fam_of(k)];
	if (FXT_GROW(fm->open, &fm->copen, (size_t)fm->nopen + 1) < 0)
		return -ENOMEM;
	fm->open[fm->nopen++] = (struct open){ ts, k == FXT_PK_LOCK && object.len ? object : name,
					       k };
	return 0;
}

int fxt_prof_end(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		 uint64_t ts)
{
	struct thr *t = thr_get(p, pid, tid);
	struct fam *fm;
	struct open o;

	if (!t || (unsigned)k >= FXT_PK_COUNT)
		return t ? -EINVAL : -ENOMEM;
	fm = &t->f[fam_of(k)];
	if (!fm->nopen)
		return 0;
	o = fm->open[--fm->nopen];
	return add_span(p, t, o.kind, o.name, o.start, ts);
}

static int ends_cmp(const void *x, const void *y)
{
	const struct ends *a = x, *b = y;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Whether fm's runs interleave in time: one writer's runs end one after the other (each run's
 * first end at or after the last end of the runs before it); others (a signal handler's level,
 * records written late) fall inside them, and a span of one may then be the parent of spans
 * of another though it began after its own run's first end. */
static int tangled(struct fam *fm)
{
	uint64_t last = 0;
	if (fm->nends > 1)
		qsort(fm->ends, fm->nends, sizeof(*fm->ends), ends_cmp);
	for (uint32_t i = 0; i < fm->nends; i++) {
		if (i && fm->ends[i].first < last)
			return 1;
		last = fm->ends[i].last > last ? fm->ends[i].last : last;
	}
	return 0;
}

/* Whether pass 1 must be read again: a thread whose runs interleave keeps every span of its
 * own as a possible parent (all_cross) from then on. Resets pass 1 when so. */
static int repass(struct fxt_prof *p)
{
	int again = 0;
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++)
			if (!t->f[f].all_cross && tangled(&t->f[f]))
				again = t->f[f].all_cross = 1;
	}
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++) {
			t->f[f].nends = 0;
			if (again)
				t->f[f].nx = t->f[f].nopen = 0;
		}
	}
	return again;
}

int fxt_prof_rescan(struct fxt_prof *p, uint64_t from_ns, uint64_t to_ns)
{
	if (p->pass != 1 || run_close(p) < 0)
		return p->pass != 1 ? -EINVAL : -ENOMEM;
	if (repass(p))
		return 1;
	p->pass = 2;
	p->o.from_ns = from_ns;
	p->o.to_ns = to_ns ? to_ns : UINT64_MAX;
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++) {
			t->f[f].nopen = 0;
			p->cross_total += t->f[f].nx;
			if (skeleton_build(p, t, f) < 0)
				return -ENOMEM;
		}
	}
	p->npinned = p->nnodes;
	p->nchildren_pinned = p->children.n;
	return 0;
}

/* Rows [preempted] and [blocked] of kind FUNC: each thread's time off CPU in the window, the
 * time that on-CPU self times leave out. Returns 0 or -ENOMEM. */
static int offcpu_rows(struct fxt_prof *p)
{
	static const struct fxt_sv names[2] = { { "[preempted]", 11 }, { "[blocked]", 9 } };

	for (size_t i = 0; i < fxt_oncpu_threads(p->oncpu); i++) {
		struct fxt_offcpu f;
		uint32_t j;
		fxt_oncpu_offcpu(p->oncpu, i, p->o.from_ns, p->o.to_ns, &f);
		/* switch records name the thread alone: its process is that of its spans */
		for (j = 0; j < p->thrs.n && ((struct thr *)ctab_at(&p->thrs, j))->key.b != f.tid; j++)
			;
		if (j == p->thrs.n)
			continue;	/* a thread with no span here (filtered out) */
		f.pid = ((struct thr *)ctab_at(&p->thrs, j))->key.a;
		for (int k = 0; k < 2; k++) {
			struct fxt_prof_row *r;
			if (!f.stretches[k])
				continue;
			if (!(r = row_get(p, FXT_PK_FUNC, f.pid, f.tid, names[k])))
				return -ENOMEM;
			r->calls += f.stretches[k];
			r->total += f.ns[k];
			r->self += f.ns[k];
			if (f.max[k] > r->max)
				r->max = f.max[k];
		}
	}
	return 0;
}

int fxt_prof_finish(struct fxt_prof *p)
{
	int rc;

	if (p->pass != 2)
		return -EINVAL;
	if ((rc = run_close(p)) < 0)
		return rc;
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++) {
			struct fam *fm = &t->f[f];
			p->unclosed += fm->nopen;
			fm->nopen = 0;
			for (uint32_t j = 0; j < fm->nx; j++) {
				struct cross *c = &fm->x[j];
				if (count(p, t, c->kind, c->name, c->start, c->end,
					  on_cpu(p, t, c->start, c->end), c->callees,
					  c->callees_on, c->node) < 0)
					return -ENOMEM;
			}
			fm->nx = 0;
		}
	}
	return p->oncpu ? offcpu_rows(p) : 0;
}

struct fxt_prof_row *fxt_prof_rows(struct fxt_prof *p, enum fxt_prof_kind k, size_t *n)
{
	*n = p->rows[k].n;
	return ctab_at(&p->rows[k], 0);
}

uint64_t fxt_prof_unclosed(const struct fxt_prof *p)
{
	return p->unclosed;
}

uint64_t fxt_prof_cross(const struct fxt_prof *p)
{
	return p->cross_total;
}

struct fxt_prof_root *fxt_prof_roots(struct fxt_prof *p, enum fxt_prof_kind k, size_t *n)
{
	*n = p->roots[k].n;
	return ctab_at(&p->roots[k], 0);
}

struct fxt_prof_root *fxt_prof_callers(struct fxt_prof *p, size_t *n)
{
	*n = p->callers.n;
	return ctab_at(&p->callers, 0);
}

const struct fxt_prof_node *fxt_prof_node(const struct fxt_prof *p, uint32_t idx1)
{
	return idx1 ? &p->nodes[idx1 - 1] : NULL;
}

uint32_t fxt_prof_nodes(const struct fxt_prof *p)
{
	return p->nnodes;
}

const char *fxt_prof_mark(unsigned kind)
{
	switch (kind) {
	case FXT_PK_LOCK: return "[lock wait] ";
	case FXT_PK_STALL: return "[tracer stall] ";
	case FXT_PK_THREAD: return "[thread] ";
	default: return "";
	}
}

static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct fxt_prof_row *a = x, *b = y;
	enum fxt_prof_sort sort_by = *(const enum fxt_prof_sort *)arg;
	uint64_t va = 0, vb = 0;
	int c = fxt_cmp_u64(a->key.a, b->key.a);

	if (!c)
		c = fxt_cmp_u64(a->key.b, b->key.b);
	if (c)
		return c;
	switch (sort_by) {
	case FXT_SORT_SELF: va = a->self, vb = b->self; break;
	case FXT_SORT_TOTAL: va = a->total, vb = b->total; break;
	case FXT_SORT_CALLS: va = a->calls, vb = b->calls; break;
	case FXT_SORT_AVG: va = a->calls ? a->total / a->calls : 0;
			   vb = b->calls ? b->total / b->calls : 0; break;
	case FXT_SORT_MAX: va = a->max, vb = b->max; break;
	case FXT_SORT_NAME: break;
	case FXT_SORT_ONCPU: va = a->oncpu, vb = b->oncpu; break;
	case FXT_SORT_OFFCPU: va = a->total - a->oncpu, vb = b->total - b->oncpu; break;
	}
	c = fxt_cmp_u64(vb, va);	/* the largest first */
	return c ? c : sv_cmp(a->key.s, b->key.s);
}

void fxt_prof_sort(struct fxt_prof_row *rows, size_t n, enum fxt_prof_sort by)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_cmp, &by);
}
