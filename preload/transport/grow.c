/* Backing the buffer as it is used: the buffer file (fxtrun's session file or the standalone
 * archive file) is reserved with fallocate ahead of the chunks taken, so a large buffer costs
 * what is written, not what is reserved, and a full file system refuses a chunk (counted as
 * dropped records) instead of killing the program with SIGBUS. The reserved pages are then
 * populated (MADV_POPULATE_WRITE) so the hot path does not fault.
 * Who grows: a tracer thread (the grower) keeps the backed end ahead of the chunks taken by
 * what the program writes in AHEAD_NS at the rate it observed, so in steady state a program
 * thread makes no syscall to take a chunk; it also runs the buffer's `behind` work (the
 * standalone file drops the pages of regions left behind). The grower holds the lock only to
 * reserve and publish (fallocate), and populates after: a taker never waits for its populate,
 * nor for it being off the CPU on a busy machine. A taker whose chunk the grower reserved but
 * has not populated yet populates that chunk itself; one whose chunk is not backed yet (the
 * disk or the grower cannot keep up, or its first look has not come) reserves a step ahead,
 * populates its own chunk and wakes the grower; with no grower (its thread could not start; a
 * fork child) it grows the file a step ahead; the chunk writer records such waits as tracer
 * stalls. One grower at a time (a flag taken by atomic exchange); the others wait only when
 * the chunk they took is not backed yet, except a signal handler on the growing thread, which
 * grows by itself (fallocate is idempotent, and the backed end is only ever raised).
 * Async-signal-safe (syscalls only) but fxtp_grow_start(); runs under the tracer guard. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/base/fd.h"
#include "preload/base/fxtp.h"
#include "preload/base/real.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#ifndef SYS_close_range
#define SYS_close_range 436 /* Linux 5.9 */
#endif
#define GROW_STEP (2u << 20)	/* bytes backed (and populated) per step, at most */
#define MIN_STEP (64u << 10)	/* the first steps: a short process reserves little */
#define POPULATE_STEP (256u << 10)	/* populated by the grower at a time */
#define RESERVE_STEP (256u << 10)	/* reserved by the grower under the lock at a time: on
					 * tmpfs a reservation allocates and zeroes the pages, and a
					 * taker waits for the lock (2 MiB held it about 1 ms) */

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
	ino_t ino;		/* its inode and device: the program may close our fd and reuse */
	dev_t dev;		/* the number */
	int extends;		/* fallocate extends the file (standalone); else its size is set */
	int err;		/* sticky: the file system refused once */
	int lock;		/* 1 while one thread grows */
	uint64_t page;		/* the page size */
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
	grow.dev = st.st_dev;
	grow.extends = extends;
	grow.page = (uint64_t)sysconf(_SC_PAGESIZE);
	grow.err = 0;
	grow.lock = 0;
	snprintf(grow.path, sizeof(grow.path), "%s", path);
	return 0;
}

