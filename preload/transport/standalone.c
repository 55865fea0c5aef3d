/* The standalone archive file (see standalone.h and writer/outfile.h): created with O_EXCL and
 * O_NOFOLLOW so a planted link is never followed, mapped shared over a large window of address
 * space, grown by preload/transport/grow.c as chunks are taken; each chunk a writer leaves becomes plain
 * FXT at once, and the pages of regions left behind leave the process (MADV_DONTNEED: they stay
 * in the page cache and reach the disk), so memory stays bounded however long the run. At exit
 * the file is finished in place, sized to its content when that is cheap (the unused end of
 * the string area leaves the file: the chunks move down, without a copy where the file system
 * can collapse a range, when they are at most 4 times the bytes saved) and renamed. Invariant: the mapping is never unmapped while the process runs (threads
 * still running after the exit flush may write into it; past the finish, into private pages). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "common/outpath.h"
#include "preload/base/clock.h"
#include "preload/base/fxtp.h"
#include "preload/transport/grow.h"
#include "preload/transport/standalone.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/outfile.h"
#include "writer/records.h"

#define WINDOW_MAX (1ULL << 40)	/* address space mapped for the file: 1 TiB */
#define WINDOW_MIN (64ULL << 20)

static struct fxt_outfile outfile;
static char part_path[4200];
static uint64_t window_size;	/* bytes of address space mapped for the file */

/* Pages given back to the page cache region by region: the regions behind the one being taken
 * leave the process (MADV_DONTNEED keeps a shared file mapping's data: a chunk a slow thread
 * still writes there just faults back in). One call per REGION bytes at most, not per chunk:
 * on a threaded program each call costs TLB shootdowns. The grower thread does it at each of
 * its looks (behind()); without a grower, or when the grower lags LAG_REGIONS regions behind
 * (off the CPU on a busy machine while the program wrote on: 71 MB peak RSS for a 64 MB
 * bound), the writer that leaves a region's last chunk. */
#define REGION_CHUNKS 64u	/* 2 MiB of 32 KiB chunks */
#define LAG_REGIONS 4u

static uint64_t regions_dropped;	/* regions [0, regions_dropped) were given back */

