/* Unit test of the manager's last save of a provider (launcher/manager/saver.c fxt_saver_finish). Over a
 * durable area with a hole (a reservation a killed thread never wrote: exit() ends threads
 * mid-record), then a string record, then a chunk event naming that string: the string after
 * the hole reaches the archive, so the event is saved and the provider's data is not reported
 * corrupt; the hole's words are left out. The clock: a stopped provider's clock record holds
 * its own readings and rate, a killed one's the manager's. Streaming saves while the writer
 * runs: each call reaches the archive once, in order, whether its chunk was open at the save
 * (walked up to its last committed record) or left by its writer (copied whole, its end found by
 * the vetting of the copy), first saved or continued after an earlier save (re-opened with its
 * thread record). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fxt/reader.h"
#include "launcher/manager/saver.h"
#include "policy-stub.h"
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

/* The manager's side of one provider whose buffer is the SIZE bytes at mem (header live): its
 * saver state, and its archive in a temporary file. */
struct rig {
	struct fxt_saved s;
	struct fxt_out *o;
	FILE *f;
};

/* 0, or -1 when the rig could not be made (rig_end() is due either way). */
static int rig_start(struct rig *g, void *mem, const struct fxt_buf_hdr *live)
{
	*g = (struct rig){ .s = { .pid = (int)PID, .ppid = 1, .id = 1, .live = live },
			   .o = calloc(1, sizeof(*g->o)), .f = tmpfile() };
	return g->o && g->f && fxt_buf_attach_copy(&g->s.buf, mem, SIZE, &g->s.layout) == 0 &&
			       (g->s.chunks = calloc(g->s.layout.nchunks + 1, sizeof(*g->s.chunks))) &&
			       fxt_out_start(g->o, fileno(g->f)) == 0
		       ? 0
		       : -1;
}

static void rig_end(struct rig *g)
{
	if (g->f)
		fclose(g->f);
	fxt_vet_free(g->s.vet);
	free(g->s.chunks);
	free(g->s.koids);
	if (g->o)
		fxt_out_end(g->o);	/* calloc'd and never started: nothing to end */
	free(g->o);
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

	struct rig g;
	int rc = rig_start(&g, mem, b.hdr);
	if (!rc)
		rc = fxt_saver_finish(g.o, &g.s, 0,
				      &(struct fxt_saver_clock){ { 1, 1 }, { 2, 2 }, 1000000000 });
	ok(rc == 0, "last save done");
	const char *bad = g.s.vet ? fxt_vet_problem(g.s.vet) : "no vetting";
	ok(!bad, "provider data not reported corrupt (%s)", bad ? bad : "none");
	ok(g.s.st.events == 1, "the event saved (%llu events)", (unsigned long long)g.s.st.events);
	ok(g.s.durable_saved / 8 == __atomic_load_n(&b.hdr->durable_used, __ATOMIC_RELAXED) / 8,
	   "the whole durable area consumed, hole included");
	rig_end(&g);
	free(mem);
}

/* The clock and initialization records of a provider whose header holds start, end and tps,
 * in state `state`, finished with the manager's readings c: *got receives them. */
static void clock_saved(uint32_t state, const struct fxt_saver_clock *c, struct fxt_clock *got,
			uint64_t *tps)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b;
	struct rig g = { 0 };
	int rc = -1;
	memset(got, 0, sizeof(*got));
	*tps = 0;
	if (mem) {
		memset(mem, 0, SIZE);
		fxt_buf_init(&b, mem, SIZE, 64 * 1024, 64 * 1024, FXT_BUF_ONESHOT, PID);
		durable_string(&b, 1, "cat");
		b.hdr->clock_start = (struct fxt_clock_pair){ 100, 1000 };
		b.hdr->clock_end = (struct fxt_clock_pair){ 3100, 2000 };
		b.hdr->ticks_per_second = 3000000000;
		b.hdr->state = state;
		if (rig_start(&g, mem, b.hdr) == 0 && fxt_saver_save(g.o, &g.s, 0, c) == 0)
			rc = fxt_saver_finish(g.o, &g.s, 0, c);
	}
	struct fxt_reader *r;
	struct fxt_record rec;
	off_t len = !rc && !fxt_out_flush(g.o) ? lseek(fileno(g.f), 0, SEEK_END) : 0;
	uint64_t *arc = len > 0 ? malloc((size_t)len) : NULL;
	if (arc && pread(fileno(g.f), arc, (size_t)len, 0) == len &&
	    !fxt_reader_open_mem(&r, arc, (size_t)len, FXT_READER_STRICT)) {
		while (fxt_reader_next(r, &rec) == FXT_READ_RECORD) {
			fxt_record_clock(&rec, got);
			if (rec.type == FXT_RT_INITIALIZATION)
				*tps = rec.u.init.ticks_per_second;
		}
		fxt_reader_close(r);
	}
	free(arc);
	rig_end(&g);
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

