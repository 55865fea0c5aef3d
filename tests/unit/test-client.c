/* Unit test of the trace client's library: time units and stamps, the selection of threads and
 * windows, on-CPU time built again after more switches, the keyed table (entries by two ids,
 * dropped one by one), the hinted search of sorted arrays, the comparisons, and the profile
 * aggregator (self time from post-order spans, begin/end pairs, lock, sample, stall and thread
 * kinds, time window, per-thread rows, call-tree paths, more than a million direct callees,
 * runs in any order) against figures worked out by hand. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "client/client.h"

static struct fxt_sv S(const char *s)
{
	return (struct fxt_sv){ s, (uint32_t)strlen(s) };
}

static const struct fxt_prof_row *find(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t pid,
				       uint64_t tid, const char *name)
{
	size_t n;
	struct fxt_prof_row *r = fxt_prof_rows(p, k, &n);
	for (size_t i = 0; i < n; i++)
		if (r[i].key.a == pid && r[i].key.b == tid && sv_eq(r[i].key.s, S(name)))
			return &r[i];
	return NULL;
}

static int row_is(struct fxt_prof *p, enum fxt_prof_kind k, uint64_t tid, const char *name,
		  uint64_t calls, uint64_t total, uint64_t self, uint64_t max)
{
	const struct fxt_prof_row *r = find(p, k, 1, tid, name);
	return r && r->calls == calls && r->total == total && r->self == self && r->max == max;
}

/* main{ a{b b} a c{a} lock-wait } on thread 11, outer{inner wait} as begin/end on thread 12,
 * samples main{hot} cold on thread 13. Copies name strings so rows must merge by content. */
static void feed1(struct fxt_prof *p)
{
	static char a2[] = "a";
	const struct fxt_sv none = { "", 0 };
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("b"), none, 20, 50);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("b"), none, 60, 100);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("a"), none, 10, 200);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S(a2), none, 300, 400);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("a"), none, 510, 520);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("c"), none, 500, 900);
	fxt_prof_span(p, FXT_PK_LOCK, 1, 11, S("mutex"), S("queue_lock"), 910, 960);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 11, S("main"), none, 0, 1000);
	fxt_prof_begin(p, FXT_PK_FUNC, 1, 12, S("outer"), none, 100);
	fxt_prof_begin(p, FXT_PK_FUNC, 1, 12, S("inner"), none, 150);
	fxt_prof_end(p, FXT_PK_FUNC, 1, 12, 250);
	fxt_prof_begin(p, FXT_PK_LOCK, 1, 12, S("mutex"), S("queue_lock"), 260);
	fxt_prof_end(p, FXT_PK_LOCK, 1, 12, 300);
	fxt_prof_end(p, FXT_PK_FUNC, 1, 12, 400);
	fxt_prof_begin(p, FXT_PK_FUNC, 1, 12, S("never_ended"), none, 500);
	fxt_prof_span(p, FXT_PK_SAMPLE, 1, 13, S("hot"), none, 100, 300);
	fxt_prof_span(p, FXT_PK_SAMPLE, 1, 13, S("main"), none, 100, 400);
	fxt_prof_span(p, FXT_PK_SAMPLE, 1, 13, S("cold"), none, 400, 500);
}

/* Both passes over the same spans, the window given at the rescan. */
static void feed(struct fxt_prof *p, uint64_t from, uint64_t to)
{
	feed1(p);
	fxt_prof_rescan(p, from, to);
	feed1(p);
}

static const struct fxt_prof_node *child(struct fxt_prof *p, const struct fxt_prof_node *n,
					 const char *name)
{
	for (uint32_t c = n ? n->child : 0; c; c = fxt_prof_node(p, c)->sibling)
		if (sv_eq(fxt_prof_node(p, c)->name, S(name)))
			return fxt_prof_node(p, c);
	return NULL;
}