/* Gives back the regions before the one holding chunk `upto`'s predecessor. */
static void drop_before(struct fxt_buf *b, uint64_t upto)
{
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t region = (uint64_t)REGION_CHUNKS * h->chunk_size;
	uint64_t last = upto / REGION_CHUNKS;	/* regions before `last - 1` are left behind */
	uint64_t from = __atomic_load_n(&regions_dropped, __ATOMIC_RELAXED);
	if (last < 2 || from >= last - 1 ||
	    !__atomic_compare_exchange_n(&regions_dropped, &from, last - 1, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	int saved = errno;
	madvise(b->base + h->chunks_off + from * region, (last - 1 - from) * region,
		MADV_DONTNEED);
	errno = saved;
}

static void behind(struct fxt_buf *b)
{
	drop_before(b, atomic_load_explicit(&b->hdr->next_chunk, memory_order_relaxed));
}

/* The growing policy's release, dropping regions when there is no grower or it lags. */
static void release(struct fxt_buf *b, uint64_t *c, const uint64_t *end)
{
	const struct fxt_buf_hdr *h = b->hdr;
	fxt_outfile_release(b, c, end);
	uint64_t i = ((uint64_t)((uint8_t *)c - b->base) - h->chunks_off) / h->chunk_size;
	if (i % REGION_CHUNKS == REGION_CHUNKS - 1 &&
	    (!fxtp_grow_ahead() ||
	     i / REGION_CHUNKS >= __atomic_load_n(&regions_dropped, __ATOMIC_RELAXED) + LAG_REGIONS))
		drop_before(b, i + 1);
}

static const struct fxt_buf_policy policy = { fxt_outfile_take, release };

int fxtp_standalone_open(struct fxt_buf *b, void **map, size_t *map_size, uint64_t durable,
			 const char *out_path, const char *name, pid_t pid,
			 struct fxt_clock_pair clock_start)
{
	/* "<out_path>.part", or a fresh name when that one is taken */
	int fd = fxt_outpath_open(out_path, part_path, sizeof(part_path));
	if (fd < 0)
		return fd;
	uint64_t window = WINDOW_MAX;
	void *m = MAP_FAILED;
	for (; window >= WINDOW_MIN && m == MAP_FAILED; window /= 2)
		m = mmap(NULL, window, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	window *= 2;
	int rc = m == MAP_FAILED ? -errno : fxtp_grow_attach(fd, part_path, 1);
	uint64_t first = FXT_BUF_HDR_SIZE + (durable < FXTP_GROW_FIRST ? durable : FXTP_GROW_FIRST);
	if (!rc)
		rc = fxtp_grow_initial(first);
	if (!rc)
		rc = fxt_outfile_init(b, &outfile, m, window, durable, FXT_BUF_DEFAULT_CHUNK,
				      (uint64_t)pid, name, 0, clock_start);
	close(fd);
	if (rc < 0) {
		if (m != MAP_FAILED)
			munmap(m, window);
		fxtp_grow_detach();
		unlink(part_path);
		return rc;
	}
	b->hdr->durable_backed = first;
	b->hdr->backed = b->hdr->chunks_off;
	b->back_durable = fxtp_grow_durable;
	b->policy = &policy;
	outfile.back = fxtp_grow_back;
	fxtp_grow_on_step = fxtp_refresh_tps;
	regions_dropped = 0;
	window_size = window;
	fxtp_grow_start(b, behind);
	*map = m;
	*map_size = window;
	return 0;
}

/* ---- sizing the finished file to its content ---- */

/* Writes padding records over the file's bytes [from, to) (8-byte multiples): headers only, the
 * blobs' payloads are whatever was there. 0 or -errno. */
static int pad_file(int fd, uint64_t from, uint64_t to, uint32_t provider_id)
{
	while (from < to) {
		uint64_t w = fxt_outfile_pad_word((size_t)((to - from) / 8), provider_id);
		if (pwrite(fd, &w, 8, (off_t)from) != 8)
			return -errno;
		from += fxt_record_words(w) * 8;
	}
	return 0;
}

/* Moves the file's bytes [from + len, end) down by len through a bounce buffer (a file system
 * without FALLOC_FL_COLLAPSE_RANGE: tmpfs). Forward: each read is done before the write that
 * may cover its bytes. 0 or -errno. */
#define MOVE_STEP (1u << 20)
static int move_down(int fd, uint64_t from, uint64_t len, uint64_t end)
{
	void *buf = mmap(NULL, MOVE_STEP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (buf == MAP_FAILED)
		return -errno;
	int rc = 0;
	for (uint64_t at = from + len; !rc && at < end;) {
		size_t n = end - at < MOVE_STEP ? (size_t)(end - at) : MOVE_STEP;
		ssize_t got = pread(fd, buf, n, (off_t)at);
		if (got <= 0 || pwrite(fd, buf, (size_t)got, (off_t)(at - len)) != got)
			rc = got == 0 ? -EIO : -errno;
		at += got > 0 ? (uint64_t)got : 0;
	}
	munmap(buf, MOVE_STEP);
	return rc;
}

/* The mapping from the last page of durable records on leaves the file (a private copy of that
 * page, zero pages after it): threads still running after the finish write there, never into
 * a file whose offsets are about to move. The pages before stay the file's (the strings a new
 * buffer copies after a failed exec). Only up to the backed end: no chunk lies past it, and a
 * private mapping of the whole window (1 TiB) made a crash's core dump walk it (45 s, a 1 TiB
 * sparse core). Left out of core dumps, as the file's shared mapping is. */
static void unmap_tail(struct fxt_buf *b, uint64_t data_end)
{
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t backed = __atomic_load_n(&h->backed, __ATOMIC_ACQUIRE);
	uint64_t top = ((backed > h->chunks_off ? backed : h->chunks_off) + page - 1) & ~(page - 1);
	uint64_t lo = data_end & ~(page - 1), hi = lo + page;
	if (top > window_size)
		top = window_size;
	if (data_end > lo) {
		void *copy = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy != MAP_FAILED) {
			memcpy(copy, b->base + lo, (size_t)page);
			if (mremap(copy, (size_t)page, (size_t)page, MREMAP_MAYMOVE | MREMAP_FIXED,
				   b->base + lo) == MAP_FAILED)
				munmap(copy, (size_t)page);
		}
	} else {
		hi = lo;
	}
	if (top > hi)
		mmap(b->base + hi, top - hi, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	if (top > lo)
		madvise(b->base + lo, top - lo, MADV_DONTDUMP);
}

/* Sizes the finished file of `end` bytes to its content: the unused end of the string area
 * (reserved at the start, most of it never used) leaves the file in whole blocks, so the chunks
 * follow the durable records (FALLOC_FL_COLLAPSE_RANGE; where the file system has none, the
 * chunks are copied down). Only when the chunks are at most COMPACT_RATIO times the bytes saved:
 * moving them writes them all to the disk before the program may end (a collapse waits for the
 * writeback of the file from the range on: 0.35 s on a 337 MB archive to save its 2 MB, 44 ms on
 * 30 MB, 5 ms on 1.4 MB). The header in the prologue says the new layout. Returns the file's
 * new size (end: nothing removed). */
#define COMPACT_RATIO 4
static uint64_t compact(struct fxt_buf *b, int fd, uint64_t end)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t used = atomic_load_explicit(&h->durable_used, memory_order_acquire);
	struct stat st;
	uint64_t blk = fstat(fd, &st) == 0 && st.st_blksize >= 4096 &&
				       !(st.st_blksize & (st.st_blksize - 1))
			       ? (uint64_t)st.st_blksize
			       : 4096;
	if (used > h->durable_size)
		return end;	/* full: nothing to gain */
	uint64_t data_end = h->durable_off + used, from = (data_end + blk - 1) & ~(blk - 1);
	uint64_t len = from < h->chunks_off ? (h->chunks_off - from) & ~(blk - 1) : 0;
	if (!len || end - h->chunks_off > COMPACT_RATIO * len)
		return end;
	unmap_tail(b, data_end);
	uint64_t chunks_off = h->chunks_off;
	int rc = 0, moved = 0;
	/* No chunk (no call recorded): nothing to move, the caller's truncation cuts the range
	 * (a collapse reaching the end of the file is refused: an empty run kept its 2 MB). */
	if (end > chunks_off) {
		if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)from, (off_t)len) < 0)
			rc = errno == EOPNOTSUPP ? move_down(fd, from, len, end) : -errno;
		moved = !rc;
	}
	/* The durable tail up to the chunks' new place, padded once they are there (the headers
	 * of a padding run written before would partly have moved with the range). */
	if (!rc)
		rc = pad_file(fd, data_end, chunks_off - len, outfile.provider_id);
	if (rc < 0 && !moved) {
		/* Left as it was: the durable tail padded up to the chunks again. */
		pad_file(fd, data_end, chunks_off, outfile.provider_id);
		return end;
	}
	h->durable_size -= len;
	h->chunks_off = chunks_off - len;
	return end - len;
}

