/* /proc/<pid>/stat read once, for the managers (parent pid of a provider, start time of a
 * session's or the service's manager). Header-only, no state, no allocation. */
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

/* Start time of process pid (clock ticks after boot, /proc/<pid>/stat field 22): with the pid,
 * it names one process even after the pid is reused. Fails: 0. Thread-safe. */
static inline unsigned long long fxt_proc_start_time(int pid)
{
	char buf[1024];
	const char *e = fxt_proc_stat(pid, buf, sizeof(buf));
	unsigned long long t = 0;
	if (!e || sscanf(e, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				"%*d %*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

#endif
