/* The trace manager's archive writer (launcher/manager/out.c): records are appended into one of a ring
 * of write buffers while a writer thread of its own writes the full ones out in order, so that
 * the manager's sweeping and vetting and the kernel's copy into the file run side by side, and
 * the manager waits only when every other buffer is still to be written. The
 * file offset of every byte is known at append (fxt_out.bytes); bytes already handed to the
 * writer are patched in the file once it is done. Used by one thread (the writer is internal). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_OUT_H
#define FXT_LAUNCHER_OUT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of one write buffer, and their number. */
#define FXT_OUT_BUF (1u << 20)
#define FXT_OUT_BUFS 4u

struct fxt_out {
	int fd, err;			/* err: the first write error, kept */
	size_t n;			/* bytes in buf, not yet handed to the writer */
	uint64_t bytes;			/* archive size so far (written, handed and buffered) */
	char *buf;			/* the buffer being filled: bufs[fill] */
	unsigned fill;
	int threaded;			/* the writer thread runs (else writes are made here) */
	pthread_t writer;
	pthread_mutex_t lock;		/* guards the fields below */
	pthread_cond_t cond;
	unsigned head, queued;		/* bufs[head] .. the queued ones before fill, in order */
	size_t len[FXT_OUT_BUFS];	/* bytes of each queued buffer */
	int stop, writer_err;
	char bufs[FXT_OUT_BUFS][FXT_OUT_BUF];
};

/* Starts the archive in fd (empty, owned by the caller): the writer thread (every signal
 * blocked in it; when it cannot start, writes are made by the caller's thread) and the magic
 * number record. fxt_out_end() is due after any call. Fails: -errno (also kept in o->err). */
int fxt_out_start(struct fxt_out *o, int fd);

/* Writes out everything appended and waits until it is written. Fails: -errno (kept). */
int fxt_out_flush(struct fxt_out *o);

/* Ends the writer thread (what was not flushed is lost). Fails: never. */
void fxt_out_end(struct fxt_out *o);

/* Appends len bytes. Fails: -errno (kept). */
int fxt_out_emit(struct fxt_out *o, const void *data, size_t len);

/* Room for len bytes (at most FXT_OUT_BUF / 2) at the end of the appended bytes, or NULL (a
 * write error, kept); fxt_out_commit() appends the first len of them. */
void *fxt_out_reserve(struct fxt_out *o, size_t len);
void fxt_out_commit(struct fxt_out *o, size_t len);

/* Overwrites 8 bytes at archive offset at, appended before (buffered, or in the file once the
 * writer is done with it). Fails: -errno (kept). */
int fxt_out_patch(struct fxt_out *o, uint64_t at, uint64_t value);

#endif
