/* libFuzzer entry for the FXT reader, `fxt recover` and fxtrun's vetting of provider data:
 * any bytes read twice, STRICT (+ the validator) and lenient, each record printed to /dev/null;
 * inputs that attach as a standalone archive file (writer/outfile.h) are also recovered in a
 * copy (the finish walks what a killed process left: it must stay inside the file) and the
 * result read again; the bytes are also vetted as a provider's buffer contents
 * (launcher/manager/vet.c, fxt_vet_records) in an exact-size copy. Oracles: views inside the input (a
 * malloc copy of its exact size, so ASan sees one byte past it), records moving forward, a
 * clean STRICT read reads the same lenient, every "overlaps without nesting" warning backed by
 * a real crossing pair, and what the vet keeps (when it finishes clean) is an archive that
 * `fxt check` accepts. Built only with FXT_FUZZ=ON (tests/fuzz.cmake). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/reader.h"
#include "launcher/manager/vet.h"
#include "writer/outfile.h"
#include "writer/records.h"

static FILE *devnull;
static const char *in_lo, *in_hi; /* the input being read */

/* Every view the reader hands out lies inside the input (or is empty): abort otherwise. */
static void inside(const void *p, uint64_t len)
{
	const char *c = p;
	if (len && (c < in_lo || c > in_hi || len > (uint64_t)(in_hi - c)))
		abort();
}

static void check_views(const struct fxt_record *rec)
{
	for (unsigned i = 0; i < rec->nargs; i++) {
		inside(rec->args[i].name.s, rec->args[i].name.len);
		if (rec->args[i].type == 6)
			inside(rec->args[i].v.str.s, rec->args[i].v.str.len);
	}
	switch (rec->type) {
	case 0:
		if (rec->u.meta.meta_type == 1)
			inside(rec->u.meta.name.s, rec->u.meta.name.len);
		break;
	case 2: inside(rec->u.string.str.s, rec->u.string.str.len); break;
	case 4:
		inside(rec->u.event.category.s, rec->u.event.category.len);
		inside(rec->u.event.name.s, rec->u.event.name.len);
		break;
	case 5:
		inside(rec->u.blob.name.s, rec->u.blob.name.len);
		inside(rec->u.blob.data, rec->u.blob.size);
		break;
	case 6: inside(rec->u.uobj.name.s, rec->u.uobj.name.len); break;
	case 7: inside(rec->u.kobj.name.s, rec->u.kobj.name.len); break;
	case 9: inside(rec->u.log.msg.s, rec->u.log.msg.len); break;
	case 15:
		inside(rec->u.large.category.s, rec->u.large.category.len);
		inside(rec->u.large.name.s, rec->u.large.name.len);
		inside(rec->u.large.data, rec->u.large.size);
		break;
	}
	if (rec->offset + rec->words * 8 > (uint64_t)(in_hi - in_lo))
		abort();
}

/* Soundness of the validator's nesting warning: when it says a complete event overlaps another
 * without nesting, an earlier complete event of the same thread must really cross it. */
struct span {
	uint32_t provider;
	uint64_t pid, tid, s, e;
};
static struct span spans[1 << 12];
static size_t nspans;

static void check_overlap_claim(const struct fxt_record *rec, uint64_t warnings_before,
				struct fxt_validator *v)
{
	uint64_t s = rec->u.event.ts, e = rec->u.event.end_ts;
	const struct fxt_read_error *w = fxt_validator_warning(v);
	if (fxt_validator_summary(v)->warnings > warnings_before) {
		if (!w || w->offset != rec->offset || !strstr(w->msg, "overlaps"))
			abort(); /* the only warning, at the record that raised it */
		int found = 0;
		for (size_t i = 0; i < nspans && !found; i++) {
			const struct span *a = &spans[i];
			found = a->provider == rec->provider_id && a->pid == rec->u.event.thread.pid &&
				a->tid == rec->u.event.thread.tid && a->e > s && a->s < e &&
				!(a->s >= s && a->e <= e) && !(a->s <= s && a->e >= e);
		}
		if (!found)
			abort();
	}
	if (nspans < sizeof(spans) / sizeof(spans[0]))
		spans[nspans++] = (struct span){ rec->provider_id, rec->u.event.thread.pid,
						 rec->u.event.thread.tid, s, e };
}

