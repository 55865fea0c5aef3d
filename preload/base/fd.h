/* The tracer's own descriptors (sockets, eventfd, perf rings, the archive file) live at
 * FXTP_FD_MIN and above, close-on-exec, so that the program's own open() calls get the numbers
 * they would get untraced. The ones the tracer needs for the whole run are "kept": a daemon's
 * close() of every descriptor (close, close_range, closefrom) leaves them open, its dup2()/dup3()
 * over one moves ours to another number first (the owner's variable is updated; when no number
 * is free, the dup2 leaves ours in place as close does), so a daemon's trace stays whole. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FD_H
#define FXT_PRELOAD_FD_H

#define FXTP_FD_MIN 64

/* A close-on-exec duplicate of fd at FXTP_FD_MIN or above; when RLIMIT_NOFILE is lower, at the
 * lowest free number, said once on stderr (a forked child is traced all the same). Fails: -1
 * (errno of fcntl). Thread-safe, async-signal-safe. */
int fxtp_fd_dup_high(int fd);

/* fd moved as fxtp_fd_dup_high moves it, the original closed. Fails: -1 (fd < 0, or errno of
 * fcntl; fd closed). Thread-safe, async-signal-safe. */
int fxtp_fd_high(int fd);

/* Keeps the descriptor in *slot (the owner's variable, read by the owner when it uses it):
 * until fxtp_fd_release/fxtp_fd_close, the program's close of it succeeds without closing it
 * and its dup2/dup3 over it first moves ours elsewhere, storing the new number in *slot
 * (atomically). slot stays valid until released. Returns 0, or -1 when the table is full (the
 * descriptor then is the program's to close, as before). Thread-safe, async-signal-safe. */
int fxtp_fd_keep(int *slot);

/* Stops keeping *slot (no close). Thread-safe, async-signal-safe. */
void fxtp_fd_release(int *slot);

/* Stops keeping *slot, closes it (if >= 0) and sets it to -1. */
void fxtp_fd_close(int *slot);

#endif
