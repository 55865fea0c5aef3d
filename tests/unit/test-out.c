/* Unit test of the manager's archive writer (launcher/manager/out.c): appends going twice round the ring
 * of buffers and through the writer thread land in the file in order; a patch reaches bytes still buffered, bytes the
 * writer has and bytes already written; an emit larger than half a buffer comes after what was
 * appended before it; a write error is kept and returned. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "launcher/manager/out.h"

#define WORDS ((4u * FXT_OUT_BUFS + 3u) * FXT_OUT_BUF / 16u)	/* the ring twice and more, in words */

static void test_order(void)
{
	struct fxt_out *o = calloc(1, sizeof(*o));
	FILE *f = tmpfile();
	uint64_t *big = malloc(FXT_OUT_BUF);
	if (!ok(o && f && big && fxt_out_start(o, fileno(f)) == 0, "started")) {
		if (o && f)
			fxt_out_end(o);
		free(o);
		free(big);
		return;
	}
	uint64_t next = 1;	/* word i of the file (after the magic) holds i + 1 */
	for (size_t step = 1; next <= WORDS; step = step % 700 + 1) {
		uint64_t *dst = fxt_out_reserve(o, step * 8);
		for (size_t i = 0; dst && i < step; i++)
			dst[i] = next + i;
		if (!dst)
			break;
		fxt_out_commit(o, step * 8);
		next += step;
	}
	for (size_t i = 0; i < FXT_OUT_BUF / 8; i++)
		big[i] = next + i;
	int rc = fxt_out_emit(o, big, FXT_OUT_BUF);
	next += FXT_OUT_BUF / 8;
	uint64_t tail = next;
	rc |= fxt_out_emit(o, &tail, 8);
	next++;
	rc |= fxt_out_patch(o, 8, 1000001);			/* long written */
	rc |= fxt_out_patch(o, o->bytes - 8, 1000002);	/* still buffered */
	rc |= fxt_out_flush(o);
	fxt_out_end(o);
	ok(rc == 0 && o->bytes == next * 8, "appended %llu bytes", (unsigned long long)o->bytes);
	size_t len = (size_t)(next * 8);
	uint64_t *got = malloc(len);
	int same = got && pread(fileno(f), got, len, 0) == (ssize_t)len &&
		   lseek(fileno(f), 0, SEEK_END) == (off_t)len;
	for (uint64_t i = 1; same && i < next; i++)
		same = got[i] == (i == 1 ? 1000001 : i == next - 1 ? 1000002 : i);
	ok(same, "the file holds every word in order, both patches applied");
	free(got);
	free(big);
	fclose(f);
	free(o);
}

static void test_error(void)
{
	struct fxt_out *o = calloc(1, sizeof(*o));
	char path[] = "/tmp/fxt-test-out.XXXXXX";
	int fd = mkstemp(path), ro = fd >= 0 ? open(path, O_RDONLY) : -1;
	if (fd >= 0) {
		unlink(path);
		close(fd);
	}
	if (!ok(o && ro >= 0, "a read-only descriptor")) {
		free(o);
		return;
	}
	int rc = fxt_out_start(o, ro);	/* the magic is buffered: no error yet */
	static char bytes[FXT_OUT_BUF / 4];
	for (int i = 0; i < 12 && !rc; i++)
		rc = fxt_out_emit(o, bytes, sizeof(bytes));
	int flushed = fxt_out_flush(o);
	fxt_out_end(o);
	ok(flushed == -EBADF && o->err == -EBADF, "the write error returned and kept (%d)", flushed);
	close(ro);
	free(o);
}

int main(void)
{
	test_order();
	test_error();
	return done();
}
