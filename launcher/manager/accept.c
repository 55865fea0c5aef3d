/* Accepting connections when descriptors run out (accept.h). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/accept.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/grow.h"

int fxt_accept_reserve(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int fxt_accept(int listen_fd, int *reserve, void (*shed)(int fd, void *arg), void *arg)
{
	int fd;
	while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0 &&
	       errno == EINTR)
		;
	if (fd >= 0)
		return fd;
	int e = errno;
	if (e != EMFILE && e != ENFILE)
		return e == EWOULDBLOCK ? -EAGAIN : -e;
	if (*reserve < 0)
		return -EMFILE;
	close(*reserve);
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0) {
		if (shed)
			shed(fd, arg);
		close(fd);
	}
	*reserve = fxt_accept_reserve();
	return fd >= 0 ? -EMFILE : -EAGAIN;
}

int fxt_accepted_add(int **fds, size_t *n, size_t *cap, int fd)
{
	if (FXT_GROW(*fds, cap, *n + 1) < 0)
		return -ENOMEM;
	(*fds)[(*n)++] = fd;
	return 0;
}
