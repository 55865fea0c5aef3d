/* The buffer of a process (buffer.c): opened, warmed, retired. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_BUFFER_H
#define FXT_PRELOAD_BUFFER_H

/* Sets up the buffer, output path and process record for pid (constructor and fork child).
 * Fails: -errno (tracing stays off). Not thread-safe. */
int fxtp_open_buffer(void);
/* After a STOP: replaces the buffer's mapping by private memory (header and strings copied,
 * chunks zero, never faulting for a late hook), so the file's pages go once the manager is
 * done; the next buffer copies the strings from it. Fails: silently. Not thread-safe. */
void fxtp_retire_buffer(void);
/* Populates the header and the start of the durable area once per buffer, at the first thread's
 * setup (chunks are populated as the file grows: preload/transport/grow.c).
 * Fails: silently (pages then fault in as used). Thread-safe. */
void fxtp_buffer_warm(void);

#endif
