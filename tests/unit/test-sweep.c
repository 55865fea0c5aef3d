/* Unit test of the sweep (writer/sweep.h), the one walk over records as writers leave them:
 * committed records are found with their sizes (a large record by its large size); a zero
 * header is "not yet" (a reservation whose payload is written but not its header too); a header
 * of size 0 or running past the run is torn; a record crossing a piece's end but not the run's is
 * cut, and found whole in the next piece; after a hole in a durable area only the area's record
 * types count; a record's stamp is what a stop time is compared with. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "check.h"
#include "writer/records.h"
#include "writer/sweep.h"

#define WORDS 64

static const char *const stops[] = { "end", "not yet", "torn", "cut" };

static size_t call(uint64_t *dst, uint64_t start, uint64_t end)
{
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1), fxt_str_idx(2),
					     start, end);
	return (size_t)fxt_event_write(dst, &e);
}

static size_t instant(uint64_t *dst, uint64_t ts)
{
	struct fxt_event e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(1), fxt_str_idx(2), ts);
	return (size_t)fxt_event_write(dst, &e);
}

/* The offsets and sizes a walk over p[0, words) finds, into at[]/n[]; returns how many. */
static size_t walk(struct fxt_sweep *s, size_t *at, size_t *n, size_t max)
{
	size_t k = 0;
	for (size_t m; k < max && (m = fxt_sweep_peek(s)); s->at += m, k++) {
		at[k] = s->at;
		n[k] = m;
	}
	return k;
}

static void committed(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t len = (size_t)fxt_string_write(w, 1, "fxt", 3);
	len += call(w + len, 10, 20);
	len += instant(w + len, 30);
	size_t at[8], n[8];
	struct fxt_sweep s = fxt_sweep_over(w, 0, len);
	size_t k = walk(&s, at, n, 8);
	ok(k == 3 && at[0] == 0 && n[0] == 2 && at[1] == 2 && n[1] == 3 && at[2] == 5 &&
		   n[2] == 2,
	   "committed records are found in order with their sizes (%zu found)", k);
	ok(s.at == len && s.stop == FXT_SWEEP_END, "the walk ends at the window's end (%s at %zu)",
	   stops[s.stop], s.at);
	ok(fxt_sweep_prefix(w, len) == len, "the prefix of committed records is the whole run");
	s = fxt_sweep_over(w, 2, len);
	ok(fxt_sweep_run(&s) == len, "a walk starting mid-run (at a record) ends at the run's end");
	ok(fxt_sweep_prefix(w, 0) == 0, "an empty window holds no record");

	uint8_t payload[200];
	memset(payload, 7, sizeof(payload));
	struct fxt_large_blob b = { .format = 1, .category = fxt_str_idx(1),
				    .name = fxt_str_idx(2), .data = payload,
				    .size = sizeof(payload) };
	uint64_t big[64] = { 0 };
	size_t words = (size_t)fxt_large_blob_write(big, &b);
	ok(words > 4 && fxt_sweep_prefix(big, words) == words,
	   "a large record counts by its large header's size (%zu words)", words);
}

static void not_yet(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t len = call(w, 10, 20);
	size_t held = call(w + len, 30, 40);
	uint64_t header = w[len];
	w[len] = 0;	/* reserved and written, its header not yet committed */
	struct fxt_sweep s = fxt_sweep_over(w, 0, WORDS);
	size_t end = fxt_sweep_run(&s);
	ok(end == len && s.stop == FXT_SWEEP_NOT_YET,
	   "a zero header is not yet: the walk stops before it (%s at %zu)", stops[s.stop], end);
	ok(fxt_sweep_peek(&s) == 0 && s.at == len && s.header == 0,
	   "peeking again stays there and moves nothing");
	__atomic_store_n(&w[len], header, __ATOMIC_RELEASE);
	ok(fxt_sweep_peek(&s) == held, "once its header is committed the record is found there");
	ok(fxt_sweep_run(&s) == len + held && s.stop == FXT_SWEEP_NOT_YET,
	   "and the walk goes on to the next zero header");
}

