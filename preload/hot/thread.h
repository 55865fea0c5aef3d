/* The thread registry (thread.c): per-thread setup, the walk over live threads (exit flush),
 * the count of the program's threads alive, and the fork child's reset. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_THREAD_H
#define FXT_PRELOAD_THREAD_H

#include "preload/base/fxtp.h"

/* Sets up the calling thread (index, chunk writer, kernel object record, registry).
 * Fails: -errno, thread not traced. */
int fxtp_thread_setup(struct fxtp_thread *t);
/* Rejoins the state word `word` (RUNNING, a trace other than the one t recorded in last):
 * t's open frames are dropped, its name cache emptied, and in a new buffer it takes a new
 * index, writer and thread record. Guard held, level 0. Fails: never. */
void fxtp_thread_rejoin(struct fxtp_thread *t, uint32_t word);
/* Walks the registry: fn(t) for every live thread other than self. lock=0 from a signal. */
void fxtp_threads_each(void (*fn)(struct fxtp_thread *t, void *arg), void *arg, int lock);
int fxtp_threads_init(void);
/* Counts the calling thread, once, among the program's threads alive (the constructor's, a new
 * thread before its start routine, a thread set up): when the last one counted ends, the
 * tracer's own threads end (grow.c, sched.c). Fails: silently (not counted). Thread-safe. */
void fxtp_thread_alive(void);
/* Fork child (also after a failed exec): the calling thread is the one left, counted if it
 * was. Fails: never. Not thread-safe. */
void fxtp_thread_forked(void);
/* Fork child: only the calling thread survives; registry and indexes reset. */
void fxtp_threads_after_fork(struct fxtp_thread *self);

/* Closes every open frame of t at time end, writing into writer w (t's own, or the caller's
 * when t is another thread: then koids go inline). Async-signal-safe. */
void fxtp_close_frames(struct fxtp_thread *t, struct fxt_chunk_w *w, uint64_t end);
/* Closes at now every open frame of the threads recording under word `was` into w (the
 * caller's own popped when self_too, the others' read: they may still run; w: a koid-inline
 * writer the caller flushes). lock = 0 from a signal. Async-signal-safe when !lock. */
void fxtp_threads_close(struct fxt_chunk_w *w, uint32_t was, uint64_t now, int lock, int self_too);
/* A stop trigger moved the state from `was` (RUNNING) to ARMED: closes every open frame of
 * the threads recording under it now (the buffer goes on). lock = 0 from a signal handler.
 * Fails: never. Async-signal-safe when !lock. */
void fxtp_pause(uint32_t was, int lock);

#endif
