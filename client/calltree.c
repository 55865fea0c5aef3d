/* The call tree of a profile as `fxt report --tree` prints it, in bounded memory (client.h):
 * flat records in preorder, siblings by (kind, name), each with the index past its subtree.
 * A profile over its tree budget writes its tree here as a sorted run (one unlinked temporary
 * file in $TMPDIR: gone when the process ends, however it ends) and starts again from its
 * skeleton; at the end the runs are merged, the figures of a path summed over them, into the
 * same records a tree that fitted gives: the printed result does not depend on the budget.
 * Memory: the names, one buffer per run and a small cache of the merged file's blocks. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "common/grow.h"

#define RUN_BUF 512	/* records a run's reader buffers in the merge (28 KiB) */
#define WBUF 8192	/* records written at once (448 KiB) */
#define BLOCK 1024	/* records of one block of the merged file's cache */
#define BLOCKS 64	/* blocks cached (3.5 MiB) */
#define NAME_CACHE 1024	/* names' ids by the name's address (indexed names share one) */

/* A path component's sort key: kind, then the name's id (depth 0: the root's index). */
static uint64_t rec_key(const struct fxt_tree_rec *r)
{
	return (uint64_t)r->kind << 32 | r->key;
}

/* A run: its records in the file from off. */
struct run {
	off_t off;
	uint64_t n;
};

/* A run's reader in the merge: its current record and the path to it. */
struct cursor {
	struct run run;
	uint64_t at;		/* records read */
	struct fxt_tree_rec buf[RUN_BUF];
	uint32_t pos, len;
	uint64_t *path;		/* keys by depth up to the current record's */
	size_t cpath;
	struct fxt_tree_rec cur;
};

struct block {
	uint64_t first;		/* record index + 1 of its first record, 0: empty */
	struct fxt_tree_rec r[BLOCK];
};

struct name_hit {
	const char *s;
	uint32_t len, id;
};

struct fxt_tree {
	int fd;			/* the temporary file, -1 until a run is written */
	off_t size;		/* bytes written to it */
	struct run *runs;
	uint32_t nruns;
	size_t cruns;
	struct ctab names;	/* name -> id (its index) */
	struct name_hit hits[NAME_CACHE]; /* in front of names */
	struct fxt_tree_rec *recs; /* the merged records when in memory, else NULL */
	uint64_t n;		/* merged records */
	size_t cap;
	off_t base;		/* the merged records' place in the file (fd) */
	struct fxt_tree_rec *wbuf; /* records written since wstart (to a run or the file) */
	uint64_t wstart;
	uint32_t nw;
	off_t woff;		/* where wbuf goes */
	uint64_t *open;		/* merged: index of the open record at each depth */
	size_t copen;
	uint32_t depth;		/* depth + 1 of the innermost open record, 0: none */
	struct block *cache;	/* merged file blocks */
};