static void test_profile(void)
{
	struct fxt_prof *p;
	struct fxt_prof_opts o = { .tree = 1 };
	size_t n;

	ok(fxt_prof_new(&p, &o) == 0, "a profile opens");
	feed(p, 0, 0);
	ok(fxt_prof_finish(p) == 0, "the profile finishes");
	ok(row_is(p, FXT_PK_FUNC, 0, "main", 1, 1000, 260, 1000),
	   "main: self is its time minus a, a, c and the lock wait (1000 - 740)");
	ok(row_is(p, FXT_PK_FUNC, 0, "a", 3, 300, 230, 190),
	   "a: three calls merged by name content, self 120 + 100 + 10");
	ok(row_is(p, FXT_PK_FUNC, 0, "b", 2, 70, 70, 40), "b: leaves have self == total");
	ok(row_is(p, FXT_PK_FUNC, 0, "c", 1, 400, 390, 400), "c: self excludes its callee a");
	ok(row_is(p, FXT_PK_FUNC, 0, "outer", 1, 300, 160, 300),
	   "begin/end: outer's self excludes inner and the lock wait");
	ok(row_is(p, FXT_PK_FUNC, 0, "inner", 1, 100, 100, 100), "begin/end: inner counted");
	ok(row_is(p, FXT_PK_LOCK, 0, "queue_lock", 2, 90, 90, 50),
	   "lock waits of two threads are one row per object");
	ok(!find(p, FXT_PK_FUNC, 1, 0, "mutex"), "lock waits stay out of the function table");
	ok(row_is(p, FXT_PK_SAMPLE, 0, "main", 1, 300, 100, 300) &&
	   row_is(p, FXT_PK_SAMPLE, 0, "hot", 1, 200, 200, 200),
	   "sample slices nest in their own timeline");
	ok(fxt_prof_unclosed(p) == 1, "a begin never ended is reported, not counted");
	ok(!find(p, FXT_PK_FUNC, 1, 0, "never_ended"), "the unended frame has no row");

	struct fxt_prof_root *roots = fxt_prof_roots(p, FXT_PK_FUNC, &n);
	ok(n == 1 && roots[0].key.a == 1, "one call tree for the process");
	const struct fxt_prof_node *root = n ? fxt_prof_node(p, roots[0].node) : NULL;
	const struct fxt_prof_node *m = child(p, root, "main"), *ma = child(p, m, "a");
	const struct fxt_prof_node *mc = child(p, m, "c"), *mca = child(p, mc, "a");
	ok(m && m->calls == 1 && m->total == 1000, "tree: main at the root");
	ok(ma && ma->calls == 2 && ma->total == 290 && ma->self == 220,
	   "tree: main>a merges the two direct calls (190 + 100)");
	ok(mca && mca->calls == 1 && mca->total == 10, "tree: main>c>a is a path of its own");
	ok(child(p, ma, "b") && child(p, ma, "b")->calls == 2, "tree: main>a>b has both calls");
	ok(child(p, m, "queue_lock") && child(p, m, "queue_lock")->kind == FXT_PK_LOCK,
	   "tree: the lock wait shows under main, marked as a lock wait");
	ok(child(p, root, "outer") && child(p, child(p, root, "outer"), "inner"),
	   "tree: begin/end pairs build paths too");
	fxt_prof_free(p);

	o = (struct fxt_prof_opts){ .per_thread = 1 };
	ok(fxt_prof_new(&p, &o) == 0, "a windowed per-thread profile opens");
	feed(p, 250, 950);
	fxt_prof_finish(p);
	ok(row_is(p, FXT_PK_FUNC, 11, "a", 2, 110, 110, 100),
	   "window [250,950]: only the a calls inside it count");
	ok(!find(p, FXT_PK_FUNC, 1, 11, "main") && !find(p, FXT_PK_FUNC, 1, 11, "b"),
	   "window: calls reaching outside it are left out");
	ok(row_is(p, FXT_PK_FUNC, 11, "c", 1, 400, 390, 400) && !find(p, FXT_PK_FUNC, 1, 12, "c"),
	   "per-thread rows carry the thread id");
	fxt_prof_free(p);
}

