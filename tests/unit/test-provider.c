/* Unit test of the chunk policies of preload/transport/provider.c without a manager: threads write
 * numbered records through the chunk writer into a circular or streaming session buffer, then
 * the chunks are read back in sequence order as fxtrun reads them. Claims: no record is read
 * twice or torn, circular keeps each thread's most recent records, streaming without a manager
 * fills both halves once and counts every other record as dropped; the grower thread that backed
 * the buffer beside the writers ends and is joined. Runs under TSan. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/protocol.h"
#include "preload/transport/grow.h"
#include "preload/transport/provider.h"
#include "writer/sweep.h"
#include "writer/chunk.h"
#include "writer/fields.h"

#define THREADS 4
#define PER_THREAD 200000u
#define SIZE (1u << 20)

static struct fxt_buf buf;

/* A 3-word record: header, thread number, record number (1-based). */
static void *writer(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, &buf, NULL);
	for (uint64_t i = 1; i <= PER_THREAD; i++) {
		uint64_t *r = fxt_chunk_reserve(&w, 3);
		if (!r)
			continue;
		r[1] = id;
		r[2] = i;
		fxt_chunk_commit(r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_EVENT) |
					    fxt_field_prep(FXT_RECORD_SIZE, 3));
	}
	fxt_chunk_flush(&w);
	fxt_chunk_close(&w);
	return NULL;
}

struct seen {
	uint64_t count, first, last, dup_or_back, torn;
};

/* Reads every chunk in sequence order; per thread, record numbers must only grow. */
static void read_back(struct seen s[THREADS])
{
	const struct fxt_buf_hdr *h = buf.hdr;
	memset(s, 0, sizeof(struct seen) * THREADS);
	uint64_t max = 0;
	for (uint32_t i = 0; i < h->nchunks; i++) {
		uint64_t q = fxt_chunk_word_seq(fxt_buf_chunk(&buf, i)[0]);
		if (q > max)
			max = q;
	}
	for (uint64_t q = 1; q <= max; q++)
		for (uint32_t i = 0; i < h->nchunks; i++) {
			const uint64_t *c = fxt_buf_chunk(&buf, i);
			if (fxt_chunk_word_seq(c[0]) != q)
				continue;
			size_t words = fxt_sweep_prefix(c + 1, h->chunk_size / 8 - 1);
			for (size_t at = 0; at + 3 <= words; at += 3) {
				uint64_t t = c[1 + at + 1], n = c[1 + at + 2];
				if (t >= THREADS || !n || n > PER_THREAD) {
					s[0].torn++;
					continue;
				}
				s[t].dup_or_back += n <= s[t].last;
				if (!s[t].first)
					s[t].first = n;
				s[t].last = n;
				s[t].count++;
			}
		}
}

static uint64_t run(const char *mode)
{
	char dir[] = "/tmp/fxt-test-provider.XXXXXX";
	if (!mkdtemp(dir))
		return 0;
	setenv(FXT_ENV_SESSION, dir, 1);
	setenv(FXT_ENV_MODE, mode, 1);
	void *map = NULL;
	int rc = fxtp_provider_open(&buf, &map, SIZE, 512 << 10, 4096,
				    (struct fxt_clock_pair){ 1, 1 });
	ok(rc == 1 && buf.policy, "a session buffer with a chunk policy is made");
	/* A few small durable records back a step ahead of them, not the whole area: the step
	 * grew with what was backed, so each reservation doubled it (2 MiB of a process's
	 * /dev/shm for a few names, 4 MiB for a fork child's copy). */
	uint64_t grown = 0;
	for (int i = 0; i < 64 && rc == 1; i++) {
		uint64_t *r = fxt_buf_durable_reserve(&buf, 4);
		uint64_t used = atomic_load(&buf.hdr->durable_used);
		uint64_t ahead = atomic_load(&buf.hdr->durable_backed) - buf.hdr->durable_off - used;
		if (r && ahead > grown)
			grown = ahead;
		if (r)
			r[0] = fxt_padding_hdr(4);
	}
	ok(grown <= 2 * (64u << 10) + 4096,
	   "small durable records are backed at most two 64 KiB steps ahead (%llu bytes)",
	   (unsigned long long)grown);
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, writer, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ok(fxtp_grow_thread() > 0, "a grower thread backed the buffer beside the writers");
	fxtp_grow_end();	/* as when the program's last thread ends */
	ok(fxtp_grow_thread() == 0 && !fxtp_grow_ahead(), "the grower thread ends and is joined");
	char path[128];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, dir, (int)getpid(), 0u);
	unlink(path);
	rmdir(dir);
	return rc;
}

/* Usage: test-provider circular|streaming (the session mode is read once per process). */
int main(int argc, char **argv)
{
	struct seen s[THREADS];
	const char *mode = argc > 1 ? argv[1] : "circular";
	run(mode);
	read_back(s);
	uint64_t total = 0, back = 0, holes = 0, newest = 0;
	for (int i = 0; i < THREADS; i++) {
		total += s[i].count;
		back += s[i].dup_or_back;
		holes += s[i].count && s[i].count != s[i].last - s[i].first + 1;
		newest += s[i].last == PER_THREAD;
	}
	ok(s[0].torn == 0, "no torn or foreign record is read");
	ok(back == 0, "no record is read twice, each thread's records keep their order");
	if (!strcmp(mode, "circular")) {
		ok(holes == 0, "circular: each thread keeps an unbroken run of its records");
		ok(newest > 0, "circular: the last records written are kept");
		ok(total > 0 && total < (uint64_t)THREADS * PER_THREAD,
		   "circular: the buffer overflowed and kept only part of the records");
	} else {
		/* No manager saves: both halves fill once, the rest drops. */
		ok(holes == 0 && newest == 0, "streaming: the first records are kept, not the last");
		ok(total + buf.hdr->dropped == (uint64_t)THREADS * PER_THREAD,
		   "streaming: every record is either in the buffer or counted as dropped");
		ok(total > 0 && total <= (uint64_t)buf.hdr->nchunks * (4096 / 24),
		   "streaming: without BUFFER_SAVED only the two halves are filled, once");
	}
	return done();
}
