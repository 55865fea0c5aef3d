/* Unit test of the manager's vetting (launcher/manager/vet.c) where it decodes a record by a header it
 * remembered (a 3-word duration complete event decoded before): such a record is judged as the
 * strict reader and the validator judge it. A record with a remembered header that runs past the
 * data is refused, as is one ending before it starts; calls overlapping without nesting are
 * kept (the validator's warning: the spec allows them); the cutoff and a snapshot's cut
 * leave such records out by their own stamps; after a thread record the header is decoded
 * afresh when it names another thread (a reused index), not when it names the same one again
 * (the record opening each chunk), and an unregistered string index stays refused; after
 * fxt_vet_rest() every record is decoded, and still checked. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "launcher/manager/vet.h"
#include "writer/records.h"

#define PID 4242u

/* The records of a provider's buffer, written one by one. */
struct recs {
	uint64_t w[256];
	size_t n;
};

static void str(struct recs *r, uint16_t index, const char *s)
{
	r->n += (size_t)fxt_string_write(r->w + r->n, index, s, (uint32_t)strlen(s));
}

static void thread(struct recs *r, uint64_t tid)
{
	r->n += (size_t)fxt_thread_write(r->w + r->n, 1, PID, tid);
}

static void call(struct recs *r, uint16_t name, uint64_t start, uint64_t end)
{
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1), fxt_str_idx(name),
					     start, end);
	r->n += (size_t)fxt_event_write(r->w + r->n, &e);
}

/* A vet that saw the strings "cat" (1) and "f" (2), thread 1, and two calls of f (the second
 * decoded by its remembered header); *r gets what follows. */
static struct fxt_vet *primed(struct recs *r, uint64_t *offset)
{
	struct fxt_vet *v = fxt_vet_new(1);
	struct recs p = { .n = 0 };
	uint64_t ev;
	str(&p, 1, "cat");
	str(&p, 2, "f");
	thread(&p, PID + 1);
	call(&p, 2, 10, 20);
	call(&p, 2, 30, 40);
	size_t kept = v ? fxt_vet_records(v, p.w, p.n, 4096, 0, &ev, NULL) : 0;
	ok(v && kept == p.n && ev == 2 && !fxt_vet_problem(v), "primed: two calls kept");
	*offset = 4096 + p.n * 8;
	r->n = 0;
	return v;
}

static void test_truncated(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	call(&r, 2, 50, 60);
	call(&r, 2, 70, 80);
	size_t kept = v ? fxt_vet_records(v, r.w, r.n - 1, off, 0, &ev, NULL) : 0;
	const char *why = v ? fxt_vet_problem(v) : NULL;
	ok(kept == 3 && ev == 1, "a remembered header cut by the data's end: the records before it kept");
	ok(why && strstr(why, "runs past"), "... and it is refused (%s)", why ? why : "accepted");
	fxt_vet_free(v);
}

static void test_backwards(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	call(&r, 2, 90, 50);
	size_t kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 1;
	const char *why = v ? fxt_vet_problem(v) : NULL;
	ok(kept == 0 && why && strstr(why, "before it starts"),
	   "a remembered header ending before it starts is refused (%s)", why ? why : "accepted");
	fxt_vet_free(v);
}

static void test_cuts(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	call(&r, 2, 50, 60);
	call(&r, 2, 70, 80);
	call(&r, 2, 90, 100);
	fxt_vet_skip_end(v, 80);
	size_t kept = v ? fxt_vet_records(v, r.w, r.n, off, 90, &ev, NULL) : 0;
	ok(kept == 3 && ev == 1 && r.w[1] == 50 && fxt_vet_last_stamp(v) == 60 &&
		   !fxt_vet_problem(v),
	   "remembered headers: the snapshot's cut (ends at 80) and the cutoff (90) left out");
	fxt_vet_free(v);
}

static void test_overlap(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	call(&r, 2, 50, 70);
	call(&r, 2, 60, 80);	/* overlaps the one before without nesting */
	size_t kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 0;
	ok(kept == r.n && ev == 2 && v && !fxt_vet_problem(v) && fxt_vet_finish(v) == 0,
	   "calls overlapping without nesting: both kept, nothing refused");
	fxt_vet_free(v);
}

static void test_tables(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	thread(&r, PID + 2);	/* index 1 is another thread now */
	call(&r, 2, 50, 60);
	call(&r, 3, 70, 80);	/* string 3 was never registered */
	size_t kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 0;
	const char *why = v ? fxt_vet_problem(v) : NULL;
	ok(kept == 6 && ev == 1, "after a thread record, the remembered header's call kept");
	ok(why && strstr(why, "unregistered index 3"), "an unregistered string refused (%s)",
	   why ? why : "accepted");
	fxt_vet_free(v);
}

/* The thread record opening every chunk names the thread it named before: the calls after it
 * are still known (decoding each distinct call once per chunk cost SQLite's speedtest1 a
 * reader-grade decode for 30% of its calls). */
static void test_same_thread(void)
{
	struct recs r;
	uint64_t off, ev;
	struct fxt_vet *v = primed(&r, &off);
	uint64_t before = v ? fxt_vet_decoded(v) : 0;
	thread(&r, PID + 1);	/* the same thread: a new chunk */
	call(&r, 2, 50, 60);
	call(&r, 2, 70, 80);
	size_t kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 0;
	uint64_t decoded = v ? fxt_vet_decoded(v) - before : 0;
	ok(kept == r.n && ev == 2 && decoded == 1,
	   "a thread record naming the same thread: only it is decoded (%llu decoded)",
	   (unsigned long long)decoded);
	off += r.n * 8;
	r.n = 0;
	thread(&r, PID + 2);	/* another thread */
	call(&r, 2, 90, 100);
	before = fxt_vet_decoded(v);
	kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 0;
	decoded = v ? fxt_vet_decoded(v) - before : 0;
	ok(kept == r.n && ev == 1 && decoded == 2,
	   "a thread record naming another thread: the call after it decoded afresh (%llu)",
	   (unsigned long long)decoded);
	off += r.n * 8;
	r.n = 0;
	fxt_vet_rest(v);
	call(&r, 2, 110, 120);
	call(&r, 2, 110, 105);	/* ends before it starts */
	before = fxt_vet_decoded(v);
	kept = v ? fxt_vet_records(v, r.w, r.n, off, 0, &ev, NULL) : 0;
	const char *why = v ? fxt_vet_problem(v) : NULL;
	ok(kept == 3 && fxt_vet_decoded(v) - before == 2 && why &&
		   strstr(why, "before it starts"),
	   "rested: each record decoded, a bad one still refused (%s)", why ? why : "accepted");
	fxt_vet_free(v);
}

int main(void)
{
	test_same_thread();
	test_truncated();
	test_backwards();
	test_overlap();
	test_cuts();
	test_tables();
	return done();
}