/* R{ N leaves, G{ M leaves }, stall } on thread 1: the leaves written in post-order. */
static void fanout1(struct fxt_prof *p, uint64_t n, uint64_t m)
{
	const struct fxt_sv none = { "", 0 };

	for (uint64_t i = 0; i < n + m; i++) {
		if (i == n + 2 || i == 7)
			fxt_prof_cut(p); /* another chunk */
		fxt_prof_span(p, FXT_PK_FUNC, 1, 1, S("leaf"), none, 10 + 3 * i, 11 + 3 * i);
	}
	fxt_prof_span(p, FXT_PK_FUNC, 1, 1, S("G"), none, 3 * n + 9, 3 * (n + m) + 20);
	fxt_prof_span(p, FXT_PK_STALL, 1, 1, S("populate"), none, 3 * (n + m) + 30,
		      3 * (n + m) + 50);
	fxt_prof_span(p, FXT_PK_FUNC, 1, 1, S("R"), none, 0, 3 * (n + m) + 100);
}

static void test_fanout(void)
{
	struct fxt_prof *p;
	struct fxt_prof_opts o = { .tree = 1 };
	const uint64_t n = 1100000, m = 35000;
	size_t nr;

	fxt_prof_new(&p, &o);
	fanout1(p, n, m);
	fxt_prof_rescan(p, 0, 0);
	fanout1(p, n, m);
	ok(fxt_prof_finish(p) == 0, "1.1M direct callees: the profile finishes");
	ok(row_is(p, FXT_PK_FUNC, 0, "R", 1, 3 * (n + m) + 100,
		  3 * (n + m) + 100 - n - (3 * (n + m) + 20 - (3 * n + 9)) - 20, 3 * (n + m) + 100),
	   "R's self: its time minus 1.1M leaves, G and the stall, exactly");
	ok(row_is(p, FXT_PK_FUNC, 0, "G", 1, 3 * m + 11, 3 * m + 11 - m, 3 * m + 11),
	   "G (a callee of R starting after 1.1M leaves): self minus its own 35000 leaves");
	ok(row_is(p, FXT_PK_FUNC, 0, "leaf", n + m, n + m, n + m, 1), "every leaf counted once");
	ok(row_is(p, FXT_PK_STALL, 0, "populate", 1, 20, 20, 20) &&
	   !find(p, FXT_PK_FUNC, 1, 0, "populate"), "the stall is a row of its own kind only");
	ok(fxt_prof_cross(p) < 2 * ((n + m) / 4096 + 4),
	   "memory: about one span kept per run of 4096 (those open at its first end), not 1.1M");
	struct fxt_prof_root *roots = fxt_prof_roots(p, FXT_PK_FUNC, &nr);
	const struct fxt_prof_node *r = nr ? child(p, fxt_prof_node(p, roots[0].node), "R") : NULL;
	const struct fxt_prof_node *rl = child(p, r, "leaf"), *gl = child(p, child(p, r, "G"), "leaf");
	ok(rl && gl && rl->calls == n && gl->calls == m,
	   "tree: R>leaf has the 1.1M leaves, R>G>leaf the 35000, none misplaced");
	ok(child(p, r, "populate") && child(p, r, "populate")->kind == FXT_PK_STALL,
	   "tree: the stall under R is marked as a stall");
	fxt_prof_free(p);
}

/* One thread's runs fed in reverse order: main{ a{ b } a{ b } }, one span per run. */
static void reversed1(struct fxt_prof *p)
{
	const struct fxt_sv none = { "", 0 };
	static const struct { const char *name; uint64_t s, e; } order[] = {
		{ "main", 0, 100 }, { "a", 50, 90 }, { "b", 60, 70 }, { "a", 10, 40 },
		{ "b", 20, 25 },
	};
	for (unsigned i = 0; i < 5; i++) {
		fxt_prof_cut(p);
		fxt_prof_span(p, FXT_PK_FUNC, 1, 1, S(order[i].name), none, order[i].s, order[i].e);
	}
}

