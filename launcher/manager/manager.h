/* The trace manager of fxtrun and of the service's trace (the Fuchsia Tracing System Design,
 * "Transport Protocol"): accepts providers on the session socket (TRACE_PROVIDER_STARTED,
 * refusing unknown protocol versions), saves streaming rolling halves on
 * TRACE_PROVIDER_SAVE_BUFFER and answers TRACE_PROVIDER_BUFFER_SAVED, and at the end writes one
 * archive holding every provider's buffer. It only reads the buffers, never writes them; it
 * reads a chunk's records only up to the first zero or torn header and only while the chunk
 * keeps its sequence number. Single-threaded: one manager, one thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_MANAGER_H
#define FXT_LAUNCHER_MANAGER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/manager/stats.h"

struct fxt_manager;

/* A manager for the session in dir (buffers), writing the archive into out_fd (an empty file,
 * written from the first save on), listening on listen_fd (non-blocking). Both descriptors stay
 * owned by the caller. Fails: NULL with errno (ENOMEM, or the first write). Not thread-safe. */
struct fxt_manager *fxt_manager_new(const char *dir, int out_fd, int listen_fd);

/* How many pollfd entries fxt_manager_fds() writes now (the listening socket and the
 * connections). Fails: never. Not thread-safe. */
size_t fxt_manager_nfds(const struct fxt_manager *m);

/* Writes the pollfd entries of the manager's sockets into fds (fxt_manager_nfds() of them, some
 * with fd -1) and returns their number: a caller with other descriptors of its own polls them
 * all at once, then hands these entries, unchanged, to fxt_manager_handle(). Fails: never.
 * Not thread-safe. */
size_t fxt_manager_fds(const struct fxt_manager *m, struct pollfd *fds);

/* Handles the traffic poll() reported in fds (as filled by fxt_manager_fds(), with nothing done
 * to the manager in between): new connections, STARTED, SAVE_BUFFER, providers that ended.
 * Fails: never (a bad provider is refused or closed). Not thread-safe. */
void fxt_manager_handle(struct fxt_manager *m, const struct pollfd *fds, size_t n);

/* Saves ahead: each streaming provider whose writers took an eighth of a half of its chunks
 * since its last save gets its new records saved now, unasked and unacknowledged, so that the
 * SAVE_BUFFER of a full half finds little left to save and its writers wait for the
 * acknowledgement only when the manager truly cannot keep up. Returns the poll timeout to use
 * instead of timeout_ms (-1: none): 0 after a save (more may have come), else at most the time
 * to the next look while a streaming provider runs (1 ms, doubled while nothing comes, up to
 * 256 ms). Fails: never (a write error is the archive's, reported at its end). Not
 * thread-safe. */
int fxt_manager_ahead(struct fxt_manager *m, int timeout_ms);

/* Saves ahead (fxt_manager_ahead(), which may shorten the wait), waits up to timeout_ms for
 * provider traffic or for extra_fd (-1: none) to become readable, and handles the traffic.
 * Returns 1 if extra_fd is readable, 0 otherwise. Fails: -errno from poll (EINTR is 0). Not thread-safe. */
int fxt_manager_poll(struct fxt_manager *m, int extra_fd, int timeout_ms);

/* Ends the archive: every provider not finished yet (and buffers found in the session that never
 * said STARTED) gets its last records and drop report, then the file is flushed (the caller
 * closes and renames it). Per provider the archive holds provider info, section,
 * initialization, durable records, a process record with its parent, then sections of new
 * records as they were saved, and a buffer-full event with the dropped-records count.
 * Fails: -errno (I/O: a short write is an error). Not thread-safe. */
int fxt_manager_write(struct fxt_manager *m, struct fxt_manager_stats *st);

/* Bytes of the live buffers of process pid that hold records (durable area used plus chunks
 * taken, bounded by the layout) and the buffers' sizes. Returns 1 if pid has a live buffer, else
 * 0 (both 0). Fails: 0. Not thread-safe. */
int fxt_manager_usage(struct fxt_manager *m, int pid, uint64_t *used, uint64_t *size);

/* Writes into fd (an empty file, owned by the caller) an archive of what the live buffers hold
 * now, without disturbing the trace: every provider is read afresh with a saver state of its
 * own (the buffers are only read), events stamped after cutoff left out (0: none). Each
 * provider is reported as cut by the snapshot (its open calls are not ended there); providers that already ended
 * are in the trace's archive, not in the snapshot. st: what the snapshot holds.
 * Fails: -errno (I/O), -ENOMEM. Not thread-safe. */
int fxt_manager_snapshot(struct fxt_manager *m, int fd, uint64_t cutoff,
			 struct fxt_manager_stats *st);

/* Frees the manager and unmaps the buffers. Not thread-safe. */
void fxt_manager_free(struct fxt_manager *m);

#endif
