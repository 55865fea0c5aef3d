/* The difference of two runs' profiles (client.h, `fxt report --diff`): the rows of one kind of
 * two finished profiles (profile.c), summed by name over processes and threads (two runs have
 * other process and thread ids), side by side, and their order by the size of a change.
 * Memory: one row per distinct name; names are views into the profiles, which must outlive the
 * rows. One object per thread of the caller; no I/O. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

struct drow {
	struct ckey key;	/* s = name */
	struct fxt_prof_diff_row row;
};

/* Adds run `run`'s rows of kind k into t. Returns 0 or -ENOMEM. */
static int add_run(struct ctab *t, struct fxt_prof *p, enum fxt_prof_kind k, int run)
{
	size_t n;
	const struct fxt_prof_row *rows = fxt_prof_rows(p, k, &n);

	for (size_t i = 0; i < n; i++) {
		struct ckey key = { 0, 0, rows[i].key.s };
		int64_t at = ctab_get(t, &key, 1);
		struct fxt_prof_diff_row *d;
		if (at < 0)
			return -ENOMEM;
		d = &((struct drow *)ctab_at(t, (uint32_t)at))->row;
		d->name = rows[i].key.s;
		d->in[run] = 1;
		d->calls[run] += rows[i].calls;
		d->total[run] += rows[i].total;
		d->self[run] += rows[i].self;
	}
	return 0;
}

int fxt_prof_diff(struct fxt_prof *old, struct fxt_prof *new, enum fxt_prof_kind k,
		  struct fxt_prof_diff_row **out, size_t *n)
{
	struct ctab t;
	struct fxt_prof_diff_row *rows;

	*out = NULL;
	*n = 0;
	ctab_init(&t, sizeof(struct drow));
	if (add_run(&t, old, k, 0) < 0 || add_run(&t, new, k, 1) < 0 ||
	    !(rows = malloc((t.n ? t.n : 1) * sizeof(*rows)))) {
		ctab_free(&t);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t.n; i++)
		rows[i] = ((struct drow *)ctab_at(&t, i))->row;
	*out = rows;
	*n = t.n;
	ctab_free(&t);
	return 0;
}

/* |b - a| */
static uint64_t change(const uint64_t v[2])
{
	return v[1] > v[0] ? v[1] - v[0] : v[0] - v[1];
}

static int diff_cmp(const void *x, const void *y, void *arg)
{
	const struct fxt_prof_diff_row *a = x, *b = y;
	enum fxt_prof_sort by = *(const enum fxt_prof_sort *)arg;
	uint64_t va = 0, vb = 0;
	int c;

	switch (by) {
	case FXT_SORT_SELF: va = change(a->self), vb = change(b->self); break;
	case FXT_SORT_CALLS: va = change(a->calls), vb = change(b->calls); break;
	case FXT_SORT_NAME: break;
	default: va = change(a->total), vb = change(b->total); break;
	}
	c = fxt_cmp_u64(vb, va);	/* the largest change first */
	return c ? c : sv_cmp(a->name, b->name);
}

void fxt_prof_diff_sort(struct fxt_prof_diff_row *rows, size_t n, enum fxt_prof_sort by)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), diff_cmp, &by);
}