static void test_reversed(void)
{
	struct fxt_prof *p;
	struct fxt_prof_opts o = { .tree = 1 };
	size_t nr;

	fxt_prof_new(&p, &o);
	reversed1(p);
	fxt_prof_rescan(p, 0, 0);
	reversed1(p);
	fxt_prof_finish(p);
	ok(row_is(p, FXT_PK_FUNC, 0, "main", 1, 100, 30, 100) &&
	   row_is(p, FXT_PK_FUNC, 0, "a", 2, 70, 55, 40) && row_is(p, FXT_PK_FUNC, 0, "b", 2, 15, 15, 10),
	   "chunks of a thread in reverse order: nesting by time, figures exact");
	struct fxt_prof_root *roots = fxt_prof_roots(p, FXT_PK_FUNC, &nr);
	const struct fxt_prof_node *m = nr ? child(p, fxt_prof_node(p, roots[0].node), "main") : NULL;
	ok(m && child(p, m, "a") && child(p, m, "a")->calls == 2 &&
	   child(p, child(p, m, "a"), "b") && child(p, child(p, m, "a"), "b")->calls == 2,
	   "chunks in reverse order: the tree is main>a>b");
	fxt_prof_free(p);
}

static void test_sort(void)
{
	struct fxt_prof *p;
	struct fxt_prof_opts o = { 0 };
	struct fxt_prof_row *r;
	size_t n;

	fxt_prof_new(&p, &o);
	feed(p, 0, 0);
	fxt_prof_finish(p);
	r = fxt_prof_rows(p, FXT_PK_FUNC, &n);
	fxt_prof_sort(r, n, FXT_SORT_SELF);
	ok(n == 6 && sv_eq(r[0].key.s, S("c")) && sv_eq(r[1].key.s, S("main")),
	   "sorted by self: c (390) then main (260)");
	fxt_prof_sort(r, n, FXT_SORT_CALLS);
	ok(sv_eq(r[0].key.s, S("a")), "sorted by calls: a (3) first");
	fxt_prof_sort(r, n, FXT_SORT_NAME);
	ok(sv_eq(r[0].key.s, S("a")) && sv_eq(r[n - 1].key.s, S("outer")), "sorted by name");
	fxt_prof_free(p);
}

static void test_time(void)
{
	char b[32];
	uint64_t v = 0;

	ok(!fxt_time_parse("10ms", &v) && v == 10000000, "10ms parses to 10000000 ns");
	ok(!fxt_time_parse("1.5s", &v) && v == 1500000000, "1.5s parses");
	ok(!fxt_time_parse("250us", &v) && v == 250000, "250us parses");
	ok(!fxt_time_parse("42", &v) && v == 42, "a bare number is nanoseconds");
	ok(fxt_time_parse("10 parsecs", &v) < 0 && fxt_time_parse("-1ms", &v) < 0 &&
	   fxt_time_parse("", &v) < 0, "bad times are refused");
	ok(!strcmp(fxt_time_fmt(b, sizeof(b), 812), "812 ns"), "812 ns prints in ns");
	ok(!strcmp(fxt_time_fmt(b, sizeof(b), 12345), "12.345 us"), "12345 ns prints in us");
	ok(!strcmp(fxt_time_fmt(b, sizeof(b), 1200000000), "1.200 s"), "1.2e9 ns prints in s");
	ok(!fxt_time_parse("1.200 s", &v) && v == 1200000000, "a duration as printed parses back");
	int same = 1;
	for (uint64_t ns = 0; ns < 1000000 && same; ns++) {	/* printed in integers below 1 ms */
		char want[32];
		snprintf(want, sizeof(want), ns < 1000 ? "%.0f ns" : "%.3f us",
			 ns < 1000 ? (double)ns : ns / 1e3);
		same = !strcmp(fxt_time_fmt(b, sizeof(b), ns), want);
	}
	ok(same, "every duration below 1 ms prints as printf's %%.3f of it in us (or ns) does");
	ok(!fxt_time_parse("0.95us", &v) && v == 950, "0.95us is 950 ns exactly");
	ok(!fxt_time_parse("1.0005ns", &v) && v == 1, "fractions of a ns round to the nearest");
	ok(!fxt_time_parse_in("8640000.123456789", 1000000000, &v) && v == 8640000123456789ull,
	   "a stamp 100 days into the clock keeps its nanoseconds (no floating point)");
	ok(!strcmp(fxt_time_fmt_stamp(b, sizeof(b), 8640000000000789ull), "8640000.000000789"),
	   "a stamp prints in seconds with 9 decimals");
	ok(fxt_time_parse_in("18446744073.709551616", 1000000000, &v) < 0 &&
	   !fxt_time_parse_in("18446744073.709551615", 1000000000, &v) && v == UINT64_MAX,
	   "2^64 ns is refused, 2^64 - 1 taken");
	ok(fxt_time_parse("1.5 parsecs", &v) < 0 && fxt_time_parse("1.5  s", &v) < 0 &&
	   fxt_time_parse(".", &v) < 0 && fxt_time_parse("+1s", &v) < 0,
	   "a bad unit, two spaces, no digit, a sign: refused");
}

