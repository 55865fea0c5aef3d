/* Reads back an archive a unit test made: the strict reader and the validator must both accept
 * it; counts its events, and those of one name. Header-only, for the manager's unit tests. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_TESTS_ARCHIVE_H
#define FXT_TESTS_ARCHIVE_H
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt/reader.h"
#include "writer/fields.h"

/* Events in the archive of fd (and in *named those called `name`, when given), or -1 when the
 * strict reader or the validator refuse it. */
__attribute__((unused)) static long archive_events(int fd, const char *name, long *named)
{
	off_t len = lseek(fd, 0, SEEK_END);
	uint64_t *a = len > 0 ? malloc((size_t)len) : NULL;
	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	long events = -1;
	if (named)
		*named = 0;
	if (a && pread(fd, a, (size_t)len, 0) == len &&
	    !fxt_reader_open_mem(&r, a, (size_t)len, FXT_READER_STRICT)) {
		int rc = 0, got;
		if (fxt_validator_new(&v) == 0) {
			while ((got = fxt_reader_next(r, &rec)) == FXT_READ_RECORD && !rc) {
				rc = fxt_validator_add(v, &rec);
				if (named && name && rec.type == FXT_RT_EVENT &&
				    rec.u.event.name.len == strlen(name) &&
				    !memcmp(rec.u.event.name.s, name, strlen(name)))
					(*named)++;
			}
			if (got == FXT_READ_END && !rc && !fxt_validator_finish(v))
				events = (long)fxt_validator_summary(v)->events;
			fxt_validator_free(v);
		}
		fxt_reader_close(r);
	}
	free(a);
	return events;
}
#endif
