/* The tracer's descriptors kept above the program's (fd.h). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int fxtp_fd_high(int fd)
{
	if (fd < 0)
		return -1;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, FXTP_FD_MIN);
	int saved = errno;
	close(fd);
	errno = saved;
	return high;
}
