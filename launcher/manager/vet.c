/* Record vetting of the trace manager (vet.h): the records are walked by the sweep
 * (writer/sweep.h), a STRICT reader decodes each against the provider's tables
 * (fxt_reader_decode; a torn header too: the reader says why) and the validator of
 * fxt/reader.h applies the rules spanning records; both are primed with the magic number and
 * provider info records the saver writes for the provider, so they see the provider's records
 * as `fxt check` will.
 * Most records are 3-word duration complete events (a call): how the reader decodes one depends
 * only on its header word and the provider's string and thread tables, and only string and
 * thread records change those. So such a header is remembered (`known`) until the next record
 * that changes them, and a later record with the same header needs only the one rule its stamps
 * can break: a complete event ends no earlier than it starts. (The validator's other judgement
 * of complete events, nesting on their thread, gives warnings only: the spec allows overlaps,
 * `fxt check` accepts them, and the vetting never used them; feeding every call to it was a third
 * of the manager's time.) Every record is still checked. The thread record opening each chunk
 * binds its index to the koids it had before: it changes nothing, and the headers stay known
 * (the table is sized for a program's thousands of functions: a call of one not remembered
 * costs a reader-grade decode, about 10x a known one). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/vet.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/reader.h"
#include "writer/fields.h"
#include "writer/records.h"
#include "writer/sweep.h"

/* Headers remembered: direct-mapped on the header's name and thread references (16 KiB, made
 * at the first record, given back by fxt_vet_rest()). */
#define KNOWN_SLOTS 1024u

/* A header of a 3-word duration complete event the reader decoded; valid while gen is the
 * vet's. */
struct known {
	uint64_t header;
	uint64_t gen;
};

struct fxt_vet {
	struct fxt_reader *r;		/* STRICT, over no data: records arrive by decode */
	struct known *known;		/* KNOWN_SLOTS, NULL: not made yet, or given back */
	uint64_t gen;			/* bumped by every record that may change the tables */
	struct fxt_koids bound[FXT_THREAD_MAX_INDEX + 1];	/* thread index -> koids, as decoded */
	struct fxt_validator *val;
	int bad;
	char problem[200];
	uint64_t last_stamp;		/* the latest stamp of a record kept */
	uint64_t skip_end;		/* complete events ending then are left out (0: none) */
	int rested;			/* fxt_vet_rest() was called: no table made again */
	uint64_t decoded;		/* records decoded by the strict reader */
};

static const uint64_t nothing;

void fxt_vet_fail(struct fxt_vet *v, const char *why)
{
	if (v->bad)
		return;
	v->bad = 1;
	snprintf(v->problem, sizeof(v->problem), "%s", why);
}

/* Feeds one well-formed record of ours (magic, provider info) to both checkers. */
static int prime(struct fxt_vet *v, uint64_t *rec, int words)
{
	struct fxt_record d;
	if (words <= 0 || fxt_reader_decode(v->r, rec, (size_t)words, 0, &d) != FXT_READ_RECORD)
		return -1;
	return fxt_validator_add(v->val, &d) < 0 ? -1 : 0;
}

struct fxt_vet *fxt_vet_new(uint32_t provider_id)
{
	struct fxt_vet *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->gen = 1;	/* slots of generation 0 hold nothing */
	uint64_t rec[2];
	if (fxt_reader_open_mem(&v->r, &nothing, 0, FXT_READER_STRICT) < 0 ||
	    fxt_validator_new(&v->val) < 0 || prime(v, rec, fxt_magic_write(rec)) < 0 ||
	    prime(v, rec, fxt_provider_info_write(rec, provider_id, "", 0)) < 0) {
		fxt_vet_free(v);
		return NULL;
	}
	return v;
}

void fxt_vet_free(struct fxt_vet *v)
{
	if (!v)
		return;
	fxt_validator_free(v->val);
	fxt_reader_close(v->r);
	free(v->known);
	free(v);
}

