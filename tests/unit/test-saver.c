/* Unit test of the manager's last save of a provider (launcher/manager/saver.c fxt_saver_finish). Over a
 * durable area with a hole (a reservation a killed thread never wrote: exit() ends threads
 * mid-record), then a string record, then a chunk event naming that string: the string after
 * the hole reaches the archive, so the event is saved and the provider's data is not reported
 * corrupt; the hole's words are left out. The clock: a stopped provider's clock record holds
 * its own readings and rate, a killed one's the manager's. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fxt/reader.h"
#include "launcher/manager/saver.h"
#include "writer/chunk.h"
#include "writer/records.h"

#define SIZE (1u << 20)
#define PID 4242u

static void durable_string(struct fxt_buf *b, uint16_t index, const char *s)
{
	uint32_t len = (uint32_t)strlen(s);
	uint64_t *r = fxt_buf_durable_reserve(b, fxt_string_words(s, len));
	if (r)
		fxt_string_write(r, index, s, len);
}

static void test_hole(void)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b;
	if (mem)
		memset(mem, 0, SIZE);	/* as a new buffer file: zero headers are uncommitted */
	if (!ok(mem && fxt_buf_init(&b, mem, SIZE, 64 * 1024, 64 * 1024, FXT_BUF_ONESHOT, PID) == 0,
		"buffer made"))
		return;
	durable_string(&b, 1, "cat");
	ok(fxt_buf_durable_reserve(&b, 3) != NULL, "a reservation left unwritten (the hole)");
	durable_string(&b, 2, "after-the-hole");
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, &b, NULL);
	struct fxt_event e = fxt_ev_complete(fxt_thread_inl(PID, PID), fxt_str_idx(1),
					     fxt_str_idx(2), 100, 200);
	uint64_t *r = fxt_chunk_reserve(&w, fxt_event_words(&e));
	ok(r && fxt_event_write(r, &e) > 0, "an event naming the string after the hole");
	fxt_chunk_flush(&w);
	__atomic_store_n(&b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);

	struct fxt_saved s = { .pid = (int)PID, .ppid = 1, .id = 1, .live = b.hdr };
	struct fxt_out *o = calloc(1, sizeof(*o));	/* not started: no writer to end */
	FILE *f = tmpfile();
	int rc = -1;
	if (o && f && fxt_buf_attach_copy(&s.buf, mem, SIZE, &s.layout) == 0 &&
	    (s.chunks = calloc(s.layout.nchunks + 1, sizeof(*s.chunks))) &&
	    fxt_out_start(o, fileno(f)) == 0)
		rc = fxt_saver_finish(o, &s, 0, &(struct fxt_saver_clock){ { 1, 1 }, { 2, 2 }, 1000000000 });
	ok(rc == 0, "last save done");
	const char *bad = s.vet ? fxt_vet_problem(s.vet) : "no vetting";
	ok(!bad, "provider data not reported corrupt (%s)", bad ? bad : "none");
	ok(s.st.events == 1, "the event saved (%llu events)", (unsigned long long)s.st.events);
	ok(s.durable_saved / 8 == __atomic_load_n(&b.hdr->durable_used, __ATOMIC_RELAXED) / 8,
	   "the whole durable area consumed, hole included");
	if (f)
		fclose(f);
	fxt_vet_free(s.vet);
	free(s.chunks);
	free(s.koids);
	if (o)
		fxt_out_end(o);
	free(o);
	free(mem);
}

/* The clock and initialization records of a provider whose header holds start, end and tps,
 * in state `state`, finished with the manager's readings c: *got receives them. */
static void clock_saved(uint32_t state, const struct fxt_saver_clock *c, struct fxt_clock *got,
			uint64_t *tps)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b;
	struct fxt_saved s = { .pid = (int)PID, .ppid = 1, .id = 1 };
	struct fxt_out *o = calloc(1, sizeof(*o));	/* not started: no writer to end */
	FILE *f = tmpfile();
	int rc = -1;
	memset(got, 0, sizeof(*got));
	*tps = 0;
	if (mem && o && f) {
		memset(mem, 0, SIZE);
		fxt_buf_init(&b, mem, SIZE, 64 * 1024, 64 * 1024, FXT_BUF_ONESHOT, PID);
		durable_string(&b, 1, "cat");
		b.hdr->clock_start = (struct fxt_clock_pair){ 100, 1000 };
		b.hdr->clock_end = (struct fxt_clock_pair){ 3100, 2000 };
		b.hdr->ticks_per_second = 3000000000;
		b.hdr->state = state;
		s.live = b.hdr;
		if (fxt_buf_attach_copy(&s.buf, mem, SIZE, &s.layout) == 0 &&
		    (s.chunks = calloc(s.layout.nchunks + 1, sizeof(*s.chunks))) &&
		    fxt_out_start(o, fileno(f)) == 0 && fxt_saver_save(o, &s, 0, c) == 0)
			rc = fxt_saver_finish(o, &s, 0, c);
	}
	struct fxt_reader *r;
	struct fxt_record rec;
	off_t len = !rc && !fxt_out_flush(o) ? lseek(fileno(f), 0, SEEK_END) : 0;
	uint64_t *arc = len > 0 ? malloc((size_t)len) : NULL;
	if (arc && pread(fileno(f), arc, (size_t)len, 0) == len &&
	    !fxt_reader_open_mem(&r, arc, (size_t)len, FXT_READER_STRICT)) {
		while (fxt_reader_next(r, &rec) == FXT_READ_RECORD) {
			fxt_record_clock(&rec, got);
			if (rec.type == FXT_RT_INITIALIZATION)
				*tps = rec.u.init.ticks_per_second;
		}
		fxt_reader_close(r);
	}
	if (f)
		fclose(f);
	free(arc);
	fxt_vet_free(s.vet);
	free(s.chunks);
	free(s.koids);
	if (o)
		fxt_out_end(o);
	free(o);
	free(mem);
}

static void test_clock(void)
{
	const struct fxt_saver_clock c = { { 1, 10 }, { 99999, 20 }, 1000000000 };
	struct fxt_clock got;
	uint64_t tps;
	clock_saved(FXT_BUF_STOPPED, &c, &got, &tps);
	ok(got.start_ticks == 100 && got.start_ns == 1000 && got.end_ticks == 3100 &&
		   got.end_ns == 2000 && tps == 3000000000,
	   "a stopped provider's clock record and rate are its own");
	clock_saved(FXT_BUF_WRITING, &c, &got, &tps);
	ok(got.start_ticks == 100 && got.start_ns == 1000 && got.end_ticks == 99999 &&
		   got.end_ns == 20 && tps == 1000000000,
	   "a provider killed before it stopped: its start, the manager's end reading and rate");
}

int main(void)
{
	test_hole();
	test_clock();
	return done();
}
