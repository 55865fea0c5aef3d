/* Per-thread life of the tracer: setup on a thread's first hook (shadow stack, thread index,
 * chunk writer, kernel object record with its name), the registry of live threads used by the
 * exit and crash flush (every thread's open frames closed through it: fxtp_threads_close, also
 * for a STOP and a stop trigger's pause), release through a pthread_key_create destructor, the count of the
 * program's threads alive (its last one ends the tracer's own threads), and the name wrappers
 * (pthread_setname_np, prctl(PR_SET_NAME)) that re-emit the thread's kernel object record.
 * Thread indexes 1..255: an index's first thread gets its thread record in the durable area;
 * a recycled index is re-registered by a thread record opening each chunk of its new thread
 * (chunks are archived in the order they are taken); beyond 255 live threads koids go inline. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "preload/transport/buffer.h"
#include "preload/hot/emit.h"
#include "preload/transport/grow.h"
#include "preload/base/fxtp.h"
#include "preload/base/real.h"
#include "preload/sampling/sched.h"
#include "preload/hot/siglevel.h"
#include "preload/hot/altstack.h"
#include "preload/hot/frames.h"
#include "preload/hot/thread.h"
#include "writer/fields.h"
#include "writer/records.h"


static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fxtp_thread *reg_head;
static uint8_t index_used[FXT_THREAD_MAX_INDEX + 1];
static uint8_t index_ever[FXT_THREAD_MAX_INDEX + 1];	/* has a durable thread record */
static uint32_t index_gen;	/* the fxtp_ctx.buf_gen the two tables above are for */
static pthread_key_t key;

/* The program's threads alive that the tracer knows of (counted once each, through live_key):
 * the main thread from the constructor, every thread set up or started by spawn.c. A thread it
 * does not know of (created before the tracer ran, or by libc's own helpers) only makes the
 * count low: the tracer's threads then end early, and takers grow the buffer themselves. */
static pthread_key_t live_key;
static int live_ready;	/* live_key exists (atomic) */
static unsigned live;	/* atomic */

/* A counted thread ends (live_key's destructor). The last one ends the tracer's threads (the
 * grower, the switch reader): glibc ends a process whose main thread called pthread_exit only
 * when its last thread ends, and theirs never end by themselves (every signal blocked: not
 * even SIGTERM ended such a process). */
static void live_done(void *arg)
{
	(void)arg;
	if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0) {
		fxtp_grow_end();
		fxtp_sched_end();
	}
}

void fxtp_thread_forked(void)
{
	live = live_ready && pthread_getspecific(live_key) ? 1 : 0;
}

void fxtp_thread_alive(void)
{
	if (!__atomic_load_n(&live_ready, __ATOMIC_ACQUIRE) || pthread_getspecific(live_key))
		return;
	pthread_setspecific(live_key, &live);
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
}

/* Reads the kernel's name of thread tid (its comm) into buf; returns its length. */
static uint32_t comm_of(pid_t tid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return (uint32_t)n;
}

static void thread_done(void *arg)
{
	struct fxtp_thread *t = arg;
	if (!fxtp_enter(t))
		return;
	/* A thread that has not rejoined since the trace changed has nothing in this buffer
	 * (its frames were closed by the stop, its writer is the old buffer's). */
	int mine = t->buf_gen == fxtp.buf_gen;
	if (fxtp_running() && t->run_key == fxtp_state_word())
		fxtp_close_frames(t, &t->w, fxtp_now());
	if (mine) {
		fxt_chunk_flush(&t->w);
		fxt_chunk_close(&t->w);	/* circular/streaming may reuse the chunk */
	}
	pthread_mutex_lock(&reg_lock);
	if (t->prev)
		t->prev->next = t->next;
	else if (reg_head == t)
		reg_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	if (mine && index_gen == fxtp.buf_gen)
		index_used[t->thread_index] = 0;
	pthread_mutex_unlock(&reg_lock);
	t->dead = 1;
	fxtp_stack_release(t);
	fxtp_sig_release(t);
	fxtp_altstack_release(t->altstack);
	t->altstack = NULL;
	fxtp_leave(t);
}

int fxtp_threads_init(void)
{
	int rc = pthread_key_create(&key, thread_done);
	if (!rc && !(rc = pthread_key_create(&live_key, live_done)))
		__atomic_store_n(&live_ready, 1, __ATOMIC_RELEASE);
	return -rc;
}

/* Sets the writer and event header for thread index `index` of the current process; its
 * thread record goes to the durable area on the index's first use, else opens every chunk. */
