/* The connection to the trace manager (registry.sock) that the provider thread
 * (manager-link.c) opens and closes, and the one way others send on it: the triggers'
 * TRIGGERED. The number is kept with its inode, since the program may close it and reuse the
 * number for a file of its own. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/uplink.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>

struct fxtp_uplink fxtp_uplink = { .fd = -1 };

int fxtp_uplink_ours(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == fxtp_uplink.ino;
}

void fxtp_uplink_send(const void *msg, size_t size)
{
	int saved = errno;
	int fd = __atomic_load_n(&fxtp_uplink.fd, __ATOMIC_ACQUIRE);
	if (fxtp_uplink_ours(fd) && send(fd, msg, size, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the manager is gone: the provider thread sees it too */
	}
	errno = saved;
}
