/* Backing the buffer as it is used: the buffer file (fxtrun's session file or the standalone
 * archive file) is reserved with fallocate a step ahead of the chunks taken, so a large buffer
 * costs what is written, not what is reserved, and a full file system refuses a chunk (counted
 * as dropped records) instead of killing the program with SIGBUS. The step's pages are then
 * populated (MADV_POPULATE_WRITE) so the hot path does not fault; a chunk taker that has to wait
 * for this is recorded as a tracer stall by the chunk writer. One grower at a time (a flag taken
 * by atomic exchange); the others wait only when the chunk they took is not backed yet, except
 * a signal handler on the growing thread, which grows by itself (fallocate is idempotent, and
 * the backed end is only ever raised).
 * Async-signal-safe (syscalls only); runs under the tracer guard. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/grow.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/fd.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define GROW_STEP (2u << 20)	/* bytes backed (and populated) per step, at most */
#define MIN_STEP (64u << 10)	/* the first steps: a short process reserves little */

/* The step for an area that holds `used` bytes: doubling from MIN_STEP up to GROW_STEP. */
static uint64_t step_for(uint64_t used)
{
	uint64_t s = MIN_STEP;
	while (s < GROW_STEP && s < used)
		s *= 2;
	return s;
}

static struct {
	int fd;			/* the buffer file, -1: none (anonymous memory) */
	ino_t ino;		/* its inode: the program may close our fd and reuse the number */
	int extends;		/* fallocate extends the file (standalone); else its size is set */
	int err;		/* sticky: the file system refused once */
	int lock;		/* 1 while one thread grows */
	char path[4200];	/* to reopen it if the program closed our descriptor */
} grow = { .fd = -1 };

void (*fxtp_grow_on_step)(void);

int fxtp_grow_attach(int fd, const char *path, int extends)
{
	fxtp_grow_detach();
	int high = fxtp_fd_dup_high(fd);	/* fd stays the caller's */
	struct stat st;
	if (high < 0 || fstat(high, &st) < 0) {
		if (high >= 0)
			close(high);
		return -errno;
	}
	grow.fd = high;
	fxtp_fd_keep(&grow.fd);	/* a daemon closing every descriptor keeps it */
	grow.ino = st.st_ino;
	grow.extends = extends;
	grow.err = 0;
	grow.lock = 0;
	snprintf(grow.path, sizeof(grow.path), "%s", path);
	return 0;
}

void fxtp_grow_detach(void)
{
	fxtp_fd_close(&grow.fd);
	grow.err = 0;
}

int fxtp_grow_fd(void)
{
	struct stat st;
	if (grow.fd >= 0 && fstat(grow.fd, &st) == 0 && st.st_ino == grow.ino)
		return grow.fd;
	/* The program closed (and maybe reused) our descriptor: reopen the file we made. */
	int fd = open(grow.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_ino != grow.ino) {
		close(fd);
		return -1;
	}
	int high = fxtp_fd_high(fd);
	fxtp_fd_release(&grow.fd);
	grow.fd = high;
	fxtp_fd_keep(&grow.fd);
	return high;
}

/* Reserves [from, to) of the file. 0 or -errno. */
static int reserve(uint64_t from, uint64_t to)
{
	int fd = fxtp_grow_fd();
	if (fd < 0)
		return -EBADF;
	/* Past RLIMIT_FSIZE the kernel would send the program SIGXFSZ: refuse the step instead. */
	struct rlimit lim;
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    to > (uint64_t)lim.rlim_cur)
		return -EFBIG;
	int rc;
	do
		rc = fallocate(fd, 0, (off_t)from, (off_t)(to - from));
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	/* No fallocate here (some file systems): the size alone, pages allocated as written. */
	struct stat st;
	if (!grow.extends || (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= to))
		return 0;
	return ftruncate(fd, (off_t)to) < 0 ? -errno : 0;
}

/* Grows the area whose backed end is *backed (limit: its end in the mapping) to cover end, a
 * step ahead: the step doubles with what the area already holds (from `base`), from MIN_STEP
 * to GROW_STEP, so a short process reserves little. The step is reserved and populated before
 * it is published, and a chunk below `backed` is never populated again once its writer gave
 * its pages back (standalone.c). */