static void torn(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t len = call(w, 10, 20);
	w[len] = fxt_record_hdr(FXT_RT_EVENT, 0);	/* non-zero (its type), size 0 */
	struct fxt_sweep s = fxt_sweep_over(w, 0, WORDS);
	size_t end = fxt_sweep_run(&s);
	ok(end == len && s.stop == FXT_SWEEP_TORN, "a non-zero header of size 0 is torn (%s at %zu)",
	   stops[s.stop], end);

	w[len] = fxt_record_hdr(FXT_RT_EVENT, 8);	/* 8 words where 5 are left */
	s = fxt_sweep_over(w, 0, len + 5);
	end = fxt_sweep_run(&s);
	ok(end == len && s.stop == FXT_SWEEP_TORN,
	   "a header whose size runs past the run's end is torn (%s at %zu)", stops[s.stop], end);
	s = fxt_sweep_over(w, 0, len + 8);
	ok(fxt_sweep_run(&s) == len + 8 && s.stop == FXT_SWEEP_END,
	   "the same header ending exactly at the run's end is committed");
}

static void cut(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t len = call(w, 10, 20);
	len += call(w + len, 30, 40);	/* words 3..5 */
	len += call(w + len, 50, 60);	/* words 6..8 */
	/* a piece of 7 words: the third record crosses its end */
	struct fxt_sweep s = fxt_sweep_piece(w, 0, 7, len);
	size_t end = fxt_sweep_run(&s);
	ok(end == 6 && s.stop == FXT_SWEEP_CUT,
	   "a record crossing a piece's end but not the run's is cut (%s at %zu)", stops[s.stop], end);
	s = fxt_sweep_piece(w, 6, len, len);
	ok(fxt_sweep_peek(&s) == 3 && fxt_sweep_run(&s) == len && s.stop == FXT_SWEEP_END,
	   "the next piece, from the cut record, finds it whole");
	w[6] = fxt_record_hdr(FXT_RT_EVENT, 4);	/* now it runs past the run too */
	s = fxt_sweep_piece(w, 0, 7, len);
	end = fxt_sweep_run(&s);
	ok(end == 6 && s.stop == FXT_SWEEP_TORN,
	   "a record running past the run as well is torn, not cut (%s)", stops[s.stop]);
	s = fxt_sweep_over(w, 0, 6);
	ok(fxt_sweep_run(&s) == 6 && s.stop == FXT_SWEEP_END,
	   "a piece ending on a record boundary ends there");
}

static void durable(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t len = (size_t)fxt_string_write(w, 1, "fxt", 3);
	size_t ev = instant(w + len, 30);
	struct fxt_sweep s = fxt_sweep_over(w, 0, WORDS);
	ok(fxt_sweep_peek_durable(&s, 1) == len, "after a hole, a string record counts");
	s.at = len;
	ok(fxt_sweep_peek_durable(&s, 0) == ev, "without a hole, any committed record counts");
	ok(fxt_sweep_peek_durable(&s, 1) == 0 && s.stop == FXT_SWEEP_TORN,
	   "after a hole, an event (a type the durable area never holds) is a word of the hole");
	s.at = len + ev;
	ok(fxt_sweep_peek_durable(&s, 1) == 0 && s.stop == FXT_SWEEP_NOT_YET,
	   "after a hole, a zero header is still not yet");
}

static void stamps(void)
{
	uint64_t w[WORDS] = { 0 };
	size_t a = call(w, 10, 20), b = call(w + a, 40, 30), c = instant(w + a + b, 50);
	size_t d = (size_t)fxt_string_write(w + a + b + c, 1, "fxt", 3);
	struct fxt_sweep s = fxt_sweep_over(w, 0, WORDS);
	ok(fxt_sweep_stamp(&s, a) == 20, "a complete event happened at its end");
	s.at = a;
	ok(fxt_sweep_stamp(&s, b) == 40, "... or at its start when that is later (a torn pair)");
	s.at = a + b;
	ok(fxt_sweep_stamp(&s, c) == 50, "an instant happened at its timestamp");
	s.at = a + b + c;
	ok(fxt_sweep_stamp(&s, d) == 0, "a string record has no stamp");
}

int main(void)
{
	committed();
	not_yet();
	torn();
	cut();
	durable();
	stamps();
	return done();
}
