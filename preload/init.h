/* The life of the tracer in a process (init.c): the exit flush, the one stderr line, the
 * buffer of a process (constructor and fork child), the archive name, the clock stored in a
 * standalone file. Called from the wrappers, the signal paths and fork.c. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_INIT_H
#define FXT_PRELOAD_INIT_H

#include <stddef.h>

/* Stops tracing once, closes every open frame, writes the archive (tmp + rename). Async-signal-
 * safe when from_signal (skips nothing essential, takes no lock). Fails: silently (reports once
 * on stderr). Thread-safe: the first caller wins, later callers return at once. */
void fxtp_finish(int from_signal);
/* STOP (registry.c): ends the recording as the exit flush does (frames closed at the stop
 * time, drops counted, ticks per second, header state FXT_BUF_STOPPED), sampling and context
 * switches paused; the state stays STOPPING for the caller to retire the buffer and go IDLE.
 * Fails: -EALREADY (no buffer, or the exit flush won). Thread-safe as fxtp_finish. */
int fxtp_stop(void);
/* A stop trigger moved the state from `was` (RUNNING) to ARMED: closes every open frame of
 * the threads recording under it now (the buffer goes on). lock = 0 from a signal handler.
 * Fails: never. Async-signal-safe when !lock. */
void fxtp_pause(uint32_t was, int lock);
/* After a STOP: replaces the buffer's mapping by private memory (header and strings copied,
 * chunks zero, never faulting for a late hook), so the file's pages go once the manager is
 * done; the next buffer copies the strings from it. Fails: silently. Not thread-safe. */
void fxtp_retire_buffer(void);
/* Prints one "fxtauto: ..." line on stderr, keeping errno. Async-signal-safe. */
void fxtp_warn(const char *msg, const char *detail);
/* Sets up the buffer, output path and process record for pid (constructor and fork child).
 * Fails: -errno (tracing stays off). Not thread-safe. */
int fxtp_open_buffer(void);
/* The archive name of sequence number seq (fxtp_ctx.name_seq) for this pid, absolute, into buf.
 * Fails: never (cut to size). Async-signal-safe (no allocation). */
void fxtp_out_name(int seq, char *buf, size_t size);
/* Populates the header and the start of the durable area once per buffer, at the first thread's
 * setup (chunks are populated as the file grows: preload/grow.c).
 * Fails: silently (pages then fault in as used). Thread-safe. */
void fxtp_buffer_warm(void);

/* Stores the ticks-per-second measured so far and the clock reading it ends at in a standalone
 * archive file, so a killed run's file carries a calibrated clock (`fxt recover`).
 * Async-signal-safe. */
void fxtp_refresh_tps(void);

#endif