/* Record types a provider writes into its buffer: not metadata or initialization records
 * (the manager writes those: a provider section in a chunk would move records to another
 * provider), nor types the spec leaves undefined; large records (sampled stacks) are. */
static int provider_type(unsigned type)
{
	return (type >= FXT_RT_STRING && type <= FXT_RT_LOG) || type == FXT_RT_LARGE;
}

/* No slot: nothing is known (the table could not be made, or was given back). */
static const struct known unknown;

static inline size_t slot_of(uint64_t header)
{
	uint64_t refs = header >> 24;	/* thread, category and name references */
	return (refs ^ refs >> 24 ^ refs >> 34) & (KNOWN_SLOTS - 1);
}

static const struct known *known_slot(const struct fxt_vet *v, uint64_t header)
{
	return v->known ? &v->known[slot_of(header)] : &unknown;
}

/* Calls of known headers from p[at] on, while none is left out (no cutoff, no snapshot cut)
 * nor moved (none was before): the common case, walked in a loop of its own. Returns where
 * they end: at the first record that is not such a call, or is one ending before it starts
 * (the general walk says why). */
static size_t known_run(struct fxt_vet *v, const uint64_t *p, size_t at, size_t words,
			uint64_t *events)
{
	const struct known *known = v->known;
	uint64_t gen = v->gen, last = v->last_stamp, n = 0;
	while (words - at >= 3) {
		uint64_t h = p[at], start = p[at + 1], end = p[at + 2];
		const struct known *k = &known[slot_of(h)];
		if (k->header != h || k->gen != gen || end < start)
			break;
		last = end > last ? end : last;
		at += 3;
		n++;
	}
	v->last_stamp = last;
	*events += n;
	return at;
}

/* Whether the thread record at p (3 words, decoded) bound its index to other koids than the
 * index had: only then did the thread table change. */
static int rebinds(struct fxt_vet *v, const uint64_t *p)
{
	struct fxt_koids *b = &v->bound[fxt_field_get(FXT_THREAD_INDEX, p[0])];
	if (b->pid == p[1] && b->tid == p[2])
		return 0;
	*b = (struct fxt_koids){ p[1], p[2] };
	return 1;
}

/* Decodes the record at p (words left) by the strict reader as the record at offset off, and
 * remembers its header when it may. Returns FXT_READ_RECORD, or the reader's result with the
 * reason in why. */
static int decode(struct fxt_vet *v, const uint64_t *p, size_t words, uint64_t off,
		  struct fxt_record *rec, char *why, size_t why_size)
{
	int rc = fxt_reader_decode(v->r, p, words, off, rec);
	v->decoded++;
	if (rc != FXT_READ_RECORD) {
		snprintf(why, why_size, "offset %" PRIu64 ": %s", off,
			 rc == FXT_READ_END ? "record of an undefined type"
					    : fxt_reader_error(v->r)->msg);
		return rc;
	}
	if (rec->type == FXT_RT_THREAD ? rebinds(v, p) : rec->type != FXT_RT_EVENT)
		v->gen++;	/* a string or thread record may have changed the tables */
	else if (rec->type == FXT_RT_EVENT && v->known &&
		 rec->u.event.event_type == FXT_ET_DURATION_COMPLETE && rec->words == 3)
		/* header, start, end: no inline reference, no argument */
		*(struct known *)known_slot(v, p[0]) = (struct known){ p[0], v->gen };
	return rc;
}

/* Whether a record stamped `stamp` is left out: after the cutoff, or (complete: a duration
 * complete event) the snapshot cut's end. */
static int left_out(const struct fxt_vet *v, uint64_t cutoff, uint64_t stamp, int complete)
{
	return (cutoff && stamp > cutoff) || (v->skip_end && stamp == v->skip_end && complete);
}

