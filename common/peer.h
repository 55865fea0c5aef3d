/* Who is at the other end of a unix socket (SO_PEERCRED), shared by the manager service
 * (launcher/manager/msg.c) and a registered provider (preload/transport/manager-link.c): each speaks
 * only to processes of its own user (common/registry.h). Header-only, no state; needs
 * _GNU_SOURCE (struct ucred) before the first system header. Async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_PEER_H
#define FXT_COMMON_PEER_H

#include <sys/socket.h>
#include <unistd.h>

/* 1 when the peer of fd runs as our user (then *pid, if pid, is its process id), else 0 (not
 * a unix socket, or another user). Thread-safe. */
static inline int fxt_peer_same_user(int fd, int *pid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred) ||
	    cred.uid != getuid())
		return 0;
	if (pid)
		*pid = cred.pid;
	return 1;
}

#endif
