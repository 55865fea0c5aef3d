/* Claims about the trace buffer (writer/buffer.h) and the standalone archive file
 * (writer/outfile.h): layout and attach validation, the durable area filling up (counted,
 * never silent), chunks that become plain FXT when left, a killed run's file recovered, and a
 * finished file that the strict reader and the validator accept with every event and the
 * dropped-records count. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fxt/reader.h"
#include "writer/outfile.h"
#include "writer/records.h"
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

/* Reads a file image back with the project's reader (strict) and its validator: the events
 * named "work" on thread 7/8 lasting 10 ticks, the drop count, ticks per second and the name. */
static void read_back(const void *mem, size_t bytes, int want_events, uint64_t want_dropped)
{
	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	int events = 0, named = 0, rc, bad = 0, clocks = 0;
	uint64_t tps = 0, dropped = 0, n, mono = 0;
	struct fxt_clock c = { 0 };
	ok(fxt_reader_open_mem(&r, mem, bytes, FXT_READER_STRICT) == 0 &&
		   fxt_validator_new(&v) == 0, "the reader opens it");
	while ((rc = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		bad |= fxt_validator_add(v, &rec) != 0;
		if (rec.type == FXT_RT_INITIALIZATION)
			tps = rec.u.init.ticks_per_second;
		clocks += fxt_record_clock(&rec, &c);
		if (fxt_record_dropped(&rec, &n))
			dropped += n;
		else if (rec.type == FXT_RT_EVENT) {
			events++;
			named += rec.u.event.name.len == 4 && !memcmp(rec.u.event.name.s, "work", 4) &&
				 rec.u.event.thread.pid == 7 && rec.u.event.thread.tid == 8 &&
				 rec.u.event.end_ts == rec.u.event.ts + 10;
		}
	}
	bad |= fxt_validator_finish(v) != 0;
	ok(clocks == 1 && c.start_ticks == 5 && c.start_ns == 6 && c.end_ticks == 3005 &&
		   c.end_ns == 1000000006,
	   "one clock record: the start pair laid out, the end pair set with the ticks per second");
	ok(fxt_reader_mono_ns(r, 305, &mono) == 1 && mono == 100000006,
	   "ticks convert to CLOCK_MONOTONIC between the two pairs (%llu)", (unsigned long long)mono);
	ok(rc == FXT_READ_END && !bad, "strict reader and validator read it to a clean end (%d: %s)",
	   rc, rc == FXT_READ_END ? "" : fxt_reader_error(r)->msg);
	ok(events == want_events && named == want_events,
	   "it holds %d events named \"work\" on thread 7/8 lasting 10 ticks (%d, %d)", want_events,
	   events, named);
	ok(tps == 3000, "its initialization record carries the ticks per second set last");
	ok(dropped == want_dropped, "it counts %llu dropped records (%llu)",
	   (unsigned long long)want_dropped, (unsigned long long)dropped);
	struct fxt_sv name = fxt_reader_provider_name(r, 7);
	ok(name.len == 4 && !memcmp(name.s, "prog", 4), "provider 7 is named \"prog\"");
	fxt_validator_free(v);
	fxt_reader_close(r);
}

static int back_ok(struct fxt_buf *b, uint64_t end)
{
	(void)b, (void)end;
	return 0;
}

/* Writes string 1 "work" and thread 1 = 7/8 into the durable area. */
static void durable_names(struct fxt_buf *b)
{
	uint64_t *s = fxt_buf_durable_reserve(b, 2);
	memcpy(&s[1], "work\0\0\0", 8);
	fxt_chunk_commit(s, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_STRING) |
				    fxt_field_prep(FXT_RECORD_SIZE, 2) |
				    fxt_field_prep(FXT_STRING_INDEX, 1) | fxt_field_prep(FXT_STRING_LEN, 4));
	uint64_t *t = fxt_buf_durable_reserve(b, 3);
	t[1] = 7;
	t[2] = 8;
	fxt_chunk_commit(t, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_THREAD) |
				    fxt_field_prep(FXT_RECORD_SIZE, 3) | fxt_field_prep(FXT_THREAD_INDEX, 1));
}

static void work_event(struct fxt_chunk_w *w, uint64_t start)
{
	uint64_t *r = fxt_chunk_reserve(w, 3);
	r[1] = start;
	r[2] = start + 10;
	fxt_chunk_commit(r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_EVENT) |
				    fxt_field_prep(FXT_RECORD_SIZE, 3) |
				    fxt_field_prep(FXT_EVENT_TYPE, FXT_ET_DURATION_COMPLETE) |
				    fxt_field_prep(FXT_EVENT_THREAD_REF, 1) |
				    fxt_field_prep(FXT_EVENT_NAME_REF, 1));
}

