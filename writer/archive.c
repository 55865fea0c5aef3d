/* Walking records in a buffer's areas: the valid prefix of a run of records (up to the first
 * zero, size-0 or overrunning header) and whether a record was stamped after a stop time. Used
 * by the standalone file's finish, the manager's vetting and a fork child's string copy. No I/O,
 * no malloc: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/archive.h"

#include <errno.h>
#include <string.h>

#include "writer/fields.h"
#include "writer/records.h"

/* Words of the committed record at p[0] (at most `room`), or 0 when there is none. */
static uint64_t record_words(const uint64_t *p, size_t room)
{
	uint64_t n = fxt_record_words(__atomic_load_n(p, __ATOMIC_ACQUIRE));
	return n <= room ? n : 0;
}

size_t fxt_archive_valid_prefix(const uint64_t *p, size_t words)
{
	size_t at = 0;
	for (uint64_t n; at < words && (n = record_words(p + at, words - at)); at += n)
		;
	return at * 8;
}

uint64_t fxt_archive_stamp(const uint64_t *p, uint64_t n)
{
	unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, p[0]);
	if ((type != FXT_RT_EVENT && type != FXT_RT_LOG) || n < 2)
		return 0;
	if (type == FXT_RT_EVENT && n >= 3 &&
	    fxt_field_get(FXT_EVENT_TYPE, p[0]) == FXT_ET_DURATION_COMPLETE && p[n - 1] > p[1])
		return p[n - 1];
	return p[1];
}

int fxt_archive_after(const uint64_t *p, uint64_t n, uint64_t cutoff)
{
	return fxt_archive_stamp(p, n) > cutoff;
}
