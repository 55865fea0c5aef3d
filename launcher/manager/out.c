/* The trace manager's archive writer (out.h). A ring of FXT_OUT_BUFS buffers: the manager fills
 * bufs[fill]; the full ones before it (queued, from head) wait for the writer thread, which
 * writes them in order; a full buffer is queued once the next one is free, and the writer's
 * first error comes back with a later hand-over. Invariants: fill == (head + queued) % FXT_OUT_BUFS
 * and queued < FXT_OUT_BUFS; the file holds exactly bytes - n - (the queued lengths) bytes, in
 * append order. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/out.h"

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
		while (!o->queued && !o->stop)
			pthread_cond_wait(&o->cond, &o->lock);
		if (!o->queued)
			break;
		const char *data = o->bufs[o->head];
		size_t len = o->len[o->head];
		pthread_mutex_unlock(&o->lock);
		int rc = fxt_write_all(o->fd, data, len);	/* short: full disk */
		pthread_mutex_lock(&o->lock);
		if (rc && !o->writer_err)
			o->writer_err = rc;
		o->head = (o->head + 1) % FXT_OUT_BUFS;
		o->queued--;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* Waits until at most `most` buffers are queued; the writer's first error becomes o->err. */
static void wait_queued(struct fxt_out *o, unsigned most)
{
	if (!o->threaded)
		return;
	pthread_mutex_lock(&o->lock);
	while (o->queued > most)
		pthread_cond_wait(&o->cond, &o->lock);
	if (o->writer_err && !o->err)
		o->err = o->writer_err;
	pthread_mutex_unlock(&o->lock);
}

/* Queues the filled buffer for the writer (written here without one) and fills the next one,
 * once it is free. */
static int hand_over(struct fxt_out *o)
{
	wait_queued(o, FXT_OUT_BUFS - 2);
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
	o->len[o->fill] = o->n;
	o->queued++;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	o->fill = (o->fill + 1) % FXT_OUT_BUFS;
	o->buf = o->bufs[o->fill];
	o->n = 0;
	return 0;
}

int fxt_out_start(struct fxt_out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->n = 0;
	o->bytes = 0;
	o->fill = o->head = o->queued = 0;
	o->buf = o->bufs[0];
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
	wait_queued(o, 0);
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
	wait_queued(o, 0);	/* the bytes at `at` are in the file once the writer is done */
	if (o->err)
		return o->err;
	if (pwrite(o->fd, &value, 8, (off_t)at) != 8)
		return o->err = errno ? -errno : -EIO;
	return 0;
}