static void test_selection(void)
{
	struct fxt_sel s = { 0 };
	char err[200];
	int good;

	ok(!fxt_sel_option(&s, FXT_SEL_SINCE, "12986.5", err, sizeof(err)) && !s.since.rel &&
	   s.since.ns == 12986500000000ull, "--since with a bare number: a stamp in seconds");
	ok(!fxt_sel_option(&s, FXT_SEL_UNTIL, "+250ms", err, sizeof(err)) && s.until.rel &&
	   s.until.ns == 250000000, "--until +250ms: after the trace start");
	ok(fxt_sel_needs_start(&s), "a + bound needs the trace start");
	ok(!fxt_sel_check(&s, err, sizeof(err)), "one stamp and one offset: checked once resolved");
	ok(fxt_sel_resolve(&s, 12986000000000ull, err, sizeof(err)) == -ERANGE &&
	   strstr(err, "before"), "an --until that resolves before --since is refused");
	ok(!fxt_sel_resolve(&s, 12986400000000ull, err, sizeof(err)) &&
	   s.from_ns == 12986500000000ull && s.to_ns == 12986650000000ull,
	   "resolved: the window in ns of the clock");
	ok(fxt_sel_span(&s, s.from_ns, s.to_ns) && !fxt_sel_span(&s, s.from_ns - 1, s.to_ns) &&
	   !fxt_sel_span(&s, s.from_ns, s.to_ns + 1), "a call exactly at the bounds is in, one ns "
	   "past either is out");
	ok(fxt_sel_point(&s, s.to_ns) && !fxt_sel_point(&s, s.to_ns + 1), "points: bounds included");
	ok(!fxt_sel_option(&s, FXT_SEL_FROM, "10ms", err, sizeof(err)) && s.since.rel &&
	   s.since.ns == 10000000, "--from 10ms (report's older name): after the trace start");
	ok(!fxt_sel_option(&s, FXT_SEL_TO, "5ms", err, sizeof(err)) &&
	   fxt_sel_check(&s, err, sizeof(err)) == -ERANGE, "--to before --from is refused at once");
	ok(fxt_sel_option(&s, FXT_SEL_SINCE, "10parsecs", err, sizeof(err)) == -EINVAL &&
	   strstr(err, "--since 10parsecs"), "a bad time: one line naming the option");
	ok(fxt_sel_thread(&s, 1, 2) && !fxt_sel_threads(&s), "no thread set: every thread");
	good = !fxt_sel_option(&s, FXT_SEL_TID, "7,9", err, sizeof(err)) &&
	       !fxt_sel_option(&s, FXT_SEL_TID, "11", err, sizeof(err));
	ok(good && fxt_sel_thread(&s, 1, 9) && fxt_sel_thread(&s, 5, 11) && !fxt_sel_thread(&s, 1, 8),
	   "--tid takes lists and is repeatable");
	ok(fxt_sel_option(&s, FXT_SEL_PID, "x1", err, sizeof(err)) == -EINVAL &&
	   fxt_sel_option(&s, FXT_SEL_PID, "1,", err, sizeof(err)) == -EINVAL &&
	   fxt_sel_option(&s, FXT_SEL_PID, "-1", err, sizeof(err)) == -EINVAL, "bad ids are refused");
	fxt_sel_free(&s);
	ok(!fxt_sel_option(&s, FXT_SEL_SINCE, "1.5s", err, sizeof(err)) &&
	   fxt_sel_warning(&s, 12986000000000ull, err, sizeof(err)) && strstr(err, "+"),
	   "a stamp long before the trace start: a note that + counts from the start");
	ok(!fxt_sel_warning(&s, 1000000000ull, err, sizeof(err)), "no note for a stamp near it");
	fxt_sel_free(&s);
}

