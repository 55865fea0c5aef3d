/* The buffer of a process (constructor, fork child, a manager's START): opened under fxtrun in
 * the session's shared file (provider.c), else as the growing archive file (standalone.c); the
 * strings of the buffer it replaces copied in (names.c's indexes stay valid), its start
 * populated once, and after a STOP its mapping retired to private memory. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/buffer.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/base/clock.h"
#include "preload/base/fxtp.h"
#include "preload/hot/emit.h"
#include "preload/transport/outname.h"
#include "preload/transport/provider.h"
#include "preload/transport/standalone.h"
#include "writer/fields.h"
#include "writer/records.h"
#include "writer/sweep.h"

/* Copies the string records of the durable area `from` into the current buffer (fork child:
 * the indexes cached by names.c stay valid). Only its used part is read: a parent that ends
 * meanwhile compacts its file at the finish, cutting the rest of the area and moving its chunks
 * (a walk up to durable_size went on into them and past the file's new end: SIGBUS in the
 * child); the used part stays where it is. */
static void copy_strings(const struct fxt_buf *from)
{
	const uint64_t *p = fxt_buf_durable(from);
	uint64_t used = __atomic_load_n(&from->hdr->durable_used, __ATOMIC_ACQUIRE);
	if (used > from->hdr->durable_size)
		used = from->hdr->durable_size;
	struct fxt_sweep s = fxt_sweep_over(p, 0, used / 8);
	for (size_t n; (n = fxt_sweep_peek(&s)); s.at += n) {
		if (fxt_field_get(FXT_RECORD_TYPE, s.header) == FXT_RT_STRING) {
			uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, n);
			if (!r)
				return;
			memcpy(r + 1, p + s.at + 1, (n - 1) * 8);
			fxt_chunk_commit(r, s.header);
		}
	}
}

/* A buffer mapping given up: unmapped, unless it was retired by a stop (fxtp_retire_buffer),
 * when it stays mapped until the next one is given up (a hook preempted inside its few
 * instructions since before that stop may still store into it). */
static void *retired, *grave;
static size_t retired_size, grave_size;

static void bury(void *map, size_t size)
{
	if (map != retired) {
		munmap(map, size);
		return;
	}
	if (grave)
		munmap(grave, grave_size);
	grave = retired;
	grave_size = retired_size;
	retired = NULL;
}

void fxtp_retire_buffer(void)
{
	const struct fxt_buf_hdr *h = fxtp.buf.hdr;
	uint8_t *map = fxtp.map;
	long page = sysconf(_SC_PAGESIZE);
	size_t keep = (size_t)((uint8_t *)fxt_buf_durable(&fxtp.buf) - map) +
		      (size_t)__atomic_load_n(&h->durable_used, __ATOMIC_RELAXED);
	if (keep > (size_t)(h->chunks_off))
		keep = (size_t)h->chunks_off;
	keep = (keep + (size_t)page - 1) & ~((size_t)page - 1);
	if (keep > fxtp.map_size)
		keep = fxtp.map_size;
	/* The header and strings survive in private memory (the next buffer copies the strings:
	 * names.c's indexes stay valid); the chunks become zero pages. */
	void *copy = mmap(NULL, keep, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy != MAP_FAILED) {
		memcpy(copy, map, keep);
		if (mremap(copy, keep, keep, MREMAP_MAYMOVE | MREMAP_FIXED, map) == MAP_FAILED)
			munmap(copy, keep);
	}
	if (fxtp.map_size > keep)
		mmap(map + keep, fxtp.map_size - keep, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	retired = map;
	retired_size = fxtp.map_size;
}

/* Ticks of a stall worth recording as a tracer slice (about 10 us; the clock is not calibrated
 * yet, so TSC ticks are taken for at most 2 GHz). */
#define STALL_TICKS 20000ULL

int fxtp_open_buffer(void)
{
	struct fxt_buf old = fxtp.buf;
	void *old_map = fxtp.map;
	size_t old_size = fxtp.map_size, size = fxtp.buffer_size;
	uint64_t durable = size / 8;
	if (durable < (64u << 10))
		durable = 64u << 10;
	if (durable > (32u << 20))
		durable = 32u << 20;
	fxtp.pid = getpid();

	fxtp_out_name(fxtp.name_seq, fxtp.out_path, sizeof(fxtp.out_path));

	/* The clock record's start: read now, so that its two pairs bracket this buffer's
	 * events closely (a registered process's constructor may be days before its trace). */
	struct fxt_clock_pair start;
	uint64_t width;
	fxtp_clock_pair(&start.ticks, &start.ns, &width);
	/* Under fxtrun: the session's shared buffer file, in its mode (preload/transport/provider.c);
	 * else the archive file itself, growing (preload/transport/standalone.c). */
	void *m = NULL;
	int rc = fxtp_provider_open(&fxtp.buf, &m, size, durable, FXT_BUF_DEFAULT_CHUNK, start);
	if (rc < 0)
		return rc;
	if (!m) {
		/* The string area is reserved in the file: 1/32 of the size (2 MiB by default). */
		rc = fxtp_standalone_open(&fxtp.buf, &m, &size, durable / 4, fxtp.out_path,
					  fxtp.prog, fxtp.pid, start);
		if (rc < 0)
			return rc;
	}
	fxtp.map = m;
	fxtp.map_size = size;
	fxtp.warmed = 0;
	fxtp.buf_gen++;
	fxtp.buf.now = fxtp_now;
	fxtp.buf.stall_ticks = fxtp.use_tsc ? STALL_TICKS : STALL_TICKS / 2;
	fxtp.buf.hdr->start_ticks = fxtp_now();
	if (old_map) {
		copy_strings(&old);
		fxtp_outname_reopened(old.hdr);
		bury(old_map, old_size);
	}
	fxtp_emit_kobj(FXT_OBJ_TYPE_PROCESS, (uint64_t)fxtp.pid, fxtp.prog,
		       (uint32_t)strlen(fxtp.prog), 0);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define WARM_DURABLE (64u << 10) /* durable bytes populated at start (strings, threads) */

void fxtp_buffer_warm(void)
{
	if (__atomic_exchange_n(&fxtp.warmed, 1, __ATOMIC_RELAXED))
		return;
	const struct fxt_buf_hdr *h = fxtp.buf.hdr;
	uint64_t durable = h->durable_size < WARM_DURABLE ? h->durable_size : WARM_DURABLE;
	int saved = errno;	/* best effort: the pages fault on first write otherwise */
	madvise(fxtp.map, h->durable_off + durable, MADV_POPULATE_WRITE);
	errno = saved;
}