/* The standalone archive file (writer/outfile.h): a prologue of plain FXT, chunks that become
 * plain FXT when left, and a finish (or, after a kill, attach + seal) that makes the whole image
 * a valid archive. */
static void test_outfile(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 1024 + 8 * CHUNK;
	uint8_t *mem = new_mem(size);
	struct fxt_buf b;
	struct fxt_outfile o;
	struct fxt_chunk_w w1, w2;
	ok(fxt_outfile_init(&b, &o, mem, size, 1024, CHUNK, 7, "prog", 1000,
				    (struct fxt_clock_pair){ 5, 6 }) == 0,
	   "a standalone file is laid out");
	o.back = back_ok;
	ok(b.hdr == (void *)(mem + FXT_OUTFILE_HDR_OFF) && b.hdr->chunks_off == FXT_BUF_HDR_SIZE + 1024,
	   "the buffer header sits in the prologue, the chunks after the durable area");
	durable_names(&b);
	fxt_chunk_init(&w1, &b, NULL);
	fxt_chunk_init(&w2, &b, NULL);
	for (int i = 0; i < 30; i++)	/* 30 3-word events: w1 fills a 64-word chunk, takes a 2nd */
		work_event(&w1, 100 + 20 * (uint64_t)i);
	work_event(&w2, 5000);
	const uint64_t *c0 = (const uint64_t *)(mem + b.hdr->chunks_off);
	uint64_t section;
	fxt_provider_section_write(&section, 7);
	ok(c0[0] == section, "a chunk its writer left is plain FXT at once: word 0 a provider section");
	ok(b.hdr->next_chunk == 3, "three chunks were taken, in file order");
	fxt_outfile_set_tps(&b, 3000, &(struct fxt_clock_pair){ 3005, 1000000006 });

	/* A kill now: the file image as it is; recovery attaches and seals a copy of it. */
	uint8_t *killed = new_mem(size);
	memcpy(killed, mem, size);
	struct fxt_buf kb;
	struct fxt_outfile ko;
	ok(fxt_outfile_attach(&kb, &ko, killed, size) == 0, "a killed run's file attaches");
	kb.hdr->open_overflow = 1;	/* as fxt recover: every chunk */
	uint64_t kend = fxt_outfile_seal(&kb, kb.hdr->next_chunk, 0, 1, 0);
	ok(kend == FXT_BUF_HDR_SIZE + 1024 + 3 * CHUNK, "recovery cuts the file after the last chunk taken");
	read_back(killed, kend, 31, 0);

	/* Killed with a string-area reservation never written (a hole) and drops counted: the
	 * trailer recovery writes after the hole is kept whole, not read as hole words. */
	memcpy(killed, mem, size);
	ok(fxt_outfile_attach(&kb, &ko, killed, size) == 0, "the same file, killed again, attaches");
	kb.hdr->open_overflow = 1;
	ok(fxt_buf_durable_reserve(&kb, 5) != NULL, "a reservation the kill left unwritten");
	fxt_buf_count_drops(&kb, 4);
	fxt_buf_drop_reason(&kb, FXT_DROP_KILLED);
	kend = fxt_outfile_seal(&kb, kb.hdr->next_chunk, 0, 1, 0);
	read_back(killed, kend, 31, 4);
	free(killed);

	/* Exit: a stop time before w2's event, two drops counted; finish as the exit flush. */
	fxt_buf_count_drops(&b, 2);
	fxt_buf_drop_reason(&b, FXT_DROP_NO_SPACE);
	fxt_outfile_stop(&b);
	uint64_t end = fxt_outfile_seal(&b, b.hdr->next_chunk, 4000, 4000, 1);
	read_back(mem, end, 30, 2);
	ok(fxt_outfile_attach(&kb, &ko, mem, end) == 0, "a finished file attaches (recovering twice is harmless)");
	free(mem);
}

/* The words a summary gives for each drop reason, none "unknown" (a kernel ring's lost context
 * switches were counted with no reason: "records dropped (unknown)"). */
static void test_drop_words(void)
{
	char why[256];
	for (uint32_t bit = FXT_DROP_FULL; bit <= FXT_DROP_MANAGER_KILLED; bit <<= 1) {
		fxt_drop_reasons_str(bit, why, sizeof(why));
		ok(strcmp(why, "unknown") != 0, "drop reason bit %#x has words", bit);
	}
	fxt_drop_reasons_str(FXT_DROP_SWITCHES, why, sizeof(why));
	ok(!strcmp(why, "context switches lost: the kernel's ring overflowed"),
	   "lost context switches say so");
}

int main(void)
{
	test_drop_words();
	test_layout();
	test_durable_full();
	test_outfile();
	return done();
}
