/* Claims about the trace buffer (writer/buffer.h) and archive assembly (writer/archive.h):
 * layout and attach validation, the durable area filling up (counted, never silent), and the
 * archive built from a buffer: magic, provider info/section, initialization, durable records,
 * chunks in order up to their first zero word, and the buffer-full event when records dropped. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fxt/reader.h"
#include "writer/archive.h"
#include "writer/chunk.h"
#include "writer/fields.h"

#define CHUNK 512u

static void *new_mem(size_t size)
{
	void *m = aligned_alloc(64, size);
	memset(m, 0, size);
	return m;
}

static void test_layout(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 4096 + 8 * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b, a;
	ok(fxt_buf_init(&b, mem, FXT_BUF_HDR_SIZE + 4096 + CHUNK, 4096, CHUNK, FXT_BUF_ONESHOT, 7) ==
		   -EINVAL, "a buffer without room for two chunks is refused");
	ok(fxt_buf_init(&b, mem, size, 4096, 100, FXT_BUF_ONESHOT, 7) == -EINVAL,
	   "a chunk size below the minimum is refused");
	ok(fxt_buf_init(&b, mem, size, 4096, CHUNK, (enum fxt_buf_mode)7, 7) == -EINVAL,
	   "an unknown mode is refused");
	ok(fxt_buf_init(&b, mem, size, 4096, CHUNK, FXT_BUF_ONESHOT, 7) == 0, "a valid layout is accepted");
	ok(b.hdr->magic == FXT_BUF_MAGIC && b.hdr->version == FXT_BUF_VERSION && b.hdr->pid == 7,
	   "the header carries magic, layout version and pid");
	ok(b.hdr->chunks_off == FXT_BUF_HDR_SIZE + 4096 && b.hdr->nchunks == 8,
	   "chunks follow the durable area and fill the rest");
	ok(fxt_buf_attach(&a, mem, size) == 0 && a.hdr == b.hdr, "a second mapping attaches to it");
	ok(fxt_buf_attach(&a, mem, size - CHUNK) == -EINVAL,
	   "attaching through a mapping shorter than the buffer fails");
	b.hdr->version = 99;
	ok(fxt_buf_attach(&a, mem, size) == -EPROTONOSUPPORT, "another layout version is refused");
	b.hdr->version = FXT_BUF_VERSION;
	b.hdr->magic = 0;
	ok(fxt_buf_attach(&a, mem, size) == -EINVAL, "memory without the magic is not a buffer");
	free(mem);
}

static void test_durable_full(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 64 + 2 * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b;
	fxt_buf_init(&b, mem, size, 64, CHUNK, FXT_BUF_ONESHOT, 1);
	ok(fxt_buf_durable_reserve(&b, 5) != NULL, "5 words fit in an 8-word durable area");
	ok(fxt_buf_durable_reserve(&b, 4) == NULL, "4 more words do not");
	ok(atomic_load(&b.hdr->state) == FXT_BUF_DURABLE_FULL && atomic_load(&b.hdr->dropped) == 1,
	   "a full durable area is flagged and counted as a drop");
	ok(fxt_buf_durable_reserve(&b, 1) == NULL, "nothing is reserved after the durable area filled");
	free(mem);
}

/* Collects the archive in memory. */
struct sink {
	uint64_t w[4096];
	size_t n;
};

static int collect(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;
	if (s->n + len / 8 > 4096)
		return -ENOSPC;
	memcpy(s->w + s->n, data, len);
	s->n += len / 8;
	return 0;
}