static void start_writer(struct fxtp_thread *t, uint32_t index, int first_use)
{
	uint64_t rec[3];
	t->thread_index = index;
	t->buf_gen = fxtp.buf_gen;
	fxtp_thread_record(rec, index, (uint64_t)fxtp.pid, (uint64_t)t->tid);
	if (index && first_use) {
		uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, 3);
		if (r) {
			r[1] = rec[1];
			r[2] = rec[2];
			fxt_chunk_commit(r, rec[0]);
		} else {
			index = t->thread_index = 0;	/* durable area full: koids inline */
		}
	}
	fxt_chunk_init(&t->w, &fxtp.buf, index && !first_use ? rec : NULL);
	t->w.thread_index = (uint8_t)index;
	t->hdr_base = fxt_complete3_hdr(index, 0, 0);
	t->fastlimit = index && !fxtp.min_ticks && fxtp.use_tsc ? 0x8000u : 0;
}

/* Emits the thread's kernel object record with its name now. Read and written under reg_lock,
 * as renamed() writes: a rename by another thread (its creator, say) between our read of the
 * name and our record would otherwise be followed by our record of the old name. */
static void emit_name(struct fxtp_thread *t)
{
	char name[64];
	pthread_mutex_lock(&reg_lock);
	uint32_t len = comm_of(t->tid, name, sizeof(name));
	fxtp_emit_kobj(FXT_OBJ_TYPE_THREAD, (uint64_t)t->tid, name, len, (uint64_t)fxtp.pid);
	pthread_mutex_unlock(&reg_lock);
}

/* Takes a thread index in the current buffer (its tables start over with each buffer), starts
 * the writer and emits the thread's name. */
static void take_index(struct fxtp_thread *t)
{
	uint32_t index = 0;
	int first_use = 0;
	pthread_mutex_lock(&reg_lock);
	if (index_gen != fxtp.buf_gen) {
		memset(index_used, 0, sizeof(index_used));
		memset(index_ever, 0, sizeof(index_ever));
		index_gen = fxtp.buf_gen;
	}
	for (uint32_t i = 1; i <= FXT_THREAD_MAX_INDEX && !index; i++)
		if (!index_used[i] && !index_ever[i])
			index = i, first_use = 1;
	for (uint32_t i = 1; i <= FXT_THREAD_MAX_INDEX && !index; i++)
		if (!index_used[i])
			index = i;
	index_used[index] = index_ever[index] = 1;
	pthread_mutex_unlock(&reg_lock);
	start_writer(t, index, first_use);
	emit_name(t);
}

int fxtp_thread_setup(struct fxtp_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	int rc;

	t->tid = gettid();
	t->self = pthread_self();
	t->stack_lo = 0;
	t->stack_hi = UINTPTR_MAX;
	if (pthread_getattr_np(t->self, &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			t->stack_lo = (uintptr_t)addr;
			t->stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&attr);
	}
	if ((rc = fxtp_stack_init(t)) < 0)
		return rc;
	fxtp_buffer_warm();

	pthread_mutex_lock(&reg_lock);
	t->prev = NULL;
	t->next = reg_head;
	if (reg_head)
		reg_head->prev = t;
	reg_head = t;
	pthread_mutex_unlock(&reg_lock);

	t->run_key = fxtp_state_word();
	take_index(t);
	t->altstack = fxtp_altstack_setup();
	pthread_setspecific(key, t);
	fxtp_thread_alive();
	return 0;
}

void fxtp_thread_rejoin(struct fxtp_thread *t, uint32_t word)
{
	/* Calls open since before this trace: their entries were not seen in it (or a stop
	 * closed them), so they are dropped; their exits find no frame. */
	t->top = t->base;
	t->nonlocal = 0;
	t->sigjump = 0;
	t->below = 0;
	memset(t->jmps, 0, sizeof(t->jmps));
	memset(t->cache, 0, sizeof(t->cache));	/* old thread index, maybe a trigger now */
	t->run_key = word;
	if (t->buf_gen == fxtp.buf_gen)
		return;	/* a trigger paused and resumed the same buffer: same writer */
	fxtp_sig_after_fork(t);	/* the levels' writers and deferred calls were the old buffer's */
	take_index(t);
}

void fxtp_threads_each(void (*fn)(struct fxtp_thread *t, void *arg), void *arg, int lock)
{
	if (lock)
		pthread_mutex_lock(&reg_lock);
	for (struct fxtp_thread *t = reg_head; t; t = t->next)
		if (t != &fxtp_self)
			fn(t, arg);
	if (lock)
		pthread_mutex_unlock(&reg_lock);
}