/* Writes the one-line drop report: "fxtauto: N records dropped (why); trace in PATH". */
static void report_drops(const struct fxt_buf *b, const char *path)
{
	uint64_t n = __atomic_load_n(&b->hdr->dropped, __ATOMIC_RELAXED);
	if (!n)
		return;
	char num[24], why[160], line[512];
	int k = (int)sizeof(num) - 1;
	num[k] = 0;
	do
		num[--k] = (char)('0' + n % 10);
	while ((n /= 10) && k);
	fxt_drop_reasons_str(__atomic_load_n(&b->hdr->drop_reasons, __ATOMIC_RELAXED), why,
			     sizeof(why));
	size_t at = 0;
	const char *parts[] = { num + k, " records dropped (", why, "); the trace in ", path,
				" holds the rest" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strnlen(parts[i], sizeof(line) - 1 - at);
		memcpy(line + at, parts[i], l);
		at += l;
	}
	line[at] = 0;
	fxtp_warn(line, NULL);
}

void fxtp_standalone_finish(struct fxt_buf *b, uint64_t cutoff, uint64_t ticks_per_second,
			    const char *out_path)
{
	struct fxt_buf_hdr *h = b->hdr;
	fxt_outfile_stop(b);
	fxtp_grow_stop();	/* nothing grows the file after this but the finish */
	fxt_outfile_set_tps(b, ticks_per_second, &h->clock_end);
	/* Chunks are taken in file order, each backed first: the first `taken` are all there. */
	uint64_t chunks = fxt_buf_slots_used(b);
	uint64_t taken = __atomic_load_n(&h->next_chunk, __ATOMIC_ACQUIRE);
	if (chunks > taken)
		chunks = taken;
	if (fxtp_grow_durable_all(b) < 0) {
		fxtp_warn("no space left to finish the archive; run `fxt recover` on it when there is",
			  part_path);
		return;
	}
	uint64_t end = fxt_outfile_seal(b, chunks, cutoff, cutoff, 1);
	int fd = fxtp_grow_fd();
	if (fd >= 0)
		end = compact(b, fd, end);
	if (fd < 0 || ftruncate(fd, (off_t)end) < 0) {
		char why[64];
		snprintf(why, sizeof(why), "%s", strerror(fd < 0 ? EBADF : errno));
		fxtp_warn("cannot finish the archive (run `fxt recover` on it)", part_path);
		fxtp_warn("cause", why);
		return;
	}
	const char *why;
	if (out_path && fxt_outpath_commit(part_path, out_path, &why) < 0) {
		/* complete, but its name is not to be taken (a device appeared there) */
		fxtp_warn("the archive is complete but stays here", part_path);
		fxtp_warn(out_path, why);
		return;
	}
	report_drops(b, out_path ? out_path : part_path);
}

void fxtp_standalone_discard(void)
{
	unlink(part_path);
}

