/* /proc/<pid>/stat read once, for the manager (parent pid of a provider, start time of the
 * session's manager). Header-only, no state, no allocation. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_PROC_H
#define FXT_COMMON_PROC_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The fields of /proc/<pid>/stat after the command name (from field 3, the state), read into
 * buf (size bytes, NUL-terminated); the command name, which may hold spaces and ')', is
 * skipped up to its last ')'. Fails: NULL (no such process, unreadable, malformed).
 * Thread-safe. */
static inline const char *fxt_proc_stat(int pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	const char *e = strrchr(buf, ')');
	return e ? e + 1 : NULL;
}

#endif
