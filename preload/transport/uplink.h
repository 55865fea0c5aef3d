/* The connection to the trace manager (uplink.c): set by the provider thread (manager-link.c),
 * sent on by the triggers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_UPLINK_H
#define FXT_PRELOAD_UPLINK_H

#include <stddef.h>
#include <sys/types.h>

struct fxtp_uplink {
	int fd;		/* the registry connection, -1: none (release-stored) */
	ino_t ino;	/* its inode: the program may close and reuse the number */
};
extern struct fxtp_uplink fxtp_uplink;

/* Whether fd is still the connection (same inode). Async-signal-safe. */
int fxtp_uplink_ours(int fd);
/* Sends one message (TRIGGERED) on the connection, if there is one; never blocks, keeps errno.
 * Fails: silently (no manager). Async-signal-safe, thread-safe. */
void fxtp_uplink_send(const void *msg, size_t size);

#endif