/* What one pass gave. */
struct pass {
	int result;
	uint64_t delivered, fixes;
};

static struct pass read_all(const void *data, size_t size, unsigned flags)
{
	struct pass p = { -99, 0, 0 };
	struct fxt_reader *r;
	struct fxt_validator *v = NULL;
	struct fxt_record rec;
	uint64_t next_offset = 0;
	if (fxt_reader_open_mem(&r, data, size, flags) < 0)
		abort();
	if ((flags & FXT_READER_STRICT) && fxt_validator_new(&v) < 0)
		v = NULL;
	nspans = 0;
	while ((p.result = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (rec.words == 0 || rec.offset < next_offset)
			abort(); /* records move forward, never overlap */
		next_offset = rec.offset + rec.words * 8;
		p.delivered++;
		check_views(&rec);
		fxt_record_print(devnull, &rec);
		fxt_reader_ticks_to_ns(r, rec.u.event.ts);
		uint64_t mono;
		fxt_reader_mono_ns(r, rec.u.event.ts, &mono);
		fxt_reader_provider_name(r, rec.provider_id);
		if (v) {
			uint64_t before = fxt_validator_summary(v)->warnings;
			int err = fxt_validator_add(v, &rec);
			if (rec.type == 4 && rec.u.event.event_type == 4 && err != -EBADMSG)
				check_overlap_claim(&rec, before, v);
			else if (fxt_validator_summary(v)->warnings != before)
				abort(); /* only complete events warn */
		}
	}
	const struct fxt_reader_stats *st = fxt_reader_stats(r);
	if (fxt_reader_next(r, &rec) != p.result)
		abort(); /* the final result sticks */
	if (p.result == FXT_READ_END && st->bytes != size)
		abort(); /* a clean end consumed every byte */
	p.fixes = st->lenient_fixes;
	if (v) {
		fxt_validator_finish(v);
		fxt_validator_summary(v);
		fxt_validator_free(v);
	}
	fxt_reader_close(r);
	return p;
}

/* fxt recover on a copy: attach, seal what fits in the file, read the result. */
static void recover(const uint8_t *data, size_t size)
{
	if (size < 4096)
		return;
	size_t room = (size + 63) & ~(size_t)63;
	uint8_t *m = aligned_alloc(64, room);
	if (!m)
		abort();
	memcpy(m, data, size);
	memset(m + size, 0, room - size);
	struct fxt_buf b;
	struct fxt_outfile o;
	if (fxt_outfile_attach(&b, &o, m, size) == 0) {
		const struct fxt_buf_hdr *h = b.hdr;
		uint64_t fit = size > h->chunks_off ? (size - h->chunks_off) / h->chunk_size : 0;
		uint64_t chunks = h->next_chunk < fit ? h->next_chunk : fit;
		b.hdr->open_overflow = 1;	/* as fxt recover: every chunk */
		uint64_t end = fxt_outfile_seal(&b, chunks, 0, 1, 0);
		if (end > size)
			abort();
		in_lo = (const char *)m;
		in_hi = in_lo + end;
		read_all(m, end, FXT_READER_STRICT);
	}
	free(m);
}

/* What `fxt check` says of an archive (STRICT reader and validator): 0 valid. */
static int check_archive(const uint64_t *w, size_t words)
{
	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	int res, err = 0;
	if (fxt_reader_open_mem(&r, w, words * 8, FXT_READER_STRICT) < 0)
		abort();
	if (fxt_validator_new(&v) < 0)
		abort();
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD && !err)
		err = fxt_validator_add(v, &rec);
	if (!err && res == FXT_READ_END)
		err = fxt_validator_finish(v);
	fxt_validator_free(v);
	fxt_reader_close(r);
	return res == FXT_READ_END ? err : res;
}