/* 1 while this thread holds grow.lock: a signal handler running on it (which takes chunks of
 * its own) must not wait for the code it interrupted. */
static __thread __attribute__((tls_model("initial-exec"))) int holding;

/* Publishes a new backed end: only ever raised (a nested grower may publish first). */
static void publish(_Atomic uint64_t *backed_p, uint64_t to)
{
	uint64_t cur = __atomic_load_n(backed_p, __ATOMIC_RELAXED);
	while (cur < to && !__atomic_compare_exchange_n(backed_p, &cur, to, 0, __ATOMIC_RELEASE,
						       __ATOMIC_RELAXED))
		;
}

static int grow_area(struct fxt_buf *b, _Atomic uint64_t *backed_p, uint64_t base,
		     uint64_t limit, uint64_t end)
{
	if (end > limit)
		return -ENOSPC;
	int locked = 0;
	for (;;) {
		uint64_t backed = __atomic_load_n(backed_p, __ATOMIC_ACQUIRE);
		if (end + step_for(end - base) <= backed || backed >= limit)
			return end <= backed ? 0 : -ENOSPC;
		if (holding)
			break;	/* a handler on the growing thread: grow here, without the lock */
		if (!__atomic_exchange_n(&grow.lock, 1, __ATOMIC_ACQUIRE)) {
			locked = holding = 1;
			break;
		}
		if (end <= backed)
			return 0;	/* another thread grows ahead; this record is backed */
		if (__atomic_load_n(&grow.err, __ATOMIC_RELAXED))
			return grow.err;
		sched_yield();	/* the grower may be off the CPU: let it run */
	}
	int saved = errno, rc = grow.err;
	uint64_t backed = __atomic_load_n(backed_p, __ATOMIC_RELAXED);
	/* the step doubles with what is used (end), not with what is backed: growing by the
	 * backed size made every reservation grow the area (2 MiB of strings for a few names) */
	uint64_t step = step_for(end - base);
	uint64_t to = end + 2 * step;
	if (to > limit)
		to = limit;
	if (!rc && to > backed && end + step > backed) {
		rc = reserve(backed, to);
		if (rc < 0 && end > backed && end < to) {
			to = end;	/* near a limit: what is asked for may still fit */
			rc = reserve(backed, to);
		}
		if (rc < 0) {
			grow.err = rc;
		} else {
			/* best effort: the pages fault on first write otherwise */
			madvise(b->base + backed, to - backed, MADV_POPULATE_WRITE);
			publish(backed_p, to);
		}
	}
	if (locked) {
		holding = 0;
		__atomic_store_n(&grow.lock, 0, __ATOMIC_RELEASE);
	}
	if (!rc && fxtp_grow_on_step)
		fxtp_grow_on_step();
	errno = saved;
	return end <= __atomic_load_n(backed_p, __ATOMIC_ACQUIRE) ? 0 : rc ? rc : -ENOSPC;
}

int fxtp_grow_back(struct fxt_buf *b, uint64_t end)
{
	struct fxt_buf_hdr *h = b->hdr;
	return grow_area(b, &h->backed, h->chunks_off, h->size, end);
}

int fxtp_grow_durable(struct fxt_buf *b, uint64_t end)
{
	struct fxt_buf_hdr *h = b->hdr;
	return grow_area(b, &h->durable_backed, h->durable_off, h->chunks_off, end);
}

int fxtp_grow_durable_all(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t from = __atomic_load_n(&h->durable_backed, __ATOMIC_ACQUIRE);
	if (!from || from >= h->chunks_off)
		return 0;
	int rc = reserve(from, h->chunks_off);	/* past a sticky error: the tail may still fit */
	if (!rc)
		__atomic_store_n(&h->durable_backed, h->chunks_off, __ATOMIC_RELEASE);
	return rc;
}

int fxtp_grow_initial(uint64_t end)
{
	return reserve(0, end);
}
