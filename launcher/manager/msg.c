/* The service's packets on the wire (msg.h): sending and receiving one packet with an optional
 * descriptor, and the peer's credentials (common/peer.h). Their checking is common/registry.c's. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/msg.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/peer.h"

int fxt_msg_send(int fd, const void *pkt, size_t len, int file)
{
	struct iovec iov = { .iov_base = (void *)pkt, .iov_len = len };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (file >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &file, sizeof(int));
	}
	ssize_t n;
	while ((n = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

long fxt_msg_recv(int fd, void *buf, size_t size, int *file)
{
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	if (file)
		*file = -1;
	ssize_t n;
	while ((n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	int kept = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (file && !kept++)
				*file = got;
			else
				close(got);
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (file && *file >= 0)
			close(*file);
		if (file)
			*file = -1;
		return -EMSGSIZE;
	}
	return (long)n;
}

int fxt_msg_peer_ok(int fd, int *pid)
{
	return fxt_peer_same_user(fd, pid);
}
