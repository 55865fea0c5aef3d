/* Streaming profile aggregation (client.h): per-function rows (calls, total, self, max) and an
 * optional call tree from spans that arrive in post-order, as FXT writers emit complete events
 * at exit. Each thread keeps a stack of spans not yet enclosed by a caller: a new span absorbs
 * the spans it encloses (its direct callees), so its self time is known at once. Memory: rows
 * and tree paths, plus per thread the pending spans (the callees of frames still open) and the
 * open begin events. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

/* Spans of FUNC and LOCK nest together; SAMPLE slices form a timeline of their own. */
enum { FAM_CALLS, FAM_SAMPLES, FAM_COUNT };

/* A pending span, or a group of adjacent ones merged when the thread had PEND_CAP pending:
 * start of the first, start of the last, latest end, summed durations. */
struct pend {
	uint64_t start, last_start, end, dur;
	const char *name; /* the function's name bytes (the same string record: the same address) */
	uint32_t node; /* floating subtree (a container for a group), index + 1; 0 without tree */
};

/* Pending spans kept exactly per thread; beyond, the older half is merged pairwise. */
#define PEND_CAP 16384u

struct open {
	uint64_t start;
	struct fxt_sv name, object;
	unsigned kind;
};

struct thr {
	struct ckey key; /* a = pid, b = tid */
	struct pend *pend[FAM_COUNT];
	uint32_t npend[FAM_COUNT], cpend[FAM_COUNT];
	struct open *open[FAM_COUNT];
	uint32_t nopen[FAM_COUNT], copen[FAM_COUNT];
};

/* Direct-mapped cache from a name's address (indexed strings share it) to its row. */
#define RCACHE_SIZE 4096
struct rcache {
	const char *s;
	uint32_t len, row;
	unsigned kind;
	uint64_t pid, tid;
};

struct fxt_prof {
	struct fxt_prof_opts o;
	struct ctab rows[FXT_PK_COUNT];
	struct ctab roots[FXT_PK_COUNT];
	struct ctab thrs;
	struct thr *last;
	struct fxt_prof_node *nodes;
	uint32_t nnodes, cnodes, free_node; /* free list through sibling, index + 1 */
	uint64_t unclosed, inexact;
	struct rcache rc[RCACHE_SIZE];
};

int fxt_prof_new(struct fxt_prof **out, const struct fxt_prof_opts *o)
{
	struct fxt_prof *p = calloc(1, sizeof(*p));
	int err = 0;

	if (!p)
		return -ENOMEM;
	p->o = *o;
	if (!p->o.to_ns)
		p->o.to_ns = UINT64_MAX;
	for (int k = 0; k < FXT_PK_COUNT; k++) {
		err |= ctab_init(&p->rows[k], sizeof(struct fxt_prof_row));
		err |= ctab_init(&p->roots[k], sizeof(struct fxt_prof_root));
	}
	err |= ctab_init(&p->thrs, sizeof(struct thr));
	if (err) {
		fxt_prof_free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void fxt_prof_free(struct fxt_prof *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++) {
			free(t->pend[f]);
			free(t->open[f]);
		}
	}
	for (int k = 0; k < FXT_PK_COUNT; k++) {
		ctab_free(&p->rows[k]);
		ctab_free(&p->roots[k]);
	}
	ctab_free(&p->thrs);
	free(p->nodes);
	free(p);
}

static int fam_of(enum fxt_prof_kind k)
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
	return p->last = i < 0 ? NULL : ctab_at(&p->thrs, (uint32_t)i);
}

static struct fxt_prof_row *row_get(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid,
				    uint64_t tid, struct fxt_sv name)
{
	uintptr_t h = ((uintptr_t)name.s ^ (uintptr_t)(tid * 0x9e3779b97f4a7c15ULL) ^ k) >> 3;
	struct rcache *c = &p->rc[(h ^ (h >> 12)) & (RCACHE_SIZE - 1)];
	struct ckey key = { pid, p->o.per_thread ? tid : 0, name };
	int64_t i;

	if (c->s == name.s && c->len == name.len && c->kind == (unsigned)k && c->pid == pid &&
	    c->tid == tid)
		return ctab_at(&p->rows[k], c->row);
	i = ctab_get(&p->rows[k], &key, 1);
	if (i < 0)
		return NULL;
	*c = (struct rcache){ name.s, name.len, (uint32_t)i, k, pid, tid };
	return ctab_at(&p->rows[k], (uint32_t)i);
}

/* ---- call tree nodes ---- */

static uint32_t node_new(struct fxt_prof *p, struct fxt_sv name)
{
	uint32_t i;

	if (p->free_node) {
		i = p->free_node;
		p->free_node = p->nodes[i - 1].sibling;
	} else {
		if (p->nnodes == p->cnodes) {
			uint32_t nc = p->cnodes ? p->cnodes * 2 : 1024;
			struct fxt_prof_node *nn = realloc(p->nodes, nc * sizeof(*nn));
			if (!nn)
				return 0;
			p->nodes = nn;
			p->cnodes = nc;
		}
		i = ++p->nnodes;
	}
	memset(&p->nodes[i - 1], 0, sizeof(p->nodes[0]));
	p->nodes[i - 1].name = name;
	return i;
}

