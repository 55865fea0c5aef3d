/* Backing the buffer file as it is used (preload/transport/grow.c): fallocate a step ahead of the chunks
 * taken, populate the step's pages, and refuse a chunk (-ENOSPC...) when the file system is
 * full. One buffer file per process. Called with the tracer guard held; async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_GROW_H
#define FXT_PRELOAD_GROW_H

#include <stdint.h>
#include <sys/types.h>

#include "writer/buffer.h"

/* Keeps a descriptor of the buffer file (duplicated at 64 or above, close-on-exec; fd stays the
 * caller's) and its path (to reopen it if the program closes ours). extends: fallocate extends
 * the file (the standalone archive file); else the file's size is already the buffer's.
 * Fails: -errno. Not thread-safe: setup only. */
int fxtp_grow_attach(int fd, const char *path, int extends);

/* Forgets the file (closes our descriptor; stops the grower first): a fork child, or the end.
 * Not thread-safe. */
void fxtp_grow_detach(void);

/* Our descriptor of the buffer file (reopened if the program closed it), or -1. */
int fxtp_grow_fd(void);

/* Makes bytes [0, end) of b's mapping backed by the file, growing by a step ahead (fxt_outfile
 * .back, and the session policies before they hand out a chunk). Fails: -ENOSPC or -errno
 * (sticky: later calls fail too). Thread-safe; async-signal-safe. */
int fxtp_grow_back(struct fxt_buf *b, uint64_t end);

/* NULL, or called after each step the file grew (the standalone file refreshes its clock
 * estimate there). Async-signal-safe. */
extern void (*fxtp_grow_on_step)(void);

/* As fxtp_grow_back() for the durable area (fxt_buf.back_durable). */
int fxtp_grow_durable(struct fxt_buf *b, uint64_t end);

/* Backs the whole durable area (the exit flush pads its tail in place, and writing into a hole
 * of a full file system would SIGBUS). Fails: -errno. Not thread-safe with another finisher. */
int fxtp_grow_durable_all(struct fxt_buf *b);

/* Starts the grower thread for b (every signal blocked, the guard held): it keeps b's chunks
 * and durable area backed ahead of what is taken, sized from the rate it observes, and calls
 * behind(b) (NULL: nothing) at each of its looks, every 2 ms while chunks are taken, through
 * a descriptor of b's file in a descriptor table of its own (opened by path, same inode).
 * Without it (its thread could not start or have its own table; a fork child's buffer) takers
 * grow by themselves. Not async-signal-safe: setup. */
void fxtp_grow_start(struct fxt_buf *b, void (*behind)(struct fxt_buf *b));

/* Parks the grower and waits (bounded) until it touches the buffer no more; after it, only the
 * takers grow. Async-signal-safe. */
void fxtp_grow_stop(void);

/* Ends the grower thread (parked first) and joins it: the program's last thread is ending, and
 * glibc ends the process only once no thread is left. A later fxtp_grow_start() starts a new
 * one. Not async-signal-safe. */
void fxtp_grow_end(void);

/* 1 while the grower runs. Async-signal-safe. */
int fxtp_grow_ahead(void);

/* The grower's thread id (0: none yet), parked or not: not one of the program's threads. */
pid_t fxtp_grow_thread(void);

/* Bytes of the durable area reserved at setup; the rest grows as records are written. */
#define FXTP_GROW_FIRST (64u << 10)

/* Reserves [0, end) of the file at setup (header and durable area), before the buffer is laid
 * out; the caller then stores end in the header's `backed`. Fails: -errno. Not thread-safe. */
int fxtp_grow_initial(uint64_t end);

#endif