int fxt_tree_new(struct fxt_tree **out)
{
	struct fxt_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	ctab_init(&t->names, sizeof(struct ckey));
	if (!(t->wbuf = malloc(WBUF * sizeof(*t->wbuf)))) {
		fxt_tree_free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void fxt_tree_free(struct fxt_tree *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	ctab_free(&t->names);
	free(t->runs);
	free(t->recs);
	free(t->wbuf);
	free(t->open);
	free(t->cache);
	free(t);
}

/* The temporary file, made on first use: unlinked at once. Returns 0 or -errno. */
static int file_open(struct fxt_tree *t)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (t->fd >= 0)
		return 0;
	if (snprintf(path, sizeof(path), "%s/fxt-tree.XXXXXX", dir && *dir ? dir : "/tmp") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	t->fd = mkostemp(path, O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	unlink(path);
	return 0;
}

static int pwrite_all(int fd, const void *p, size_t len, off_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, p, len, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p = (const char *)p + w;
		len -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Reads n records at off into r. Returns 0 or -errno (-EIO: the file is shorter). */
static int pread_recs(int fd, struct fxt_tree_rec *r, size_t n, off_t off)
{
	size_t len = n * sizeof(*r), got = 0;

	while (got < len) {
		ssize_t g = pread(fd, (char *)r + got, len - got, off + (off_t)got);
		if (g < 0 && errno == EINTR)
			continue;
		if (g <= 0)
			return g < 0 ? -errno : -EIO;
		got += (size_t)g;
	}
	return 0;
}

/* Writes the buffered records to the file at woff. Returns 0 or -errno. */
static int wflush(struct fxt_tree *t)
{
	int rc = pwrite_all(t->fd, t->wbuf, t->nw * sizeof(*t->wbuf), t->woff);

	t->woff += (off_t)(t->nw * sizeof(*t->wbuf));
	t->wstart += t->nw;
	t->nw = 0;
	return rc;
}

/* Appends one record to the file through wbuf. Returns 0 or -errno. */
static int wput(struct fxt_tree *t, const struct fxt_tree_rec *r)
{
	int rc = t->nw == WBUF ? wflush(t) : 0;

	if (!rc)
		t->wbuf[t->nw++] = *r;
	return rc;
}

/* ---- the merged records: in memory, or in the file after the runs ---- */

/* Sets the index past the subtree of merged record i. Returns 0 or -errno. */
static int set_end(struct fxt_tree *t, uint64_t i, uint64_t end)
{
	if (t->recs)
		t->recs[i].end = end;
	else if (i >= t->wstart)
		t->wbuf[i - t->wstart].end = end;
	else
		return pwrite_all(t->fd, &end, sizeof(end),
				  t->base + (off_t)(i * sizeof(*t->recs) +
						    offsetof(struct fxt_tree_rec, end)));
	return 0;
}

/* Closes the open records at depth d and deeper: their subtrees end here. */
static int close_to(struct fxt_tree *t, uint32_t d)
{
	int rc = 0;

	while (t->depth > d && !rc)
		rc = set_end(t, t->open[--t->depth], t->n);
	return rc;
}

/* Appends merged record r (its depth at most one below the last one's). Returns 0, -ENOMEM
 * or -errno. */
static int merged_put(struct fxt_tree *t, struct fxt_tree_rec r)
{
	int rc;

	if (r.depth > t->depth)
		return -EINVAL;
	if ((rc = close_to(t, r.depth)) < 0)
		return rc;
	if (FXT_GROW(t->open, &t->copen, (size_t)t->depth + 1) < 0)
		return -ENOMEM;
	t->open[t->depth++] = t->n;
	r.end = 0;
	if (t->fd < 0) {
		/* 1024 records at first: a tree of a few records is rare */
		if (FXT_GROW(t->recs, &t->cap, t->n < 1024 ? 1024 : t->n + 1) < 0)
			return -ENOMEM;
		t->recs[t->n++] = r;
		return 0;
	}
	t->n++;
	return wput(t, &r);
}

/* ---- a generation of the profile's tree as sorted records ---- */

/* The id of a name (made on first use). Returns it, or -ENOMEM. */
static int64_t name_id(struct fxt_tree *t, struct fxt_sv name)
{
	uintptr_t h = (uintptr_t)name.s >> 3;
	struct name_hit *hit = &t->hits[(h ^ (h >> 10)) & (NAME_CACHE - 1)];
	struct ckey k = { 0, 0, name };
	int64_t i;

	if (hit->s == name.s && hit->len == name.len && name.s)
		return hit->id;
	if ((i = ctab_get(&t->names, &k, 1)) < 0)
		return -ENOMEM;
	*hit = (struct name_hit){ name.s, name.len, (uint32_t)i };
	return i;
}

/* A node waiting in the walk: pushed with its children, popped in key order. */
struct walk {
	uint32_t node, depth;
	uint64_t key;
};

static int walk_cmp(const void *x, const void *y)
{
	const struct walk *a = x, *b = y;
	return a->key < b->key ? 1 : a->key > b->key ? -1 : 0; /* descending: popped ascending */
}

/* Hands each node of p's tree to put in preorder, roots by (kind, index), siblings by key.
 * Returns 0 or what put or allocation failed with. */
static int walk_tree(struct fxt_tree *t, const struct fxt_prof *p,
		     int (*put)(struct fxt_tree *t, struct fxt_tree_rec r))
{
	static const enum fxt_prof_kind kinds[2] = { FXT_PK_FUNC, FXT_PK_SAMPLE };
	struct walk *w = NULL;
	size_t nw = 0, cw = 0;
	int rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		size_t nroots;
		const struct fxt_prof_root *roots = fxt_prof_roots((struct fxt_prof *)p, kinds[k],
								   &nroots);
		for (size_t i = 0; i < nroots && !rc; i++) {
			if (!roots[i].node)
				continue;
			nw = 0;
			if (FXT_GROW(w, &cw, 1) < 0) {
				rc = -ENOMEM;
				break;
			}
			w[nw++] = (struct walk){ roots[i].node, 0, (uint64_t)kinds[k] << 32 | i };
			while (nw && !rc) {
				struct walk at = w[--nw];
				const struct fxt_prof_node *n = fxt_prof_node(p, at.node);
				size_t from = nw;
				rc = put(t, (struct fxt_tree_rec){ n->calls, n->total, n->self,
								   n->seq, 0, (uint32_t)at.key,
								   at.depth, (uint32_t)(at.key >> 32),
								   0 });
				for (uint32_t c = n->child; c && !rc; c = fxt_prof_node(p, c)->sibling) {
					const struct fxt_prof_node *cn = fxt_prof_node(p, c);
					int64_t id = name_id(t, cn->name);
					if (FXT_GROW(w, &cw, nw + 1) < 0) {
						rc = -ENOMEM;
						break;
					}
					if (id < 0)
						rc = -ENOMEM;
					else
						w[nw++] = (struct walk){
							c, at.depth + 1,
							(uint64_t)cn->kind << 32 | (uint64_t)id };
				}
				if (nw - from > 1)
					qsort(w + from, nw - from, sizeof(*w), walk_cmp);
			}
		}
	}
	free(w);
	return rc;
}

static int run_put(struct fxt_tree *t, struct fxt_tree_rec r)
{
	t->runs[t->nruns].n++;
	return wput(t, &r);
}

int fxt_tree_spill(struct fxt_tree *t, const struct fxt_prof *p)
{
	int rc;

	if (FXT_GROW(t->runs, &t->cruns, (size_t)t->nruns + 1) < 0)
		return -ENOMEM;
	if ((rc = file_open(t)) < 0)
		return rc;
	t->runs[t->nruns] = (struct run){ t->size, 0 };
	t->woff = t->size;
	t->nw = 0;
	if ((rc = walk_tree(t, p, run_put)) < 0 || (rc = wflush(t)) < 0)
		return rc;
	t->size = t->woff;
	t->nruns++;
	return 0;
}

/* ---- the merge of the runs ---- */

/* Reads cursor c's next record and sets its path. Returns 1, 0 at its end, or -errno. */
static int cursor_next(struct fxt_tree *t, struct cursor *c)
{
	uint32_t d;

	if (c->at == c->run.n)
		return 0;
	if (c->pos == c->len) {
		uint64_t n = c->run.n - c->at < RUN_BUF ? c->run.n - c->at : RUN_BUF;
		int rc = pread_recs(t->fd, c->buf, n,
				    c->run.off + (off_t)(c->at * sizeof(*c->buf)));
		if (rc < 0)
			return rc;
		c->pos = 0;
		c->len = (uint32_t)n;
	}
	c->cur = c->buf[c->pos++];
	c->at++;
	d = c->cur.depth;
	if (FXT_GROW(c->path, &c->cpath, (size_t)d + 1) < 0)
		return -ENOMEM;
	c->path[d] = rec_key(&c->cur);
	return 1;
}

/* Preorder of two cursors' current paths: by key at the first difference, a prefix first. */
static int path_cmp(const struct cursor *a, const struct cursor *b)
{
	uint32_t da = a->cur.depth, db = b->cur.depth, m = da < db ? da : db;

	for (uint32_t i = 0; i <= m; i++)
		if (a->path[i] != b->path[i])
			return a->path[i] < b->path[i] ? -1 : 1;
	return da < db ? -1 : da > db;
}

static void sift_down(struct cursor **h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < n && path_cmp(h[l], h[m]) < 0)
			m = l;
		if (l + 1 < n && path_cmp(h[l + 1], h[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		struct cursor *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void sift_up(struct cursor **h, uint32_t i)
{
	while (i && path_cmp(h[i], h[(i - 1) / 2]) < 0) {
		struct cursor *x = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* Moves cursor h[0] on and restores the heap (*nh less when it ended). Returns 0 or -errno. */
static int heap_next(struct fxt_tree *t, struct cursor **h, uint32_t *nh)
{
	int rc = cursor_next(t, h[0]);

	if (rc < 0)
		return rc;
	if (!rc)
		h[0] = h[--*nh];
	sift_down(h, *nh, 0);
	return 0;
}

/* Merges the runs into the merged records, after them in the file: one record per path, its
 * figures summed over the runs, and the first seq it was made with. Returns 0, -ENOMEM or
 * -errno. */
static int merge(struct fxt_tree *t)
{
	struct cursor *cs = calloc(t->nruns, sizeof(*cs));
	struct cursor **heap = malloc(t->nruns * sizeof(*heap));
	uint32_t nh = 0;
	int rc = cs && heap ? 0 : -ENOMEM;

	t->base = t->woff = t->size;
	t->wstart = t->nw = 0;
	for (uint32_t i = 0; i < t->nruns && rc >= 0; i++) {
		cs[i].run = t->runs[i];
		if ((rc = cursor_next(t, &cs[i])) > 0)
			heap[nh++] = &cs[i];
	}
	for (uint32_t i = nh / 2; i-- > 0;)
		sift_down(heap, nh, i);
	while (nh && rc >= 0) {
		struct cursor *c = heap[0];	/* the least path: out of the heap while summed */
		struct fxt_tree_rec r = c->cur;
		heap[0] = heap[--nh];
		sift_down(heap, nh, 0);
		while (nh && rc >= 0 && !path_cmp(heap[0], c)) {
			const struct fxt_tree_rec *o = &heap[0]->cur;
			r.calls += o->calls;
			r.total += o->total;
			r.self += o->self;
			r.seq = o->seq < r.seq ? o->seq : r.seq;
			rc = heap_next(t, heap, &nh);
		}
		if (rc < 0 || (rc = merged_put(t, r)) < 0 || (rc = cursor_next(t, c)) <= 0)
			continue;
		heap[nh++] = c;
		sift_up(heap, nh - 1);
	}
	for (uint32_t i = 0; cs && i < t->nruns; i++)
		free(cs[i].path);
	free(cs);
	free(heap);
	return rc < 0 ? rc : 0;
}

int fxt_tree_finish(struct fxt_tree *t, const struct fxt_prof *p)
{
	int rc;

	if (!t->nruns)	/* the tree fitted: its records in memory */
		return (rc = walk_tree(t, p, merged_put)) < 0 ? rc : close_to(t, 0);
	if ((rc = fxt_tree_spill(t, p)) < 0 || (rc = merge(t)) < 0 || (rc = close_to(t, 0)) < 0 ||
	    (rc = wflush(t)) < 0)
		return rc;
	if (!(t->cache = calloc(BLOCKS, sizeof(*t->cache))))
		return -ENOMEM;
	return 0;
}

uint64_t fxt_tree_size(const struct fxt_tree *t)
{
	return t->n;
}

uint32_t fxt_tree_runs(const struct fxt_tree *t)
{
	return t->nruns;
}

int fxt_tree_get(struct fxt_tree *t, uint64_t i, struct fxt_tree_rec *r)
{
	struct block *b;
	uint64_t first = i / BLOCK * BLOCK;

	if (i >= t->n)
		return -EINVAL;
	if (t->recs) {
		*r = t->recs[i];
		return 0;
	}
	b = &t->cache[(first / BLOCK) % BLOCKS];
	if (b->first != first + 1) {
		uint64_t n = t->n - first < BLOCK ? t->n - first : BLOCK;
		int rc = pread_recs(t->fd, b->r, n, t->base + (off_t)(first * sizeof(*r)));
		b->first = rc < 0 ? 0 : first + 1;
		if (rc < 0)
			return rc;
	}
	*r = b->r[i - first];
	return 0;
}

struct fxt_sv fxt_tree_name(const struct fxt_tree *t, const struct fxt_tree_rec *r)
{
	struct fxt_sv none = { "", 0 };
	return r->depth && r->key < t->names.n ? ((struct ckey *)ctab_at(&t->names, r->key))->s
					       : none;
}
