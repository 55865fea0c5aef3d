/* A repaired archive made one that `fxt check` accepts (launcher/recover/verify.c), for
 * recover.c. Works on the caller's words only; not thread-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_RECOVER_VERIFY_H
#define FXT_LAUNCHER_RECOVER_VERIFY_H

#include <stdint.h>

#include "fxt/reader.h"
#include "writer/buffer.h"

/* What fxt_recover_verify replaced or cut. */
struct fxt_recover_cut {
	uint64_t padded, padded_bytes;	/* places replaced by padding, and their bytes */
	uint64_t cut_at, cut_bytes;	/* where the archive was last cut, and the bytes cut */
	struct fxt_read_error first;	/* the first problem found */
};

/* Makes the repaired archive words[0, *end) (header h: where its chunks are) one that
 * `fxt check` accepts (launcher/recover/verify.c): each record it rejects becomes padding
 * (in a chunk, up to the chunk's end), or the archive is cut (*end lowered) where a record's
 * size cannot be trusted. *cut says what was done. Returns 0 (valid now), 1 (its first record
 * is bad: not an archive) or -ENOMEM. */
int fxt_recover_verify(uint64_t *words, uint64_t *end, const struct fxt_buf_hdr *h,
		       uint32_t provider_id, struct fxt_recover_cut *cut);

#endif