static void test_oncpu(void)
{
	struct fxt_oncpu *o;
	struct fxt_koids t = { 1, 10 }, none = { 0, 0 };

	fxt_oncpu_new(&o);
	fxt_oncpu_switch(o, &none, 0, &t, 100);	/* in at 100 */
	fxt_oncpu_switch(o, &t, 3, &none, 200);	/* out at 200 */
	ok(fxt_oncpu_time(o, 10, 0, 1000) == 1000, "before finish: the whole span");
	ok(!fxt_oncpu_finish(o) && fxt_oncpu_time(o, 10, 0, 1000) == 100, "finished: 100 ns on CPU");
	fxt_oncpu_switch(o, &none, 0, &t, 500);	/* in again at 500: read later */
	ok(fxt_oncpu_time(o, 10, 0, 1000) == 100, "a switch given after finish counts only once "
	   "built");
	ok(!fxt_oncpu_finish(o) && fxt_oncpu_time(o, 10, 0, 1000) == 600,
	   "finish again: the intervals include it (100 + 500)");
	fxt_oncpu_free(o);
}

/* A lookup starts from the last one's interval: asked in any order, about two threads in
 * turn, the answers are those of a count over the intervals themselves. */
static void test_oncpu_order(void)
{
	struct fxt_oncpu *o;
	struct fxt_koids a = { 1, 10 }, b = { 1, 11 }, none = { 0, 0 };
	uint64_t x = 88172645463325252ull;
	int good = 1;

	fxt_oncpu_new(&o);
	for (uint64_t i = 0; i < 100; i++) {	/* a: on CPU in [1000i + 100, 1000i + 600) */
		fxt_oncpu_switch(o, &none, 0, &a, 1000 * i + 100);
		fxt_oncpu_switch(o, &a, 3, &b, 1000 * i + 600);	/* b: the rest */
		fxt_oncpu_switch(o, &b, 1, &none, 1000 * i + 1100);
	}
	fxt_oncpu_finish(o);
	for (int q = 0; q < 20000; q++) {
		uint64_t s, e, want = 0;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = q < 10000 ? (uint64_t)q * 10 : x % 101000;	/* in order, then at random */
		e = s + (q & 1 ? 7 : x % 3000);
		for (uint64_t i = 0; i < 100; i++) {
			uint64_t lo = 1000 * i + 100, hi = 1000 * i + 600;
			lo = lo > s ? lo : s;
			hi = hi < e ? hi : e;
			want += hi > lo ? hi - lo : 0;
		}
		good &= fxt_oncpu_time(o, 10, s, e) == want;
		fxt_oncpu_time(o, 11, e, e + 50);	/* another thread between */
	}
	ok(good, "20000 spans asked in order then at random: each as counted");
	fxt_oncpu_free(o);
}

/* A table entry owning memory, and the count of entries dropped. */
struct owned {
	struct ckey key;
	char *text;
};
static int drops;

static void drop_owned(void *entry)
{
	free(((struct owned *)entry)->text);
	drops++;
}

