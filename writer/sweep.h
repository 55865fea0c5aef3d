/* The sweep: the one walk over records as writers leave them in shared memory (a chunk, the
 * durable area, a copy of either), the writer-side twin of reader/cursor.h. Each header is read
 * with acquire order: a record found is committed, its words all written. A walk stops where no
 * committed record is: a zero header (not yet: nothing committed there), a header no writer
 * commits (torn: size 0, or running past the run), the window's end, or a record running past
 * the window but not the run (cut: its rest is in the next piece). Used by the standalone
 * file's finish and `fxt recover`, the manager's plan, copy and vetting, and a fork child's
 * string copy. Pure code: no I/O, no malloc, async-signal-safe; a sweep is the caller's. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_SWEEP_H
#define FXT_WRITER_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "writer/records.h"

/* Why a walk found no record where it is. */
enum fxt_sweep_stop {
	FXT_SWEEP_END,		/* the window's end */
	FXT_SWEEP_NOT_YET,	/* a zero header: nothing committed there yet */
	FXT_SWEEP_TORN,		/* a header no writer commits: size 0, or running past the run */
	FXT_SWEEP_CUT,		/* a record running past the window, not the run: a piece's end */
};

/* A walk over the records of p[0, run), reading p[0, window) only. Callers move `at` themselves
 * (at += the size fxt_sweep_peek() gave; past a hole, one word). */
struct fxt_sweep {
	const uint64_t *p;		/* the run's first word, a record's header */
	size_t at;			/* word offset of the record looked at: where the walk is */
	size_t window;			/* words readable from p: the run, or a piece of it */
	size_t run;			/* words the records may span from p (>= window) */
	uint64_t header;		/* the word read at `at` by the last peek */
	enum fxt_sweep_stop stop;	/* why the last peek found no record */
};

/* A walk over the records of p[0, words) from word offset `from`. Fails: never. */
static inline struct fxt_sweep fxt_sweep_over(const uint64_t *p, size_t from, size_t words)
{
	return (struct fxt_sweep){ .p = p, .at = from, .window = words, .run = words };
}

/* A walk over a piece of a run: p[0, window) of the p[0, run) its records may span (run >=
 * window), from word offset `from`; a record crossing the piece's end stops it as CUT. Fails:
 * never. */
static inline struct fxt_sweep fxt_sweep_piece(const uint64_t *p, size_t from, size_t window,
					       size_t run)
{
	return (struct fxt_sweep){ .p = p, .at = from, .window = window, .run = run };
}

/* The size in words of the committed record at s->at (its header in s->header), or 0 when
 * there is none (s->stop says why). Does not move. Fails: never. Reads only: safe beside
 * writers (acquire), async-signal-safe. */
static inline size_t fxt_sweep_peek(struct fxt_sweep *s)
{
	if (s->at >= s->window) {
		s->stop = FXT_SWEEP_END;
		return 0;
	}
	uint64_t h = __atomic_load_n(&s->p[s->at], __ATOMIC_ACQUIRE);
	size_t n = (size_t)fxt_record_words(h);
	s->header = h;
	if (__builtin_expect(n && n <= s->window - s->at, 1))
		return n;
	if (!h)
		s->stop = FXT_SWEEP_NOT_YET;
	else if (n && n <= s->run - s->at)
		s->stop = FXT_SWEEP_CUT;
	else
		s->stop = FXT_SWEEP_TORN;
	return 0;
}

/* Moves s past the committed records from s->at; returns where they end (s->at), s->stop says
 * why. Fails: never. Async-signal-safe. */
static inline size_t fxt_sweep_run(struct fxt_sweep *s)
{
	for (size_t n; (n = fxt_sweep_peek(s)); s->at += n)
		;
	return s->at;
}

/* Words of committed records at the start of p[0, words). Fails: never (0). */
static inline size_t fxt_sweep_prefix(const uint64_t *p, size_t words)
{
	struct fxt_sweep s = fxt_sweep_over(p, 0, words);
	return fxt_sweep_run(&s);
}

/* When the n-word record at s->at happened (n: its size from fxt_sweep_peek()): an event's or
 * log record's timestamp (a duration complete event's end, the later of its two), 0 for other
 * records; what a walk compares with a stop time. Fails: never. Async-signal-safe. */
uint64_t fxt_sweep_stamp(const struct fxt_sweep *s, size_t n);

/* fxt_sweep_peek() in a durable area after a hole (hole != 0: a reservation a killed writer
 * left unwritten lies before s->at, so a header there may be a record's payload): a record
 * counts only if its type is one the durable area holds (string, thread, kernel or userspace
 * object); another is TORN (a word of the hole). Fails: never. Async-signal-safe. */
size_t fxt_sweep_peek_durable(struct fxt_sweep *s, int hole);

#endif