/* fxtrun's vet (launcher/manager/vet.c) on the bytes as one provider's buffer contents (past the
 * leading metadata and initialization records of an archive seed, which only the manager
 * writes), in an exact-size copy (it compacts in place), in two calls split at a word the input
 * picks, with a cutoff the input picks. What it keeps must pass `fxt check` in the archive the
 * saver (launcher/manager/saver.c) makes of it: magic number, provider info, the records kept, and when
 * the vet found a problem, the "buffer full" provider event that excuses unpaired records. */
static void vet(const uint8_t *data, size_t size)
{
	size_t words = size / 8, skip = 0;
	uint64_t h;
	while (skip < words) {
		memcpy(&h, data + skip * 8, 8);
		uint64_t n = (h >> 4) & 0xfff;
		if ((h & 15) > 1 || !n || n > words - skip)
			break;
		skip += n;
	}
	data += skip * 8;
	size -= skip * 8;
	words -= skip;
	if (!words)
		return;
	uint64_t *p = malloc(words * 8);
	if (!p)
		abort();
	memcpy(p, data, words * 8);
	uint64_t cutoff = data[size - 1] & 1 ? (uint64_t)data[0] << 4 : 0;
	size_t split = data[size - 1] >> 1;
	if (split > words)
		split = words;
	struct fxt_vet *v = fxt_vet_new(7);
	if (!v)
		abort();
	uint64_t ev1 = 0, ev2 = 0;
	size_t kept = fxt_vet_records(v, p, split, 4096, cutoff, &ev1, NULL);
	if (kept > split)
		abort();
	size_t kept2 = 0;
	if (!fxt_vet_problem(v)) { /* the rest as the next piece, at its archive offset */
		kept2 = fxt_vet_records(v, p + split, words - split, 4096 + kept * 8, cutoff, &ev2,
					NULL);
		if (kept2 > words - split)
			abort();
		if (kept2)
			memmove(p + kept, p + split, kept2 * 8);
	} else if (fxt_vet_records(v, p + split, words - split, 4096 + kept * 8, cutoff, &ev2,
				   NULL) ||
		   !fxt_vet_problem(v)) {
		abort(); /* a bad record ends the provider's data: later calls keep nothing */
	}
	int clean = fxt_vet_finish(v) == 0;
	if (clean != !fxt_vet_problem(v))
		abort();
	size_t n = kept + kept2;
	uint64_t *a = malloc((n + 8) * 8);
	if (!a)
		abort();
	size_t at = (size_t)fxt_magic_write(a);
	at += (size_t)fxt_provider_info_write(a + at, 7, "", 0);
	memcpy(a + at, p, n * 8);
	at += n;
	if (!clean)
		at += (size_t)fxt_provider_event_write(a + at, 7, FXT_PE_BUFFER_OVERFLOW);
	if (check_archive(a, at) != 0)
		abort(); /* the vet let through what fxt check refuses */
	free(a);
	fxt_vet_free(v);
	free(p);
}

__attribute__((visibility("default"))) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	void *copy = malloc(size ? size : 1);
	if (!copy || ((uintptr_t)copy & 7))
		abort();
	memcpy(copy, data, size);
	in_lo = copy;
	in_hi = in_lo + size;
	struct pass strict = read_all(copy, size, FXT_READER_STRICT);
	struct pass lenient = read_all(copy, size, 0);
	/* What STRICT reads to the end, lenient reads the same way, with nothing to fix. */
	if (strict.result == FXT_READ_END &&
	    (lenient.result != FXT_READ_END || lenient.delivered != strict.delivered || lenient.fixes))
		abort();
	free(copy);
	recover(data, size);
	vet(data, size);
	return 0;
}
