/* The contract between the trace manager (fxtrun, launcher/manager/manager.c) and each provider (the
 * preload, preload/transport/provider.c): the environment fxtrun sets, the session directory layout, the
 * FIFO packets of the Fuchsia Tracing System Design ("Trace Manager/Provider FIFO Protocol")
 * carried over an AF_UNIX SOCK_SEQPACKET connection (the buffer itself, word 0 of chunks included,
 * is writer/buffer.h's contract). Both sides include this header; a change here bumps the protocol
 * version. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_PROTOCOL_H
#define FXT_COMMON_PROTOCOL_H

#include <stdint.h>

/* Environment set by fxtrun for every process of the traced tree. */
#define FXT_ENV_SESSION "FXT_SESSION"	/* session directory (0700): buffers and socket */
#define FXT_ENV_MODE "FXT_MODE"		/* oneshot | circular | streaming */
#define FXT_ENV_NO_FOLLOW "FXT_NO_FOLLOW" /* "1": only the first process is traced */

/* In the session directory: the manager's listening socket, and one buffer file per provider,
 * "<pid>.<n>.buf" (n = 0, 1, ...: an exec'd image of the same pid takes the next n), 0600. */
#define FXT_SESSION_SOCKET "manager.sock"
#define FXT_SESSION_MANAGER "manager.pid"	/* "<pid> <start time>" of fxtrun (stale check) */
#define FXT_SESSION_ARCHIVE "archive"	/* "<dev> <ino> <path>" of the archive being written */
#define FXT_SESSION_UNTRACED_SUFFIX ".untraced" /* "<pid>.untraced": that process runs untraced;
						 * holds "<errno> <program>\n" (it could not get
						 * a buffer) or "shed <path>\n" (it exec'd path
						 * without the preload) */
#define FXT_SESSION_BUF_FMT "%d.%u.buf"

/* The Fuchsia Tracing System Design, "FIFO packets": fixed-size packets, one per SEQPACKET
 * message. */
typedef struct trace_provider_packet {
	uint16_t request;	/* TRACE_PROVIDER_* */
	uint16_t reserved;	/* must be zero */
	uint32_t data32;
	uint64_t data64;
} trace_provider_packet_t;

_Static_assert(sizeof(trace_provider_packet_t) == 16, "packet is 16 bytes");

#define TRACE_PROVIDER_FIFO_PROTOCOL_VERSION 1u

enum trace_provider_request {
	/* provider -> manager: data32 = protocol version; data64 = n << 32 | pid, naming the
	 * buffer file FXT_SESSION_BUF_FMT. A version the manager does not know: it closes the
	 * connection and ignores the provider's buffer. */
	TRACE_PROVIDER_STARTED = 0x1,
	/* provider -> manager (streaming): rolling half (data32 & 1) is full; data32 = wrap count
	 * of the half that filled, data64 = end of the durable data. One outstanding at a time:
	 * the provider's writers wait for its BUFFER_SAVED before they reuse that half. */
	TRACE_PROVIDER_SAVE_BUFFER = 0x2,
	/* manager -> provider (streaming): the request with the same data32/data64 is saved. */
	TRACE_PROVIDER_BUFFER_SAVED = 0x100,
};

#endif
