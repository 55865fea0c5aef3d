/* What `fxt recover` wrote, checked as `fxt check` checks it (launcher/recover/recover.h): the strict
 * reader (reserved types refused) and the validator over the repaired archive. A record they
 * reject in a chunk is replaced by padding up to its chunk's end (the records after it in that
 * chunk cannot be trusted: a wrong size puts the next header anywhere; the next chunk starts
 * afresh); one in the area before the chunks by padding of its size; where that size cannot
 * be trusted (zero, or running past the end) the archive is cut there. Again until it is
 * valid: at most MAX_PADDED places are padded, then the archive is cut at the next problem.
 * Works on the caller's mapping; no output. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "fxt/reader.h"
#include "launcher/recover/verify.h"
#include "writer/outfile.h"
#include "writer/records.h"

#define MAX_PADDED 64

/* 0: words[0, end) is a valid archive; 1: not (*e: the first problem); -ENOMEM. */
static int check(const uint64_t *words, uint64_t end, struct fxt_read_error *e)
{
	struct fxt_reader *r;
	struct fxt_validator *v = NULL;
	if (fxt_reader_open_mem(&r, words, end, FXT_READER_STRICT | FXT_READER_RESERVED) < 0 ||
	    fxt_validator_new(&v) < 0) {
		fxt_reader_close(r);
		return -ENOMEM;
	}
	struct fxt_record rec;
	int res, err = 0;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD && !err)
		err = fxt_validator_add(v, &rec);
	if (res == FXT_READ_TRUNCATED || res == FXT_READ_CORRUPT) {
		*e = *fxt_reader_error(r);
		err = -EBADMSG;
	} else if (!err && (err = fxt_validator_finish(v)) == -EBADMSG) {
		*e = *fxt_validator_problem(v);
	} else if (err == -EBADMSG) {
		*e = *fxt_validator_problem(v);
	}
	fxt_validator_free(v);
	fxt_reader_close(r);
	return err == -EBADMSG ? 1 : err;
}

int fxt_recover_verify(uint64_t *words, uint64_t *end, const struct fxt_buf_hdr *h,
		       uint32_t provider_id, struct fxt_recover_cut *cut)
{
	*cut = (struct fxt_recover_cut){ 0 };
	struct fxt_read_error e;
	int rc;
	while ((rc = check(words, *end, &e)) == 1) {
		if (!cut->padded && !cut->cut_at)
			cut->first = e;
		uint64_t at = e.offset & ~7ULL;
		uint64_t n = at < *end ? fxt_record_words(words[at / 8]) : 0;
		if (!at)
			return 1;	/* its first record: nothing to keep */
		if (at >= h->chunks_off && h->chunk_size) {
			uint64_t stop = at - (at - h->chunks_off) % h->chunk_size + h->chunk_size;
			n = ((stop < *end ? stop : *end) - at) / 8;
		}
		if (n && at + n * 8 <= *end && cut->padded < MAX_PADDED) {
			fxt_outfile_pad(&words[at / 8], (size_t)n, provider_id, 0);
			cut->padded++;
			cut->padded_bytes += n * 8;
		} else {
			cut->cut_bytes += *end - at;
			cut->cut_at = at;
			*end = at;
		}
	}
	return rc;
}