/* A call [start, start + 5] on the writer's thread (index 1), named string 2. */
static void call(struct fxt_chunk_w *w, uint64_t start)
{
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1), fxt_str_idx(2),
					     start, start + 5);
	uint64_t *r = fxt_chunk_reserve(w, fxt_event_words(&e));
	if (r)
		fxt_event_write(r, &e);
}

/* The start stamps of the complete events of the archive in fd, in archive order, into
 * starts[max]; returns their number, or -1 when the strict reader refuses the archive. */
static long archive_starts(int fd, uint64_t *starts, long max)
{
	off_t len = lseek(fd, 0, SEEK_END);
	uint64_t *a = len > 0 ? malloc((size_t)len) : NULL;
	struct fxt_reader *r;
	struct fxt_record rec;
	long n = -1;
	if (a && pread(fd, a, (size_t)len, 0) == len &&
	    !fxt_reader_open_mem(&r, a, (size_t)len, FXT_READER_STRICT)) {
		int got;
		n = 0;
		while ((got = fxt_reader_next(r, &rec)) == FXT_READ_RECORD)
			if (rec.type == FXT_RT_EVENT && n < max)
				starts[n++] = rec.u.event.ts;
		if (got != FXT_READ_END)
			n = -1;
		fxt_reader_close(r);
	}
	free(a);
	return n;
}

static void test_streaming(void)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b;
	struct fxt_policy_state st;
	if (mem)
		memset(mem, 0, SIZE);
	if (!ok(mem && fxt_buf_init(&b, mem, SIZE, 64 * 1024, 4096, FXT_BUF_STREAMING, PID) == 0 &&
			fxt_policy_install(&b, &st, &stub_ops) == 0,
		"streaming buffer made"))
		return;
	durable_string(&b, 1, "cat");
	durable_string(&b, 2, "f");
	uint64_t thread_rec[3];
	fxt_thread_write(thread_rec, 1, PID, PID + 1);
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, &b, thread_rec);

	struct rig g;
	const struct fxt_saver_clock c = { { 1, 1 }, { 2, 2 }, 1000000000 };
	int rc = rig_start(&g, mem, b.hdr);
	call(&w, 10);
	call(&w, 20);
	if (!rc)
		rc = fxt_saver_save(g.o, &g.s, 0, &c);	/* its chunk open: walked */
	ok(!rc && g.s.st.events == 2, "open chunk: its 2 calls saved (%llu)",
	   (unsigned long long)g.s.st.events);
	call(&w, 30);
	call(&w, 40);
	call(&w, 50);
	fxt_chunk_close(&w);
	if (!rc)
		rc = fxt_saver_save(g.o, &g.s, 0, &c);	/* left after a save: re-opened, copied whole */
	ok(!rc && g.s.st.events == 5, "the same chunk left: its 3 later calls saved (%llu)",
	   (unsigned long long)g.s.st.events);
	if (!rc)
		rc = fxt_saver_save(g.o, &g.s, 0, &c);
	ok(!rc && g.s.st.events == 5, "nothing new: nothing saved again (%llu)",
	   (unsigned long long)g.s.st.events);
	call(&w, 60);	/* a new chunk, left before any save */
	fxt_chunk_close(&w);
	call(&w, 70);	/* and the next one, open */
	fxt_chunk_flush(&w);
	__atomic_store_n(&b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	if (!rc)
		rc = fxt_saver_finish(g.o, &g.s, 0, &c);
	if (!rc)
		rc = fxt_out_flush(g.o);
	const char *bad = g.s.vet ? fxt_vet_problem(g.s.vet) : "no vetting";
	ok(!rc && !bad && g.s.st.events == 7, "last save: 7 calls, nothing corrupt (%s)",
	   bad ? bad : "none");
	uint64_t starts[16];
	long n = g.f ? archive_starts(fileno(g.f), starts, 16) : -1;
	int in_order = n == 7;
	for (long i = 0; in_order && i < n; i++)
		in_order = starts[i] == (uint64_t)(10 * (i + 1));
	ok(in_order, "the archive holds each call once, in order (%ld events)", n);
	rig_end(&g);
	free(mem);
}

int main(void)
{
	test_streaming();
	test_hole();
	test_clock();
	return done();
}