size_t fxt_vet_records(struct fxt_vet *v, uint64_t *p, size_t words, uint64_t offset,
		       uint64_t cutoff, uint64_t *events, size_t *walked)
{
	struct fxt_sweep s = fxt_sweep_over(p, 0, words);
	size_t kept = 0;
	if (!v->known && !v->rested)
		v->known = calloc(KNOWN_SLOTS, sizeof(*v->known));	/* none: slower, as good */
	uint64_t ev = 0;
	char why[200];
	for (size_t n; !v->bad && s.at < words; s.at += n) {
		if (v->known && !cutoff && !v->skip_end && kept == s.at) {
			kept = s.at = known_run(v, p, s.at, words, &ev);
			if (s.at >= words)
				break;
		}
		size_t at = s.at;
		uint64_t off = offset + at * 8, stamp;
		n = fxt_sweep_peek(&s);
		if (!n && walked && s.stop == FXT_SWEEP_NOT_YET)
			break;	/* nothing committed from here */
		const struct known *k = known_slot(v, s.header);
		int rc, event;
		if (n && k->header == s.header && k->gen == v->gen) {
			/* a call of a known header (3 words): only its stamps are new */
			uint64_t start = p[at + 1], end = p[at + 2];
			event = 1;
			stamp = end > start ? end : start;	/* fxt_sweep_stamp() */
			if (left_out(v, cutoff, stamp, 1))
				continue;
			if (end < start) {	/* as the validator says it */
				snprintf(why, sizeof(why),
					 "offset %" PRIu64 ": complete event ends (%" PRIu64
					 ") before it starts (%" PRIu64 ")",
					 offset + kept * 8, end, start);
				fxt_vet_fail(v, why);
				break;
			}
			rc = 0;
		} else {
			unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, s.header);
			if (!provider_type(type)) {
				snprintf(why, sizeof(why),
					 "offset %" PRIu64 ": record type %u in a buffer", off, type);
				fxt_vet_fail(v, why);
				break;
			}
			/* a torn header (n 0) too: the strict reader says why */
			struct fxt_record rec;
			if (decode(v, p + at, n ? n : words - at, off, &rec, why, sizeof(why)) !=
			    FXT_READ_RECORD) {
				fxt_vet_fail(v, why);
				break;
			}
			event = type == FXT_RT_EVENT;
			stamp = fxt_sweep_stamp(&s, n);
			if (left_out(v, cutoff, stamp,
				     event && rec.u.event.event_type == FXT_ET_DURATION_COMPLETE))
				continue;	/* left out: never fed to the validator */
			rec.offset = offset + kept * 8;
			rc = fxt_validator_add(v->val, &rec);
		}
		if (stamp > v->last_stamp)
			v->last_stamp = stamp;
		if (rc < 0) {
			snprintf(why, sizeof(why), "offset %" PRIu64 ": %s", offset + kept * 8,
				 rc == -EBADMSG ? fxt_validator_problem(v->val)->msg
						: "out of memory");
			fxt_vet_fail(v, why);
			break;
		}
		ev += (uint64_t)event;
		if (kept != at)
			memmove(p + kept, p + at, n * 8);
		kept += n;
	}
	*events = ev;
	if (walked)
		*walked = s.at < words ? s.at : words;
	return kept;
}

int fxt_vet_finish(struct fxt_vet *v)
{
	if (v->bad)
		return -1;
	int rc = fxt_validator_finish(v->val);
	if (!rc)
		return 0;
	fxt_vet_fail(v, rc == -EBADMSG ? fxt_validator_problem(v->val)->msg : "out of memory");
	return -1;
}

void fxt_vet_rest(struct fxt_vet *v)
{
	free(v->known);
	v->known = NULL;
	v->rested = 1;
}

void fxt_vet_skip_end(struct fxt_vet *v, uint64_t ticks)
{
	v->skip_end = ticks;
}

uint64_t fxt_vet_last_stamp(const struct fxt_vet *v)
{
	return v->last_stamp;
}

uint64_t fxt_vet_decoded(const struct fxt_vet *v)
{
	return v->decoded;
}

const char *fxt_vet_problem(const struct fxt_vet *v)
{
	return v->bad ? v->problem : NULL;
}
