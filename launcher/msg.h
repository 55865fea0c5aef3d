/* The service's packets on the wire (common/registry.h): vetting a received packet exactly as
 * the contract says, and sending or receiving one SOCK_SEQPACKET packet with at most one file
 * descriptor (SCM_RIGHTS). Used by the manager (launcher/service*.c), its clients (ctl.c) and
 * the test providers. Vetting is pure (no I/O, no allocation): the fuzzer feeds it directly. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_MSG_H
#define FXT_LAUNCHER_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "common/registry.h"

/* Who sent the packet: each side accepts only the types its peer may send. */
enum fxt_msg_from {
	FXT_FROM_PROVIDER = 0,	/* registry socket, at the manager: HELLO, STOPPED, TRIGGERED */
	FXT_FROM_CLIENT = 1,	/* control socket, at the manager: LIST, TRACE, END */
	FXT_FROM_REGISTRY = 2,	/* registry socket, at a provider: START, STOP */
	FXT_FROM_CONTROL = 3,	/* control socket, at a client: LIST_REPLY, REPLY */
};

/* Checks the packet pkt (len bytes, 8-byte aligned) from `from`: the header's size is len and
 * its version FXT_REGISTRY_VERSION, the type is one that sender may send, the size is exactly
 * what the type's body and counts say, reserved fields are zero, enumerations are in range and
 * every string is NUL-terminated within its field. Returns the type, or -EBADMSG with *why
 * (may be NULL) saying what is wrong. Fails: -EBADMSG. Thread-safe, no I/O. */
int fxt_msg_vet(const void *pkt, size_t len, enum fxt_msg_from from, const char **why);

/* Fills a packet header. Fails: never. Thread-safe. */
static inline struct fxt_msg fxt_msg_hdr(enum fxt_msg_type type, size_t size)
{
	return (struct fxt_msg){ .type = (uint16_t)type, .version = FXT_REGISTRY_VERSION,
				 .size = (uint32_t)size };
}

/* Sends the packet (len bytes) on fd, with file descriptor file unless it is -1. Never raises
 * SIGPIPE; waits for room unless fd is non-blocking. Fails: -errno (-EAGAIN when a
 * non-blocking peer's queue is full). Thread-safe. */
int fxt_msg_send(int fd, const void *pkt, size_t len, int file);

/* Receives one packet from fd into buf (size bytes, 8-aligned, FXT_MSG_MAX for any packet).
 * A descriptor passed with it goes to *file (cloexec) when file is not NULL, else is closed;
 * *file is -1 when none came. Extra descriptors are closed. Returns the packet's length,
 * 0 at end of connection. Fails: -errno of recvmsg (-EAGAIN: nothing yet), -EMSGSIZE (a packet
 * larger than size, or cut descriptors: refused). Thread-safe. */
long fxt_msg_recv(int fd, void *buf, size_t size, int *file);

/* Whether the peer of connected socket fd runs as our user; its pid goes to *pid (may be NULL).
 * Fails: 0. Thread-safe. */
int fxt_msg_peer_ok(int fd, int *pid);

#endif