/* Reads an assembled archive back with the project's reader, strictly. */
static void read_back(const struct sink *s, int want_events, int want_overflow)
{
	struct fxt_reader *r;
	struct fxt_record rec;
	int events = 0, named = 0, overflow = 0, rc;
	uint64_t tps = 0;
	ok(fxt_reader_open_mem(&r, s->w, s->n * 8, FXT_READER_STRICT) == 0, "the reader opens it");
	while ((rc = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (rec.type == FXT_RT_INITIALIZATION)
			tps = rec.u.init.ticks_per_second;
		if (rec.type == FXT_RT_EVENT) {
			events++;
			named += rec.u.event.name.len == 4 && !memcmp(rec.u.event.name.s, "work", 4) &&
				 rec.u.event.thread.pid == 7 && rec.u.event.thread.tid == 8 &&
				 rec.u.event.end_ts == rec.u.event.ts + 10;
		}
		if (rec.type == FXT_RT_METADATA && rec.u.meta.meta_type == FXT_MT_PROVIDER_EVENT)
			overflow = rec.u.meta.event_id == FXT_PE_BUFFER_OVERFLOW;
	}
	ok(rc == FXT_READ_END, "the strict reader reads it to a clean end (%d: %s)", rc,
	   rc == FXT_READ_END ? "" : fxt_reader_error(r)->msg);
	ok(events == want_events && named == want_events,
	   "it reads %d events named \"work\" on thread 7/8 lasting 10 ticks (%d, %d)", want_events,
	   events, named);
	ok(tps == 3000, "the reader sees 3000 ticks per second");
	ok(overflow == want_overflow, "a buffer-full event is there exactly when records dropped");
	struct fxt_sv name = fxt_reader_provider_name(r, 99);
	ok(name.len == 4 && !memcmp(name.s, "prog", 4), "provider 99 is named \"prog\"");
	fxt_reader_close(r);
}

static int fail_emit(void *ctx, const void *data, size_t len)
{
	(void)ctx, (void)data, (void)len;
	return -EIO;
}

static void test_archive(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 1024 + 4 * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b;
	struct fxt_chunk_w w;
	fxt_buf_init(&b, mem, size, 1024, CHUNK, FXT_BUF_ONESHOT, 99);

	/* durable: string 1 = "work" */
	uint64_t *s = fxt_buf_durable_reserve(&b, 2);
	memcpy(&s[1], "work\0\0\0", 8);
	fxt_chunk_commit(s, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_STRING) |
				    fxt_field_prep(FXT_RECORD_SIZE, 2) |
				    fxt_field_prep(FXT_STRING_INDEX, 1) | fxt_field_prep(FXT_STRING_LEN, 4));
	/* durable: thread 1 = pid 7, tid 8 */
	uint64_t *t = fxt_buf_durable_reserve(&b, 3);
	t[1] = 7;
	t[2] = 8;
	fxt_chunk_commit(t, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_THREAD) |
				    fxt_field_prep(FXT_RECORD_SIZE, 3) | fxt_field_prep(FXT_THREAD_INDEX, 1));
	/* a reserved but never committed durable record: the archive stops before it */
	fxt_buf_durable_reserve(&b, 2);

	uint64_t ev = fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_EVENT) |
		      fxt_field_prep(FXT_RECORD_SIZE, 3) |
		      fxt_field_prep(FXT_EVENT_TYPE, FXT_ET_DURATION_COMPLETE) |
		      fxt_field_prep(FXT_EVENT_THREAD_REF, 1) | fxt_field_prep(FXT_EVENT_NAME_REF, 1);
	fxt_chunk_init(&w, &b, NULL);
	for (int i = 0; i < 2; i++) {
		uint64_t *r = fxt_chunk_reserve(&w, 3);
		r[1] = 10 + (uint64_t)i;
		r[2] = 20 + (uint64_t)i;
		fxt_chunk_commit(r, ev);
	}
	fxt_chunk_reserve(&w, 3); /* reserved, never committed: cut */

	struct sink out = { .n = 0 };
	struct fxt_archive_info info = { .with_magic = 1, .provider_id = 99,
					 .provider_name = "prog", .ticks_per_second = 3000 };
	ok(fxt_archive_write(&b, &info, collect, &out) == 0, "an archive is assembled");
	ok(out.n == 1 + 2 + 1 + 2 + 2 + 3 + 6,
	   "it has magic, info, section, init, a string, a thread, two events (%zu words)", out.n);
	ok(out.w[0] == FXT_MAGIC_RECORD, "it starts with the magic number record");
	ok(fxt_field_get(FXT_META_TYPE, out.w[1]) == FXT_MT_PROVIDER_INFO &&
		   fxt_field_get(FXT_META_PROVIDER_ID, out.w[1]) == 99 &&
		   fxt_field_get(FXT_META_NAME_LEN, out.w[1]) == 4 && memcmp(&out.w[2], "prog", 4) == 0,
	   "provider info names provider 99 \"prog\"");
	ok(fxt_field_get(FXT_META_TYPE, out.w[3]) == FXT_MT_PROVIDER_SECTION,
	   "the provider section follows");
	ok(fxt_field_get(FXT_RECORD_TYPE, out.w[4]) == FXT_RT_INITIALIZATION && out.w[5] == 3000,
	   "the initialization record carries the ticks per second");
	ok(fxt_field_get(FXT_RECORD_TYPE, out.w[6]) == FXT_RT_STRING &&
		   fxt_field_get(FXT_RECORD_TYPE, out.w[8]) == FXT_RT_THREAD,
	   "durable records come next");
	ok(out.w[11] == ev && out.w[12] == 10 && out.w[14] == ev && out.w[16] == 21,
	   "then the chunk's committed events, in order");
	read_back(&out, 2, 0);

	/* A stop time between the two events: the later one was written after the stop. */
	b.hdr->stop_ticks = 20;
	out.n = 0;
	ok(fxt_archive_write(&b, &info, collect, &out) == 0 && out.n == 17 - 3 &&
		   out.w[11] == ev && out.w[13] == 20,
	   "an event ending after the buffer's stop time is left out, the one before kept");
	b.hdr->stop_ticks = 0;

	/* Exhaust the chunks: the archive then ends with the buffer-full event. */
	while (!w.exhausted)
		fxt_chunk_reserve(&w, 3);
	fxt_chunk_flush(&w);
	out.n = 0;
	info.with_magic = 0;
	ok(fxt_archive_write(&b, &info, collect, &out) == 0, "an archive of a full buffer is assembled");
	ok(out.w[0] != FXT_MAGIC_RECORD, "without with_magic no magic record is written");
	uint64_t last = out.w[out.n - 1];
	ok(fxt_field_get(FXT_RECORD_TYPE, last) == FXT_RT_METADATA &&
		   fxt_field_get(FXT_META_TYPE, last) == FXT_MT_PROVIDER_EVENT &&
		   fxt_field_get(FXT_META_EVENT_ID, last) == FXT_PE_BUFFER_OVERFLOW,
	   "dropped records end the provider's records with a buffer-full event");
	info.with_magic = 1;
	out.n = 0;
	fxt_archive_write(&b, &info, collect, &out);
	read_back(&out, 2, 1);
	ok(fxt_archive_write(&b, &info, fail_emit, NULL) == -EIO, "an emit error stops the assembly");
	free(mem);
}

int main(void)
{
	test_layout();
	test_durable_full();
	test_archive();
	return done();
}