static void test_table(void)
{
	struct ctab t;
	int good = 1;

	struct ckey miss = { 3, 21, S("even") };
	ctab_init(&t, sizeof(struct ckey) + 8);
	ctab_truncate(&t, 0);
	ok(!t.idx && !t.ents && ctab_get(&t, &miss, 0) == -1 && !ctab_ids(&t, 1, 2, 0),
	   "an empty table has nothing allocated; lookups miss, truncating it is a no-op");
	for (uint64_t i = 0; i < 10000; i++) {
		struct ckey k = { i, i * 7, S(i & 1 ? "odd" : "even") };
		good &= ctab_get(&t, &k, 1) == (int64_t)i;
	}
	for (uint64_t i = 0; i < 10000; i++) {
		struct ckey k = { i, i * 7, S(i & 1 ? "odd" : "even") };
		good &= ctab_get(&t, &k, 0) == (int64_t)i;
	}
	ok(good && t.n == 10000, "10000 keys are stored and found again at their index");
	ok(ctab_get(&t, &miss, 0) == -1, "a key differing only in its string is missing");
	ctab_free(&t);

	struct owned *e;
	ctab_init(&t, sizeof(struct owned));
	ok(!ctab_ids(&t, 5, 6, 0), "ctab_ids: a missing entry is not made without create");
	e = ctab_ids(&t, 5, 6, 1);
	ok(e && e->key.a == 5 && e->key.b == 6 && !e->key.s.len && !e->text,
	   "ctab_ids: made zeroed with its two ids and an empty string");
	e->text = malloc(16);
	e = ctab_ids(&t, 7, 8, 1);
	e->text = malloc(16);
	ok(ctab_ids(&t, 5, 6, 0) && ctab_ids(&t, 5, 6, 1) == ctab_ids(&t, 5, 6, 0) && t.n == 2,
	   "ctab_ids: found again, not made twice");
	drops = 0;
	ctab_free_each(&t, drop_owned);
	ok(drops == 2 && !t.n && !t.ents, "ctab_free_each: each entry dropped, the table freed");
}

static void test_order(void)
{
	struct sw {
		uint32_t pad;
		uint64_t ts;
	} a[] = { { 0, 10 }, { 0, 20 }, { 0, 20 }, { 0, 30 }, { 0, 40 } };
	const size_t es = sizeof(a[0]), off = offsetof(struct sw, ts);
	int good = 1;

	for (uint32_t hint = 0; hint <= 6; hint++) {	/* 6: a stale hint past the end */
		good &= fxt_upper_bound(a, es, off, 5, hint, 5) == 0;
		good &= fxt_upper_bound(a, es, off, 5, hint, 10) == 1;
		good &= fxt_upper_bound(a, es, off, 5, hint, 20) == 3;
		good &= fxt_upper_bound(a, es, off, 5, hint, 25) == 3;
		good &= fxt_upper_bound(a, es, off, 5, hint, 40) == 5;
	}
	ok(good, "fxt_upper_bound: the first key above x, whatever the hint (right, wrong, stale)");
	ok(fxt_upper_bound(a, es, off, 0, 0, 7) == 0, "fxt_upper_bound: 0 of none");
	ok(fxt_cmp_u64(1, 2) < 0 && fxt_cmp_u64(2, 1) > 0 && !fxt_cmp_u64(UINT64_MAX, UINT64_MAX) &&
		   fxt_cmp_u64(0, UINT64_MAX) < 0,
	   "fxt_cmp_u64 orders the whole range (no subtraction wrapping)");
	ok(sv_cmp(S("ab"), S("abc")) < 0 && sv_cmp(S("abd"), S("abc")) > 0 &&
		   !sv_cmp(S("abc"), S("abc")) && sv_cmp(S("b"), S("abc")) > 0,
	   "sv_cmp: byte order, a prefix first");
}

int main(void)
{
	test_time();
	test_selection();
	test_oncpu();
	test_oncpu_order();
	test_table();
	test_order();
	test_profile();
	test_fanout();
	test_reversed();
	test_sort();
	return done();
}
