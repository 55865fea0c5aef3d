/* Unit test of preload/transport/grow.c on a file-backed buffer: the steps the chunk takers grow and the
 * steps the grower thread grows ahead of the chunks taken are populated whole (every page is in
 * the page cache, which fallocate alone does not do), whatever the ends asked for: a step that
 * ended inside a page left every later populate refused. A taker ahead of the grower has its
 * own chunk backed and populated when it returns, and the grower, woken, backs and populates
 * past it. A taker's growth keeps what its range held (a signal handler's record). The grower
 * ends and is joined. Runs under TSan. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "preload/transport/grow.h"
#include "writer/buffer.h"

#define SIZE (256u << 20)
#define CHUNK (32u << 10)

static struct fxt_buf buf;

/* Pages of [from, to) (offsets in the buffer, whole pages) not in the page cache. */
static size_t missing(uint64_t from, uint64_t to)
{
	long page = sysconf(_SC_PAGESIZE);
	from = (from + (uint64_t)page - 1) & ~((uint64_t)page - 1);
	to &= ~((uint64_t)page - 1);
	if (to <= from)
		return 0;
	size_t n = (size_t)((to - from) / (uint64_t)page), gone = 0;
	unsigned char *vec = malloc(n);
	if (!vec || mincore(buf.base + from, to - from, vec) < 0) {
		free(vec);
		return n;
	}
	for (size_t i = 0; i < n; i++)
		gone += !(vec[i] & 1);
	free(vec);
	return gone;
}

/* Waits (bounded: 20 s) until the grower backed the chunks up to at least end. */
static int backed_to(uint64_t end)
{
	struct timespec tick = { 0, 1000000 };
	for (int i = 0; i < 20000; i++) {
		if (__atomic_load_n(&buf.hdr->backed, __ATOMIC_ACQUIRE) >= end)
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* Waits (bounded: 20 s) until every page of [from, to) is populated; the pages still missing. */
static size_t populated(uint64_t from, uint64_t to)
{
	struct timespec tick = { 0, 1000000 };
	size_t gone = missing(from, to);
	for (int i = 0; i < 20000 && gone; i++) {
		nanosleep(&tick, NULL);
		gone = missing(from, to);
	}
	return gone;
}

int main(void)
{
	char path[] = "/tmp/fxt-test-grow.XXXXXX";
	int fd = mkstemp(path);
	void *m = fd < 0 ? MAP_FAILED
			 : mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	uint64_t first = FXT_BUF_HDR_SIZE + FXTP_GROW_FIRST;
	int rc = m == MAP_FAILED ? -1 : fxtp_grow_attach(fd, path, 1);
	if (!rc)
		rc = fxtp_grow_initial(first);
	if (!rc)
		rc = fxt_buf_init(&buf, m, SIZE, 1u << 20, CHUNK, FXT_BUF_ONESHOT, 1);
	if (!ok(rc == 0, "a file-backed buffer is laid out")) {
		unlink(path);
		return done();
	}
	struct fxt_buf_hdr *h = buf.hdr;
	h->durable_backed = first;
	h->backed = h->chunks_off;

	/* Takers, no grower: ends asked for inside pages. */
	for (uint64_t k = 1; k <= 8; k++)
		fxtp_grow_back(&buf, h->chunks_off + k * 300001);
	uint64_t backed = __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE);
	ok(backed >= h->chunks_off + 8 * 300001, "the takers backed what they asked for");
	ok(missing(h->chunks_off, backed) == 0,
	   "every page the takers backed is populated (%zu missing)", missing(h->chunks_off, backed));

	/* A taker's growth keeps what the range it reserves already holds: a signal handler on
	 * the growing thread grows by itself in the middle of the interrupted growth and writes
	 * its record there, before the interrupted growth goes on (it wrote zeroes over the range,
	 * 87d9276). The handler's record is planted in the file directly. */
	uint64_t mark = 0xfeedfacecafebeefULL, at = backed + CHUNK + 64, got = 0;
	int planted = pwrite(fd, &mark, 8, (off_t)at) == 8;
	fxtp_grow_back(&buf, at + CHUNK);
	int read_back = pread(fd, &got, 8, (off_t)at) == 8;
	ok(planted && read_back && __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE) >= at + CHUNK &&
		   got == mark,
	   "a taker's growth keeps what its range held (%#llx)", (unsigned long long)got);
	backed = __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE);

	/* The grower runs; a taker past what is backed (unless the grower looked first) reserves
	 * and populates its own chunk only and wakes the grower, which backs and populates past
	 * it: either way the taker's chunk is populated when it returns, what follows soon after. */
	fxtp_grow_start(&buf, NULL);
	uint64_t k = (backed - h->chunks_off) / CHUNK + 4, end = h->chunks_off + k * CHUNK;
	__atomic_store_n(&h->next_chunk, k, __ATOMIC_RELEASE);
	ok(fxtp_grow_back(&buf, end) == 0 && missing(end - CHUNK, end) == 0,
	   "a taker ahead of the grower returns with its chunk backed and populated");
	int past = backed_to(end + 1);
	uint64_t step_end = __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE);
	ok(past && populated(end, step_end) == 0,
	   "the grower backs and populates past the taker's chunk");

	/* The grower, ahead of chunks taken at a rate (its targets end anywhere). */
	int reached = 1;
	for (uint64_t n = 200; n <= 1000; n += 200) {
		__atomic_store_n(&h->next_chunk, n, __ATOMIC_RELEASE);
		reached &= backed_to(h->chunks_off + n * CHUNK);
	}
	ok(reached, "the grower backs ahead of the chunks taken");
	/* Chunks taken are their writers' to populate (a taker does when the grower is behind);
	 * the grower reserves its target, then populates it. */
	uint64_t untaken = h->chunks_off + __atomic_load_n(&h->next_chunk, __ATOMIC_ACQUIRE) * CHUNK;
	int ahead = backed_to(untaken + 1);	/* it reserves in pieces: one may end right there */
	backed = __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE);
	size_t gone = populated(untaken, backed);
	ok(ahead && gone == 0,
	   "every page the grower backed ahead is populated (%zu missing)", gone);
	fxtp_grow_end();
	ok(fxtp_grow_thread() == 0, "the grower ends and is joined");
	fxtp_grow_detach();
	munmap(m, SIZE);
	unlink(path);
	return done();
}