void fxtp_grow_detach(void)
{
	fxtp_grow_stop();
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

/* Reserves [from, to) of the file through fd (fxtp_grow_fd(), or the grower's own). 0 or
 * -errno. */
static int reserve(int fd, uint64_t from, uint64_t to)
{
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

/* The grower thread's state. running: 1 from fxtp_grow_start() until the grower touches the
 * buffer no more (then it parks); pid: the process that started one (a fork child has none and
 * starts none); alive: its thread exists (joinable); broken: it could not have a descriptor
 * table of its own, so none serves in this process. */
static struct {
	struct fxt_buf *b;
	void (*behind)(struct fxt_buf *b);
	int stop;		/* futex word: 1 asks the grower to leave b */
	uint32_t gen;		/* futex word: bumped when a buffer is handed to it, or to end it */
	int running;
	int quit;		/* it ends at its next look (fxtp_grow_end) */
	uint64_t populated;	/* chunk area populated up to here by the grower (atomic) */
	int alive, broken;
	pid_t pid, tid;
	pthread_t th;
} ahead;

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

/* x rounded up to a whole page: steps end on page boundaries, so the next one's pages can be
 * populated (madvise refuses a start inside a page: every step of the grower failed to
 * populate once a rate-sized target had ended one mid-page). */
static uint64_t page_up(uint64_t x)
{
	uint64_t page = grow.page ? grow.page : 4096;
	return (x + page - 1) & ~(page - 1);
}

/* Populates the whole pages of [from, to) (best effort: they fault on first write otherwise). */
static void populate(struct fxt_buf *b, uint64_t from, uint64_t to)
{
	from = page_up(from);
	to &= ~(page_up(1) - 1);
	if (from < to)
		madvise(b->base + from, to - from, MADV_POPULATE_WRITE);
}

/* Zeroes written by the file's write path into the standalone file's reserved [from, to),
 * unpublished: no writer touches it yet. Populating a range of a disk file's reserved
 * (unwritten) blocks through the mapping takes the fault path page by page (a read of the
 * unwritten blocks, page_mkwrite, buffer heads: ext4 0.20 s of system time per 256 MiB);
 * written first, its pages are made in the page cache by the write path and the populate only
 * maps them (0.02-0.07 s). The pages would be dirtied by the records anyway. tmpfs (fxtrun's
 * session files) makes zeroed pages at the reservation: nothing to do there. A failed write
 * leaves the range to the populate, as before. The grower's only: every signal is blocked
 * there. A program thread growing can be interrupted by a handler that grows by itself and
 * writes its record in the range before the interrupted growth goes on (fallocate and the
 * populate leave data as it is; zeroes would not). */
static void zero_fill(int fd, uint64_t from, uint64_t to)
{
	static const char zeros[64 << 10];
	while (grow.extends && from < to) {
		size_t n = to - from < sizeof(zeros) ? (size_t)(to - from) : sizeof(zeros);
		ssize_t got = pwrite(fd, zeros, n, (off_t)from);
		if (got <= 0)
			return;
		from += (uint64_t)got;
	}
}

/* With grow.lock held: reserves [backed, to) through fd (on_grower: zero-filled, on the grower
 * thread), populates it (populated: the caller populates it after, outside the lock),
 * publishes it. 0 or -errno. */
static int extend(struct fxt_buf *b, int fd, _Atomic uint64_t *backed_p, uint64_t backed,
		  uint64_t to, int populated, int on_grower)
{
	int rc = reserve(fd, backed, to);
	if (rc < 0)
		return rc;
	if (on_grower)
		zero_fill(fd, backed, to);
	if (!populated)
		populate(b, backed, to);
	publish(backed_p, to);
	return 0;
}

/* Wakes the grower for a look now (it waits on ahead.stop between looks). */
static void nudge(void)
{
	syscall(SYS_futex, &ahead.stop, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Grows the area whose backed end is *backed (limit: its end in the mapping) to cover end.
 * While the grower runs, an end already backed is enough (it keeps the area ahead; a chunk it
 * has reserved but not populated yet, the taker populates itself: `chunk`, the size of what
 * ends at end, 0 in the durable area); else, or when end is not backed yet, this thread grows a
 * step ahead: the step doubles with what the area already holds (from `base`), from MIN_STEP
 * to GROW_STEP, so a short process reserves little. Without the grower (and in the durable
 * area) a taker's step is reserved and populated before it is published; with it, the taker
 * reserves and populates its own chunk only and wakes the grower, which grows and populates
 * the rest (populating a whole step on the program's thread stalled it 3-4 ms at each, and
 * reserving one on tmpfs 1-4 ms). A chunk
 * below `backed` is never populated again once its writer gave its pages back (standalone.c). */
static int grow_area(struct fxt_buf *b, _Atomic uint64_t *backed_p, uint64_t base,
		     uint64_t limit, uint64_t end, uint64_t chunk)
{
	if (end > limit)
		return -ENOSPC;
	int locked = 0, ahead_runs = __atomic_load_n(&ahead.running, __ATOMIC_RELAXED);
	for (;;) {
		uint64_t backed = __atomic_load_n(backed_p, __ATOMIC_ACQUIRE);
		if (end <= backed && ahead_runs) {
			if (chunk && end > __atomic_load_n(&ahead.populated, __ATOMIC_ACQUIRE))
				populate(b, end - chunk, end);	/* the grower is behind */
			return 0;
		}
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
	int by_grower = ahead_runs && chunk;	/* grows and populates past end */
	/* With the grower, only this chunk: a reservation allocates and zeroes the pages on
	 * tmpfs (fxtrun's session files), and 4 MiB of it held a taker 1-4 ms. */
	uint64_t to = page_up(by_grower ? end : end + 2 * step);
	if (to > limit)
		to = limit;
	if (!rc && to > backed && end + step > backed) {
		int fd = fxtp_grow_fd();
		rc = extend(b, fd, backed_p, backed, to, by_grower, 0);
		if (rc < 0 && end > backed && end < to)
			rc = extend(b, fd, backed_p, backed, end, by_grower, 0);	/* near a limit */
		if (rc < 0)
			grow.err = rc;
	}
	if (locked) {
		holding = 0;
		__atomic_store_n(&grow.lock, 0, __ATOMIC_RELEASE);
	}
	if (!rc && by_grower && end <= __atomic_load_n(backed_p, __ATOMIC_ACQUIRE)) {
		populate(b, end - chunk, end);
		nudge();
	}
	if (!rc && fxtp_grow_on_step)
		fxtp_grow_on_step();
	errno = saved;
	return end <= __atomic_load_n(backed_p, __ATOMIC_ACQUIRE) ? 0 : rc ? rc : -ENOSPC;
}

/* ---- the grower thread ---- */

#define AHEAD_NS 50000000ULL	/* kept backed ahead: what the program writes in 50 ms */
#define AHEAD_MIN (256u << 10)	/* ... and at least this, */
#define AHEAD_MAX (32u << 20)	/* at most this (populated pages count in the process's RSS) */
#define DURABLE_AHEAD (64u << 10)
#define TICK_NS 2000000L	/* between looks while chunks are taken; doubled while idle */
#define TICK_MAX_NS 64000000L

/* The grower raises *backed_p to target (at most limit), then populates what it reserved. Each
 * RESERVE_STEP is reserved and published under the lock (a fallocate: a taker waits for no
 * populate of the grower's, nor for the grower being off the CPU in one), all of them before
 * any populate: a taker finding its chunk reserved only populates that chunk, where one that
 * found it unreserved while the grower populated (reserving a step, populating a step) grew
 * the file itself. The chunk area is populated from the first chunk not taken yet (those
 * taken are their writers' to populate) POPULATE_STEP at a time, each published in
 * `populated` (takers close behind populate less themselves, and a stop waits for one piece
 * at most), running the buffer's `behind` work after each: a look that populates a whole
 * target on a busy machine kept the regions left meanwhile in the process (peak RSS 101 MB
 * for 64 MB before). Returns 1 when it should keep going, 0 when the file system refused (the takers
 * then grow by themselves, near a limit a step at a time, and meet the error). */
static int grow_to(struct fxt_buf *b, int fd, _Atomic uint64_t *backed_p, uint64_t limit,
		   uint64_t target)
{
	struct fxt_buf_hdr *h = b->hdr;
	int chunks = backed_p == &h->backed, rc = 0;
	uint64_t first = __atomic_load_n(backed_p, __ATOMIC_ACQUIRE);	/* durable: populated */
	target = page_up(target);
	if (target > limit)
		target = limit;
	while (!rc && __atomic_load_n(backed_p, __ATOMIC_ACQUIRE) < target &&
	       !__atomic_load_n(&ahead.stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_exchange_n(&grow.lock, 1, __ATOMIC_ACQUIRE))
			break;	/* a taker grows: populate what is reserved, look again next tick */
		uint64_t backed = __atomic_load_n(backed_p, __ATOMIC_RELAXED);
		uint64_t to = target - backed > RESERVE_STEP ? backed + RESERVE_STEP : target;
		rc = grow.err;
		if (!rc && backed < to)
			rc = extend(b, fd, backed_p, backed, to, 1, 1);
		__atomic_store_n(&grow.lock, 0, __ATOMIC_RELEASE);
	}
	uint64_t backed = __atomic_load_n(backed_p, __ATOMIC_ACQUIRE);
	if (!chunks) {
		populate(b, first, backed);
	} else {
		for (;;) {
			uint64_t done = __atomic_load_n(&ahead.populated, __ATOMIC_RELAXED);
			uint64_t untaken = h->chunks_off +
					   atomic_load_explicit(&h->next_chunk, memory_order_relaxed) *
						   h->chunk_size;
			uint64_t from = untaken > done ? untaken : done;
			if (from >= backed || __atomic_load_n(&ahead.stop, __ATOMIC_ACQUIRE))
				break;
			uint64_t to = backed - from > POPULATE_STEP ? from + POPULATE_STEP : backed;
			populate(b, from, to);
			__atomic_store_n(&ahead.populated, to, __ATOMIC_RELEASE);
			if (ahead.behind)
				ahead.behind(b);	/* what is left behind meanwhile leaves too */
		}
	}
	if (backed > first && fxtp_grow_on_step)
		fxtp_grow_on_step();
	return rc >= 0;
}

/* The buffer file opened anew in the grower's own descriptor table, or -1: not there any more
 * (or another file took its name). */
static int open_own(void)
{
	struct stat st;
	int fd = open(grow.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != grow.ino || st.st_dev != grow.dev)) {
		syscall(SYS_close, fd);
		fd = -1;
	}
	return fd;
}

/* Keeps b backed ahead until asked to stop (or, with no `behind` work, once all of b is),
 * through fd, its own descriptor of b's file. */
static void serve(struct fxt_buf *b, int fd)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t t_was = fxt_mono_ns(), n_was = 0, rate = 0;	/* rate: bytes per second */
	long tick = TICK_NS;
	int growing = 1;
	while (!__atomic_load_n(&ahead.stop, __ATOMIC_ACQUIRE)) {
		uint64_t n = atomic_load_explicit(&h->next_chunk, memory_order_relaxed);
		uint64_t t = fxt_mono_ns(), dt = t - t_was ? t - t_was : 1;
		uint64_t bytes = (n - n_was) * h->chunk_size;
		/* The rate of the last tick, or the earlier one decaying by a quarter per tick. */
		uint64_t now_rate = (uint64_t)((unsigned __int128)bytes * 1000000000ULL / dt);
		rate = now_rate > rate - rate / 4 ? now_rate : rate - rate / 4;
		uint64_t more = (uint64_t)((unsigned __int128)rate * AHEAD_NS / 1000000000ULL);
		more = more < AHEAD_MIN ? AHEAD_MIN : more > AHEAD_MAX ? AHEAD_MAX : more;
		if (growing && n)
			growing = grow_to(b, fd, &h->backed, h->size,
					  h->chunks_off + n * h->chunk_size + more);
		uint64_t used = atomic_load_explicit(&h->durable_used, memory_order_relaxed);
		if (growing && __atomic_load_n(&h->durable_backed, __ATOMIC_RELAXED))
			growing = grow_to(b, fd, &h->durable_backed, h->chunks_off,
					  h->durable_off + used + DURABLE_AHEAD);
		if (ahead.behind)
			ahead.behind(b);
		else if (!growing || (__atomic_load_n(&h->backed, __ATOMIC_RELAXED) >= h->size &&
				      __atomic_load_n(&h->durable_backed, __ATOMIC_RELAXED) >=
					      h->chunks_off))
			return;	/* nothing left to do */
		tick = n != n_was ? TICK_NS : tick * 2 > TICK_MAX_NS ? TICK_MAX_NS : tick * 2;
		t_was = t;
		n_was = n;
		struct timespec ts = { 0, tick };
		syscall(SYS_futex, &ahead.stop, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	}
}

/* The grower thread: serves each buffer fxtp_grow_start() hands it, and between two waits
 * (parked), until fxtp_grow_end(): it does not end between buffers, as a thread started in a
 * fork child's handler must not (a sanitizer runtime whose own fork handlers run after ours
 * cannot tear it down). It has a descriptor table of its own, emptied, holding only its
 * descriptor of the buffer file: the program's dup2, close and open never meet it (a daemon's
 * dup2 of /dev/null over a shared number made its fallocate fail with ENODEV, and its opens
 * raced the program's dup2, which failed with EBUSY), and it keeps none of the program's files
 * open. Without one (unshare or close_range refused) no grower serves in this process. */
static void *grower(void *arg)
{
	(void)arg;
	/* No guard needed: it runs no instrumented code and calls no wrapped function (its
	 * descriptors are closed with the system call: close() is fd.c's wrapper). */
	if (unshare(CLONE_FILES) < 0 || syscall(SYS_close_range, 0U, ~0U, 0) < 0)
		__atomic_store_n(&ahead.broken, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&ahead.tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		uint32_t gen = __atomic_load_n(&ahead.gen, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ahead.quit, __ATOMIC_ACQUIRE))
			return NULL;
		if (__atomic_load_n(&ahead.running, __ATOMIC_ACQUIRE)) {
			int fd = __atomic_load_n(&ahead.broken, __ATOMIC_ACQUIRE) ? -1 : open_own();
			if (fd >= 0) {
				serve(ahead.b, fd);
				syscall(SYS_close, fd);
			}
			__atomic_store_n(&ahead.running, 0, __ATOMIC_RELEASE);	/* b untouched after */
		}
		syscall(SYS_futex, &ahead.gen, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
	}
}

/* Hands the parked grower a new state (a buffer, or the end) and wakes it. */
static void wake(void)
{
	__atomic_add_fetch(&ahead.gen, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &ahead.gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void fxtp_grow_start(struct fxt_buf *b, void (*behind)(struct fxt_buf *b))
{
	fxtp_grow_stop();
	if ((ahead.pid && ahead.pid != getpid()) || __atomic_load_n(&ahead.broken, __ATOMIC_ACQUIRE))
		return;	/* a fork child (called from its fork handler): its takers grow, no thread
			 * is started there (a sanitizer's own fork handlers may not have run yet) */
	ahead.b = b;
	ahead.behind = behind;
	ahead.stop = 0;
	__atomic_store_n(&ahead.populated, b->hdr->backed, __ATOMIC_RELEASE);
	__atomic_store_n(&ahead.running, 1, __ATOMIC_RELEASE);
	if (ahead.alive) {	/* parked in this process: it takes b */
		wake();
		return;
	}
	ahead.tid = 0;
	ahead.quit = 0;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* the program's signals are not its */
	fxtp_real_init();
	int rc = fxtp_real.pthread_create ? fxtp_real.pthread_create(&ahead.th, NULL, grower, NULL)
					  : ENOSYS;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		__atomic_store_n(&ahead.running, 0, __ATOMIC_RELEASE);	/* takers grow */
		return;
	}
	ahead.pid = getpid();
	ahead.alive = 1;
	fxtp_await_tid(&ahead.tid);
}

void fxtp_grow_stop(void)
{
	if (!__atomic_load_n(&ahead.running, __ATOMIC_ACQUIRE))
		return;
	if (ahead.pid != getpid()) {
		/* A fork child: the grower is its parent's, and so is the lock if it held it. */
		ahead.running = 0;
		grow.lock = 0;
		return;
	}
	int saved = errno;
	__atomic_store_n(&ahead.stop, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &ahead.stop, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	/* It parks within one populate of POPULATE_STEP; bounded anyway (5 s). */
	for (int i = 0; i < 50000 && __atomic_load_n(&ahead.running, __ATOMIC_ACQUIRE); i++) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	errno = saved;
}

void fxtp_grow_end(void)
{
	if (!ahead.alive || ahead.pid != getpid())
		return;	/* none, or a fork child's copy of the parent's state */
	int saved = errno;
	fxtp_grow_stop();
	__atomic_store_n(&ahead.quit, 1, __ATOMIC_RELEASE);
	wake();
	fxtp_real_init();
	if (fxtp_real.pthread_join)
		fxtp_real.pthread_join(ahead.th, NULL);
	ahead.alive = 0;
	__atomic_store_n(&ahead.tid, 0, __ATOMIC_RELEASE);
	errno = saved;
}

int fxtp_grow_ahead(void)
{
	return __atomic_load_n(&ahead.running, __ATOMIC_RELAXED);
}

pid_t fxtp_grow_thread(void)
{
	return __atomic_load_n(&ahead.tid, __ATOMIC_ACQUIRE);
}

int fxtp_grow_back(struct fxt_buf *b, uint64_t end)
{
	struct fxt_buf_hdr *h = b->hdr;
	return grow_area(b, &h->backed, h->chunks_off, h->size, end, h->chunk_size);
}

int fxtp_grow_durable(struct fxt_buf *b, uint64_t end)
{
	struct fxt_buf_hdr *h = b->hdr;
	return grow_area(b, &h->durable_backed, h->durable_off, h->chunks_off, end, 0);
}

int fxtp_grow_durable_all(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint64_t from = __atomic_load_n(&h->durable_backed, __ATOMIC_ACQUIRE);
	if (!from || from >= h->chunks_off)
		return 0;
	/* past a sticky error: the tail may still fit */
	int rc = reserve(fxtp_grow_fd(), from, h->chunks_off);
	if (!rc)
		__atomic_store_n(&h->durable_backed, h->chunks_off, __ATOMIC_RELEASE);
	return rc;
}

int fxtp_grow_initial(uint64_t end)
{
	return reserve(fxtp_grow_fd(), 0, end);
}
