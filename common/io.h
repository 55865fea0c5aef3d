/* Writing a whole buffer to a file descriptor, shared by the preload (its one stderr line) and
 * the manager (archive, session files): retried after EINTR and after a partial write; a write
 * that makes no progress is an error (a full disk), never a silent short write.
 * Header-only, no state, no allocation; async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_IO_H
#define FXT_COMMON_IO_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* Writes len bytes of data to fd. Fails: -errno of write(2), or -EIO when a write returns 0;
 * what was written before stays written. Thread-safe (as write(2) on fd). */
static inline int fxt_write_all(int fd, const void *data, size_t len)
{
	const char *s = data;
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

#endif
