/* The tracer's own descriptors (sockets, inotify, the archive file) live at FXTP_FD_MIN and
 * above, close-on-exec, so that the program's own open() calls get the numbers they would get
 * untraced. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FD_H
#define FXT_PRELOAD_FD_H

#define FXTP_FD_MIN 64

/* fd moved to FXTP_FD_MIN or above, close-on-exec, the original closed. Fails: -1 (fd < 0, or
 * errno of fcntl; fd closed). Thread-safe, async-signal-safe. */
int fxtp_fd_high(int fd);

#endif
