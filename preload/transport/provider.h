/* Provider side of the fxtrun protocol (common/protocol.h) inside libfxtauto.so: under a session
 * (FXT_SESSION set by fxtrun) each process's buffer is a shared file of the session directory,
 * announced to the manager with TRACE_PROVIDER_STARTED; circular and streaming modes install a
 * chunk policy (reuse of left chunks; two rolling halves saved by the manager on SAVE_BUFFER).
 * The archive is then written by fxtrun, not by the process. Called by buffer.c (constructor, fork child, START) with
 * the tracer guard held; the policy functions are async-signal-safe and lock-free. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_PROVIDER_H
#define FXT_PRELOAD_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "writer/buffer.h"

/* Makes this process's buffer when fxtrun manages the session: creates the session file
 * "<pid>.<n>.buf" (0600), maps it shared, lays the buffer out in the session's mode with its
 * policy and clock_start (writer/buffer.h) in its header, connects to the manager and sends
 * STARTED. The first call (constructor) reads the environment; under --no-follow it also
 * removes the tracer from LD_PRELOAD so children run untraced. Returns 1 (b and *map set), 0 (no session: the caller makes a standalone buffer),
 * -ECANCELED (a fork child under --no-follow: do not trace), or -errno.
 * Not thread-safe: constructor or fork child only. */
int fxtp_provider_open(struct fxt_buf *b, void **map, size_t size, uint64_t durable,
		       uint32_t chunk_size, struct fxt_clock_pair clock_start);

/* Why dir (FXT_SESSION) is not an fxtrun session directory: not a directory of ours with mode
 * 0700 holding the manager's socket (a stray FXT_SESSION=/tmp made buffer files there for no
 * one to read); NULL when it is. Fails: never. Thread-safe. */
const char *fxtp_provider_session_refused(const char *dir);

/* Notes in the fxtrun session that this process execs what without the tracer (its new image
 * is not traced: the summary names it); NULL withdraws the note (the exec failed). Returns 0
 * or -errno. Not thread-safe (the exec wrapper). */
int fxtp_provider_note_shed(const char *what);

/* The session of the next buffer when the manager service names it (START, manager-link.c),
 * instead of FXT_SESSION: its directory and mode. Fails: never. Not thread-safe (provider
 * thread, while no buffer exists). */
void fxtp_provider_session(const char *dir, enum fxt_buf_mode mode);

/* End of this process's part in the session (STOP, or its manager gone): closes the
 * connection to the session's manager, forgets the buffer file (remove: deletes it too, when
 * no manager will read it). The next buffer needs a new session. Fails: never. Not
 * thread-safe (provider thread). */
void fxtp_provider_end(int remove);

/* 1 if this process's buffer belongs to fxtrun (which writes the archive), else 0.
 * Thread-safe, async-signal-safe. */
int fxtp_provider_managed(void);

#endif
