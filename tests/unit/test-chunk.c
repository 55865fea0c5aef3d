/* Claims about the chunk writer (writer/chunk.h): reservation by pointer bump inside a chunk
 * opened by its thread record, header-last commit, refill with one chunk per fetch-add, drops
 * counted once the oneshot buffer is exhausted, and threads writing concurrently into chunks of
 * their own (also run under TSan). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "writer/sweep.h"
#include "writer/chunk.h"
#include "writer/fields.h"

#define CHUNK 512u /* bytes: 64 words, 1 sequence word + 3 thread record + 60 for events */

static uint64_t event_hdr(uint32_t thread, uint32_t name)
{
	return fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_EVENT) | fxt_field_prep(FXT_RECORD_SIZE, 3) |
	       fxt_field_prep(FXT_EVENT_TYPE, FXT_ET_DURATION_COMPLETE) |
	       fxt_field_prep(FXT_EVENT_THREAD_REF, thread) | fxt_field_prep(FXT_EVENT_NAME_REF, name);
}

static void thread_rec(uint64_t rec[3], uint32_t index, uint64_t tid)
{
	rec[0] = fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_THREAD) | fxt_field_prep(FXT_RECORD_SIZE, 3) |
		 fxt_field_prep(FXT_THREAD_INDEX, index);
	rec[1] = 1;
	rec[2] = tid;
}

static void *new_mem(size_t size)
{
	void *m = aligned_alloc(64, size);
	memset(m, 0, size);
	return m;
}

static void test_single(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 1024 + 2 * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b;
	struct fxt_chunk_w w;
	uint64_t rec[3];
	ok(fxt_buf_init(&b, mem, size, 1024, CHUNK, FXT_BUF_ONESHOT, 1) == 0,
	   "a buffer with room for two chunks is laid out");
	ok(b.hdr->nchunks == 2, "the rolling area holds exactly two chunks (got %u)", b.hdr->nchunks);
	thread_rec(rec, 1, 42);
	fxt_chunk_init(&w, &b, rec);
	ok(atomic_load(&b.hdr->next_chunk) == 0, "no chunk is taken before the first reservation");

	uint64_t *r = fxt_chunk_reserve(&w, 3);
	const uint64_t *c0 = fxt_buf_chunk(&b, 0);
	ok(r == c0 + 4, "the first record follows the sequence word and the thread record");
	ok(c0[0] == 1 && c0[1] == rec[0] && c0[3] == 42, "chunk 0 carries sequence 1 and the thread record");
	r[1] = 100;
	r[2] = 200;
	ok(fxt_sweep_prefix(c0 + 1, CHUNK / 8 - 1) == 3,
	   "a reserved record stays invisible until its header is committed");
	fxt_chunk_commit(r, event_hdr(1, 5));
	ok(fxt_sweep_prefix(c0 + 1, CHUNK / 8 - 1) == 6,
	   "committing the header word publishes the whole record");

	/* Fill chunk 0 (60 words after the thread record: 20 events of 3), spill into chunk 1. */
	int n = 1;
	while (fxt_chunk_reserve(&w, 3) && n < 100) {
		fxt_chunk_commit(w.p - 3, event_hdr(1, 5));
		n++;
	}
	ok(n == 40, "two 64-word chunks hold 40 events of 3 words (got %d)", n);
	ok(atomic_load(&b.hdr->next_chunk) == 3, "the failed refill took one fetch-add past the end");
	ok(w.exhausted, "the writer knows the oneshot buffer is exhausted");
	ok(fxt_chunk_reserve(&w, 3) == NULL, "reservations after exhaustion fail");
	ok(atomic_load(&b.hdr->dropped) == 0, "drops stay in the writer until flushed");
	fxt_chunk_flush(&w);
	ok(atomic_load(&b.hdr->dropped) == 2, "flushing publishes both drops (got %llu)",
	   (unsigned long long)atomic_load(&b.hdr->dropped));
	ok(fxt_buf_chunk(&b, 1)[0] == 2, "chunk 1 carries sequence 2");
	free(mem);
}