/* Makes subtree c a child of parent, merging it into a same-named child if there is one. */
static void node_attach(struct fxt_prof *p, uint32_t parent, uint32_t c)
{
	struct fxt_prof_node *pn = &p->nodes[parent - 1], *cn = &p->nodes[c - 1];
	uint32_t x;

	for (x = pn->child; x && !sv_eq(p->nodes[x - 1].name, cn->name); x = p->nodes[x - 1].sibling)
		;
	if (!x) {
		cn->sibling = pn->child;
		pn->child = c;
		return;
	}
	struct fxt_prof_node *xn = &p->nodes[x - 1];
	xn->calls += cn->calls;
	xn->total += cn->total;
	xn->self += cn->self;
	for (uint32_t cc = cn->child, next; cc; cc = next) {
		next = p->nodes[cc - 1].sibling;
		node_attach(p, x, cc);
	}
	cn->sibling = p->free_node;
	p->free_node = c;
}

/* A container node holds the subtrees of a merged group of spans. */
static int is_container(const struct fxt_prof *p, uint32_t node)
{
	return !p->nodes[node - 1].name.s;
}

/* Attaches a pending span's subtree (or each subtree of a group) under parent. */
static void node_absorb(struct fxt_prof *p, uint32_t parent, uint32_t node)
{
	if (!is_container(p, node)) {
		node_attach(p, parent, node);
		return;
	}
	for (uint32_t c = p->nodes[node - 1].child, next; c; c = next) {
		next = p->nodes[c - 1].sibling;
		node_attach(p, parent, c);
	}
	p->nodes[node - 1].sibling = p->free_node;
	p->free_node = node;
}

/* Merges b into a (b follows a). Returns 0 or -ENOMEM. */
static int pend_merge(struct fxt_prof *p, struct pend *a, const struct pend *b)
{
	if (a->node && !is_container(p, a->node)) {
		uint32_t c = node_new(p, (struct fxt_sv){ NULL, 0 });
		if (!c)
			return -ENOMEM;
		node_attach(p, c, a->node);
		a->node = c;
	}
	if (a->node)
		node_absorb(p, a->node, b->node);
	a->last_start = b->last_start;
	a->end = a->end > b->end ? a->end : b->end;
	a->dur += b->dur;
	if (a->name != b->name)
		a->name = NULL;
	return 0;
}

/* Makes room in a full pending stack by merging its older half: runs of calls to the same
 * function first (siblings in a loop, most likely), pairs of neighbours if that frees too
 * little. Returns 0 or -ENOMEM. */
static int pend_compact(struct fxt_prof *p, struct thr *t, int f)
{
	struct pend *e = t->pend[f];
	uint32_t n = t->npend[f], half = n / 2, w = 0;
	int pairs = 0;

again:
	w = 0;
	for (uint32_t i = 0; i < half; i++) {
		int join = w && (pairs ? (i & 1) : e[i].name && e[w - 1].name == e[i].name);
		if (!join)
			e[w++] = e[i];
		else if (pend_merge(p, &e[w - 1], &e[i]) < 0)
			return -ENOMEM;
	}
	memmove(e + w, e + half, (n - half) * sizeof(*e));
	n = w + n - half;
	if (!pairs && n > PEND_CAP * 7 / 8) {
		pairs = 1;
		half = n / 2;
		goto again;
	}
	t->npend[f] = n;
	return 0;
}

/* ---- spans ---- */

int fxt_prof_span(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		  struct fxt_sv name, struct fxt_sv object, uint64_t start, uint64_t end)
{
	struct thr *t = thr_get(p, pid, tid);
	int f = fam_of(k);
	uint64_t dur, callees = 0, self;
	uint32_t node = 0;
	int in;

	if (!t)
		return -ENOMEM;
	if (end < start)
		end = start;
	dur = end - start;
	in = start >= p->o.from_ns && end <= p->o.to_ns;
	if (k == FXT_PK_LOCK && object.len)
		name = object;
	if (p->o.tree && !(node = node_new(p, name)))
		return -ENOMEM;
	while (t->npend[f]) {
		struct pend *c = &t->pend[f][t->npend[f] - 1];
		if (c->last_start < start || c->end > end)
			break;
		if (c->start < start)
			p->inexact++; /* a merged group this span cuts in two */
		callees += c->dur;
		if (c->node)
			node_absorb(p, node, c->node);
		t->npend[f]--;
	}
	self = callees < dur ? dur - callees : 0;
	if (in) {
		struct fxt_prof_row *r = row_get(p, k, pid, tid, name);
		if (!r)
			return -ENOMEM;
		r->calls++;
		r->total += dur;
		r->self += self;
		if (dur > r->max)
			r->max = dur;
		if (node) {
			struct fxt_prof_node *n = &p->nodes[node - 1];
			n->calls = 1;
			n->total = dur;
			n->self = self;
		}
	}
	if (t->npend[f] == PEND_CAP && pend_compact(p, t, f) < 0)
		return -ENOMEM;
	if (t->npend[f] == t->cpend[f]) {
		uint32_t nc = t->cpend[f] ? t->cpend[f] * 2 : 64;
		struct pend *np = realloc(t->pend[f], nc * sizeof(*np));
		if (!np)
			return -ENOMEM;
		t->pend[f] = np;
		t->cpend[f] = nc;
	}
	t->pend[f][t->npend[f]++] = (struct pend){ start, start, end, dur, name.s, node };
	return 0;
}