void fxtp_threads_after_fork(struct fxtp_thread *self)
{
	pthread_mutex_init(&reg_lock, NULL);
	memset(index_used, 0, sizeof(index_used));
	memset(index_ever, 0, sizeof(index_ever));
	index_gen = fxtp.buf_gen;
	reg_head = NULL;
	fxtp_thread_forked();
	if (!self->base)
		return;	/* this thread had never been set up: its first hook will do it */
	/* Inherited frames are the parent's calls: kept for pairing, never recorded. */
	for (struct fxtp_frame *f = self->base; f < self->top; f++)
		f->tag = fxtp_tag_slow(FXTP_V_SKIP);
	memset(self->cache, 0, sizeof(self->cache));
	fxtp_sig_after_fork(self);
	self->tid = gettid();
	self->prev = self->next = NULL;
	reg_head = self;
	index_used[1] = index_ever[1] = 1;
	start_writer(self, 1, 1);
	emit_name(self);
}

/* Re-emits the kernel object record of thread `th` (named `name`) if it is traced. Under
 * reg_lock: a thread registered since reads its name after this (emit_name), one registered
 * before has its record from emit_name before this one. */
static void renamed(pthread_t th, const char *name)
{
	pid_t tid = 0;
	pthread_mutex_lock(&reg_lock);
	for (struct fxtp_thread *t = reg_head; t; t = t->next)
		if (pthread_equal(t->self, th))
			tid = t->tid;
	if (tid)
		fxtp_emit_kobj(FXT_OBJ_TYPE_THREAD, (uint64_t)tid, name, (uint32_t)strnlen(name, 16),
			       (uint64_t)fxtp.pid);
	pthread_mutex_unlock(&reg_lock);
}

FXTP_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	struct fxtp_thread *t = &fxtp_self;
	fxtp_real_init();
	if (!fxtp_real.pthread_setname_np)
		return ENOSYS;
	int rc = fxtp_real.pthread_setname_np(th, name);
	if (rc == 0 && fxtp_running() && fxtp_enter(t)) {
		int saved = errno;
		renamed(th, name);
		errno = saved;
		fxtp_leave(t);
	}
	return rc;
}

FXTP_EXPORT int prctl(int option, ...)
{
	struct fxtp_thread *t = &fxtp_self;
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	fxtp_real_init();
	if (!fxtp_real.prctl) {
		errno = ENOSYS;
		return -1;
	}
	int rc = fxtp_real.prctl(option, a2, a3, a4, a5);
	if (rc == 0 && option == PR_SET_NAME && fxtp_running() && fxtp_enter(t)) {
		int saved = errno;
		renamed(pthread_self(), (const char *)a2);
		errno = saved;
		fxtp_leave(t);
	}
	return rc;
}

/* ---- closing every thread's frames (exit flush, STOP, stop trigger) ---- */

void fxtp_close_frames(struct fxtp_thread *t, struct fxt_chunk_w *w, uint64_t end)
{
	if (!t->base)
		return;
	if (w == &t->w) {
		while (t->top > t->base) {
			t->top--;
			fxtp_write_frame(t, w, t->top, end);
		}
	} else {
		/* Another thread's stack: it may still be running, so only read it. */
		for (const struct fxtp_frame *f = t->top; f-- > t->base;)
			fxtp_write_frame(t, w, f, end);
	}
	/* The states a signal handler interrupted (exit from a handler), and deferred calls. */
	fxtp_sig_close_saved(t, w, end);
}

struct closing {
	struct fxt_chunk_w w;	/* koid-inline closing events of other threads */
	uint64_t now;
	uint32_t was;		/* the RUNNING word the frames were opened under */
};

static void close_other(struct fxtp_thread *t, void *arg)
{
	struct closing *c = arg;
	if (!t->dead && t->run_key == c->was)
		fxtp_close_frames(t, &c->w, c->now);
	if (t->buf_gen == fxtp.buf_gen)
		fxt_chunk_flush(&t->w);
}

void fxtp_threads_close(struct fxt_chunk_w *w, uint32_t was, uint64_t now, int lock, int self_too)
{
	struct fxtp_thread *self = &fxtp_self;
	if (self_too && self->base && !self->dead && self->run_key == was)
		fxtp_close_frames(self, &self->w, now);
	if (self->buf_gen == fxtp.buf_gen)
		fxt_chunk_flush(&self->w);
	struct closing c = { .now = now, .was = was };
	fxt_chunk_init(&c.w, &fxtp.buf, NULL);
	fxtp_threads_each(close_other, &c, lock);
	*w = c.w;
}

void fxtp_pause(uint32_t was, int lock)
{
	struct fxt_chunk_w others;
	fxtp_threads_close(&others, was, fxtp_now(), lock, 1);
	fxt_chunk_flush(&others);
	fxt_chunk_close(&others);
}