static void test_too_big(void)
{
	size_t size = FXT_BUF_HDR_SIZE + 1024 + 4 * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b;
	struct fxt_chunk_w w;
	fxt_buf_init(&b, mem, size, 1024, CHUNK, FXT_BUF_ONESHOT, 1);
	fxt_chunk_init(&w, &b, NULL);
	ok(fxt_chunk_reserve(&w, CHUNK / 8) == NULL, "a record larger than a chunk is dropped");
	ok(atomic_load(&b.hdr->next_chunk) == 0, "dropping an oversized record takes no chunk");
	ok(fxt_chunk_reserve(&w, CHUNK / 8 - 1) == fxt_buf_chunk(&b, 0) + 1,
	   "a record filling a whole chunk after its sequence word fits");
	fxt_chunk_flush(&w);
	ok(atomic_load(&b.hdr->dropped) == 1, "the oversized record counts as one drop");
	free(mem);
}

#define THREADS 4
#define PER_THREAD 20000

struct job {
	struct fxt_buf *b;
	uint32_t index;
	long written;
};

static void *writer_main(void *arg)
{
	struct job *j = arg;
	struct fxt_chunk_w w;
	uint64_t rec[3];
	thread_rec(rec, j->index, 1000 + j->index);
	fxt_chunk_init(&w, j->b, rec);
	for (long i = 0; i < PER_THREAD; i++) {
		uint64_t *r = fxt_chunk_reserve(&w, 3);
		if (!r)
			continue;
		r[1] = (uint64_t)i;
		r[2] = (uint64_t)i + 1;
		fxt_chunk_commit(r, event_hdr(j->index, j->index));
		j->written++;
	}
	fxt_chunk_flush(&w);
	return NULL;
}

static void test_threads(void)
{
	/* Room for about 3/4 of the events: some threads must see the buffer run out. */
	size_t chunks = (size_t)THREADS * PER_THREAD * 24 * 3 / 4 / (CHUNK - 32);
	size_t size = FXT_BUF_HDR_SIZE + 1024 + chunks * CHUNK;
	void *mem = new_mem(size);
	struct fxt_buf b;
	fxt_buf_init(&b, mem, size, 1024, CHUNK, FXT_BUF_ONESHOT, 1);
	pthread_t th[THREADS];
	struct job jobs[THREADS];
	for (int i = 0; i < THREADS; i++) {
		jobs[i] = (struct job){ .b = &b, .index = (uint32_t)i + 1 };
		pthread_create(&th[i], NULL, writer_main, &jobs[i]);
	}
	long written = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		written += jobs[i].written;
	}
	ok(written + (long)atomic_load(&b.hdr->dropped) == THREADS * PER_THREAD,
	   "every event is either written or counted as dropped (%ld + %llu)", written,
	   (unsigned long long)atomic_load(&b.hdr->dropped));
	ok(atomic_load(&b.hdr->dropped) > 0, "the undersized buffer dropped events");

	long seen = 0;
	int pure = 1;
	for (uint32_t i = 0; i < b.hdr->nchunks; i++) {
		const uint64_t *c = fxt_buf_chunk(&b, i);
		size_t bytes = fxt_sweep_prefix(c + 1, CHUNK / 8 - 1) * 8;
		if (c[0] != i + 1 || bytes < 24) {
			pure = 0;
			continue;
		}
		uint64_t owner = fxt_field_get(FXT_THREAD_INDEX, c[1]);
		for (size_t at = 4; at < 1 + bytes / 8; at += 3, seen++)
			if (fxt_field_get(FXT_EVENT_THREAD_REF, c[at]) != owner)
				pure = 0;
	}
	ok(pure, "every chunk was taken once and holds events of the thread that opened it only");
	ok(seen == written, "the chunks hold exactly the events written (%ld of %ld)", seen, written);
	free(mem);
}

int main(void)
{
	test_single();
	test_too_big();
	test_threads();
	return done();
}
