/* The trace manager's archive writer (out.h). Two buffers: the manager fills one while the
 * writer thread writes the other; a full buffer is handed over once the writer is idle (at most
 * one buffer in flight, so memory stays two buffers), and its error comes back with the next
 * hand-over. Invariant: the file holds exactly bytes - n - (handed_len while handed) bytes, in
 * append order. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/out.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "writer/records.h"

static void *writer_main(void *arg)
{
	struct fxt_out *o = arg;
	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (!o->handed && !o->stop)
			pthread_cond_wait(&o->cond, &o->lock);
		if (!o->handed)
			break;
		const char *data = o->handed;
		size_t len = o->handed_len;
		pthread_mutex_unlock(&o->lock);
		int rc = fxt_write_all(o->fd, data, len);	/* short: full disk */
		pthread_mutex_lock(&o->lock);
		if (rc && !o->writer_err)
			o->writer_err = rc;
		o->handed = NULL;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* Waits until the writer is idle; its first error becomes o->err. */
static void wait_idle(struct fxt_out *o)
{
	if (!o->threaded)
		return;
	pthread_mutex_lock(&o->lock);
	while (o->handed)
		pthread_cond_wait(&o->cond, &o->lock);
	if (o->writer_err && !o->err)
		o->err = o->writer_err;
	pthread_mutex_unlock(&o->lock);
}

/* Hands the filled buffer to the writer (written here without one) and fills the other one. */
static int hand_over(struct fxt_out *o)
{
	wait_idle(o);
	if (o->err || !o->n) {
		o->n = 0;
		return o->err;
	}
	if (!o->threaded) {
		o->err = fxt_write_all(o->fd, o->buf, o->n);
		o->n = 0;
		return o->err;
	}
	pthread_mutex_lock(&o->lock);
	o->handed = o->buf;
	o->handed_len = o->n;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	o->buf = o->buf == o->bufs[0] ? o->bufs[1] : o->bufs[0];
	o->n = 0;
	return 0;
}

int fxt_out_start(struct fxt_out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->n = 0;
	o->bytes = 0;
	o->buf = o->bufs[0];
	o->handed = NULL;
	o->stop = o->writer_err = 0;
	o->threaded = 0;
	if (!pthread_mutex_init(&o->lock, NULL)) {
		if (!pthread_cond_init(&o->cond, NULL)) {
			sigset_t all, old;
			sigfillset(&all);	/* signals stay the manager's thread's (signalfd) */
			pthread_sigmask(SIG_SETMASK, &all, &old);
			o->threaded = !pthread_create(&o->writer, NULL, writer_main, o);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			if (!o->threaded)
				pthread_cond_destroy(&o->cond);
		}
		if (!o->threaded)
			pthread_mutex_destroy(&o->lock);
	}
	uint64_t magic;
	return fxt_out_emit(o, &magic, (size_t)fxt_magic_write(&magic) * 8);
}

int fxt_out_flush(struct fxt_out *o)
{
	hand_over(o);
	wait_idle(o);
	return o->err;
}

void fxt_out_end(struct fxt_out *o)
{
	if (!o->threaded)
		return;
	pthread_mutex_lock(&o->lock);
	o->stop = 1;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->writer, NULL);
	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
	o->threaded = 0;
}

void *fxt_out_reserve(struct fxt_out *o, size_t len)
{
	if (o->n + len > FXT_OUT_BUF && hand_over(o))
		return NULL;
	return o->err ? NULL : o->buf + o->n;
}

void fxt_out_commit(struct fxt_out *o, size_t len)
{
	o->n += len;
	o->bytes += len;
}

int fxt_out_emit(struct fxt_out *o, const void *data, size_t len)
{
	if (len > FXT_OUT_BUF / 2) {	/* written after what is appended, straight from data */
		if (fxt_out_flush(o))
			return o->err;
		o->bytes += len;
		return o->err = fxt_write_all(o->fd, data, len);
	}
	void *dst = fxt_out_reserve(o, len);
	if (!dst)
		return o->err;
	memcpy(dst, data, len);
	fxt_out_commit(o, len);
	return 0;
}

int fxt_out_patch(struct fxt_out *o, uint64_t at, uint64_t value)
{
	uint64_t flushed = o->bytes - o->n;
	if (at >= flushed) {
		memcpy(o->buf + (at - flushed), &value, 8);
		return 0;
	}
	wait_idle(o);	/* the bytes at `at` are in the file once the writer is done */
	if (o->err)
		return o->err;
	if (pwrite(o->fd, &value, 8, (off_t)at) != 8)
		return o->err = errno ? -errno : -EIO;
	return 0;
}