int fxt_prof_begin(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		   struct fxt_sv name, struct fxt_sv object, uint64_t ts)
{
	struct thr *t = thr_get(p, pid, tid);
	int f = fam_of(k);

	if (!t)
		return -ENOMEM;
	if (t->nopen[f] == t->copen[f]) {
		uint32_t nc = t->copen[f] ? t->copen[f] * 2 : 16;
		struct open *no = realloc(t->open[f], nc * sizeof(*no));
		if (!no)
			return -ENOMEM;
		t->open[f] = no;
		t->copen[f] = nc;
	}
	t->open[f][t->nopen[f]++] = (struct open){ ts, name, object, k };
	return 0;
}

int fxt_prof_end(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid, uint64_t tid,
		 uint64_t ts)
{
	struct thr *t = thr_get(p, pid, tid);
	int f = fam_of(k);
	struct open o;

	if (!t)
		return -ENOMEM;
	if (!t->nopen[f])
		return 0;
	o = t->open[f][--t->nopen[f]];
	return fxt_prof_span(p, o.kind, pid, tid, o.name, o.object, o.start, ts);
}

int fxt_prof_finish(struct fxt_prof *p)
{
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct thr *t = ctab_at(&p->thrs, i);
		for (int f = 0; f < FAM_COUNT; f++) {
			enum fxt_prof_kind k = f == FAM_SAMPLES ? FXT_PK_SAMPLE : FXT_PK_FUNC;
			struct ckey key = { t->key.a, p->o.per_thread ? t->key.b : 0, { "", 0 } };
			struct fxt_prof_root *root;
			int64_t ri;

			p->unclosed += t->nopen[f];
			t->nopen[f] = 0;
			if (!p->o.tree || !t->npend[f])
				continue;
			ri = ctab_get(&p->roots[k], &key, 1);
			if (ri < 0)
				return -ENOMEM;
			root = ctab_at(&p->roots[k], (uint32_t)ri);
			if (!root->node && !(root->node = node_new(p, key.s)))
				return -ENOMEM;
			for (uint32_t j = 0; j < t->npend[f]; j++)
				node_absorb(p, root->node, t->pend[f][j].node);
			t->npend[f] = 0;
		}
	}
	return 0;
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

uint64_t fxt_prof_inexact(const struct fxt_prof *p)
{
	return p->inexact;
}

struct fxt_prof_root *fxt_prof_roots(struct fxt_prof *p, enum fxt_prof_kind k, size_t *n)
{
	*n = p->roots[k].n;
	return ctab_at(&p->roots[k], 0);
}

const struct fxt_prof_node *fxt_prof_node(const struct fxt_prof *p, uint32_t idx1)
{
	return idx1 ? &p->nodes[idx1 - 1] : NULL;
}

static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct fxt_prof_row *a = x, *b = y;
	enum fxt_prof_sort sort_by = *(const enum fxt_prof_sort *)arg;
	uint64_t va = 0, vb = 0;
	int c;

	if (a->key.a != b->key.a)
		return a->key.a < b->key.a ? -1 : 1;
	if (a->key.b != b->key.b)
		return a->key.b < b->key.b ? -1 : 1;
	switch (sort_by) {
	case FXT_SORT_SELF: va = a->self, vb = b->self; break;
	case FXT_SORT_TOTAL: va = a->total, vb = b->total; break;
	case FXT_SORT_CALLS: va = a->calls, vb = b->calls; break;
	case FXT_SORT_AVG: va = a->calls ? a->total / a->calls : 0;
			   vb = b->calls ? b->total / b->calls : 0; break;
	case FXT_SORT_MAX: va = a->max, vb = b->max; break;
	case FXT_SORT_NAME: break;
	}
	if (va != vb)
		return va > vb ? -1 : 1;
	c = memcmp(a->key.s.s, b->key.s.s, a->key.s.len < b->key.s.len ? a->key.s.len : b->key.s.len);
	if (c)
		return c;
	return a->key.s.len < b->key.s.len ? -1 : a->key.s.len > b->key.s.len;
}

void fxt_prof_sort(struct fxt_prof_row *rows, size_t n, enum fxt_prof_sort by)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_cmp, &by);
}
