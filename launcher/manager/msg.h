/* The service's packets on the wire (common/registry.h): sending or receiving one SOCK_SEQPACKET
 * packet with at most one file descriptor (SCM_RIGHTS), and the peer's credentials. Used by the
 * manager (launcher/service*.c), its clients (ctl.c) and the test providers; every received
 * packet is checked with fxt_msg_check() (common/registry.h) before it is used. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_MSG_H
#define FXT_LAUNCHER_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "common/registry.h"

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
