/* The tracer's descriptors kept above the program's, and kept open against a daemon's closing
 * and overwriting of every descriptor (fd.h): the wrappers of close, dup2, dup3, close_range and
 * closefrom. Invariant: a kept descriptor is closed only by fxtp_fd_close (the tracer), never
 * by the program through these functions; one the program overwrites with dup2/dup3 is moved
 * first. The table is a fixed array of slot pointers, lock-free (atomics), so the wrappers are
 * async-signal-safe like the functions they wrap. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/base/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/io.h"
#include "preload/base/fxtp.h"
#include "preload/base/real.h"

/* Says once per process image that the tracer's descriptors take low numbers. */
static void say_low(void)
{
	static int said;
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	struct rlimit r;
	char line[200];
	int n = snprintf(line, sizeof(line), "fxtauto: RLIMIT_NOFILE is %llu, below %d: the "
			 "tracer's descriptors take the lowest free numbers (the program's own may "
			 "differ from an untraced run)\n",
			 getrlimit(RLIMIT_NOFILE, &r) == 0 ? (unsigned long long)r.rlim_cur : 0ULL,
			 FXTP_FD_MIN);
	if (n > 0 && fxt_write_all(2, line, (size_t)n < sizeof(line) ? (size_t)n
								   : sizeof(line) - 1) < 0) {
		/* stderr is gone: nothing more to do */
	}
}

int fxtp_fd_dup_high(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, FXTP_FD_MIN);
	if (high < 0 && errno == EINVAL) {	/* RLIMIT_NOFILE <= FXTP_FD_MIN */
		high = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (high >= 0)
			say_low();
	}
	return high;
}

int fxtp_fd_high(int fd)
{
	if (fd < 0)
		return -1;
	int high = fxtp_fd_dup_high(fd);
	int saved = errno;
	close(fd);
	errno = saved;
	return high;
}

/* ---- the kept descriptors ---- */

#define KEPT_MAX 512	/* the session socket, the eventfd, one perf ring per CPU */

static int *kept[KEPT_MAX];	/* owners' variables, NULL: free entry (atomic) */
static unsigned kept_hi;	/* entries [0, kept_hi) were ever used (atomic) */

int fxtp_fd_keep(int *slot)
{
	for (unsigned i = 0; i < KEPT_MAX; i++) {
		int *none = NULL;
		if (__atomic_compare_exchange_n(&kept[i], &none, slot, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			unsigned hi = __atomic_load_n(&kept_hi, __ATOMIC_RELAXED);
			while (hi < i + 1 &&
			       !__atomic_compare_exchange_n(&kept_hi, &hi, i + 1, 0, __ATOMIC_ACQ_REL,
							    __ATOMIC_RELAXED))
				;
			return 0;
		}
	}
	return -1;
}

void fxtp_fd_release(int *slot)
{
	unsigned hi = __atomic_load_n(&kept_hi, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < hi; i++) {
		int *s = slot;
		__atomic_compare_exchange_n(&kept[i], &s, NULL, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
	}
}

void fxtp_fd_close(int *slot)
{
	fxtp_fd_release(slot);
	int fd = __atomic_exchange_n(slot, -1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
}

/* The owner's variable holding fd if it is kept, else NULL. */
static int *kept_slot(int fd)
{
	unsigned hi = __atomic_load_n(&kept_hi, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; fd >= 0 && i < hi; i++) {
		int *s = __atomic_load_n(&kept[i], __ATOMIC_ACQUIRE);
		if (s && __atomic_load_n(s, __ATOMIC_ACQUIRE) == fd)
			return s;
	}
	return NULL;
}

/* The lowest kept descriptor in [from, to], or -1. */
static int kept_next(unsigned from, unsigned to)
{
	unsigned hi = __atomic_load_n(&kept_hi, __ATOMIC_ACQUIRE);
	int low = -1;
	for (unsigned i = 0; i < hi; i++) {
		int *s = __atomic_load_n(&kept[i], __ATOMIC_ACQUIRE);
		int fd = s ? __atomic_load_n(s, __ATOMIC_ACQUIRE) : -1;
		if (fd >= 0 && (unsigned)fd >= from && (unsigned)fd <= to && (low < 0 || fd < low))
			low = fd;
	}
	return low;
}

/* Before the program's dup2/dup3 onto fd: a kept fd moves to another number (its owner's
 * variable follows), so the program's call replaces only the number. Returns 1 when it could
 * not move (no descriptor free: a daemon overwriting every number up to its limit): the
 * program's call then leaves ours in place, as its close would. */
static int move_away(int fd)
{
	int *s = kept_slot(fd);
	if (!s)
		return 0;
	int saved = errno;
	int moved = fxtp_fd_dup_high(fd);
	if (moved >= 0 &&
	    !__atomic_compare_exchange_n(s, &fd, moved, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		fxtp_real.close(moved);	/* its owner closed or moved it meanwhile */
		moved = 0;
	}
	errno = saved;
	return moved < 0;
}

#define REAL(fn) (fxtp_real_init(), fxtp_real.fn)

FXTP_EXPORT int close(int fd)
{
	if (!REAL(close)) {
		errno = ENOSYS;
		return -1;
	}
	return kept_slot(fd) ? 0 : fxtp_real.close(fd);
}

FXTP_EXPORT int dup2(int old, int fd)
{
	if (!REAL(dup2)) {
		errno = ENOSYS;
		return -1;
	}
	if (old != fd && fcntl(old, F_GETFD) >= 0 && move_away(fd))
		return fd;
	return fxtp_real.dup2(old, fd);
}

FXTP_EXPORT int dup3(int old, int fd, int flags)
{
	if (!REAL(dup3)) {
		errno = ENOSYS;
		return -1;
	}
	if (old != fd && fcntl(old, F_GETFD) >= 0 && move_away(fd))
		return fd;
	return fxtp_real.dup3(old, fd, flags);
}

/* close_range over [first, last] around the kept descriptors: the real call on each gap. */
FXTP_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (!REAL(close_range)) {
		errno = ENOSYS;
		return -1;
	}
	if (first > last || (flags & CLOSE_RANGE_CLOEXEC))	/* ours are close-on-exec */
		return fxtp_real.close_range(first, last, flags);
	for (int k; first <= last && (k = kept_next(first, last)) >= 0; first = (unsigned)k + 1) {
		if ((unsigned)k > first && fxtp_real.close_range(first, (unsigned)k - 1, flags) < 0)
			return -1;
		if ((unsigned)k == UINT_MAX)
			return 0;
	}
	return first <= last ? fxtp_real.close_range(first, last, flags) : 0;
}

FXTP_EXPORT void closefrom(int low)
{
	if (!REAL(closefrom))
		return;
	if (low < 0)
		low = 0;
	int k;
	while ((k = kept_next((unsigned)low, INT_MAX)) >= 0) {
		for (; low < k; low++)	/* below a kept one: few, and close_range may be absent */
			if (!kept_slot(low))
				fxtp_real.close(low);
		low = k + 1;
	}
	fxtp_real.closefrom(low);
}
