/* Blocking as durations: wrappers of pthread_mutex_lock/timedlock, pthread_rwlock_rdlock/wrlock,
 * pthread_cond_wait/timedwait/clockwait, sem_wait/timedwait, pthread_barrier_wait and
 * pthread_join (timed waits that time out are recorded too). Each first tries
 * the non-blocking variant (trylock, trywait, tryjoin) and records nothing when it succeeds;
 * only a wait that blocks becomes a duration complete event (category `lock`) on the waiting
 * thread, with the object's pointer and label (uobj.c) as arguments. Return values and errno
 * are glibc's; the guard is never held across the blocking call (a cancelled wait unwinds
 * through a wrapper that holds nothing); objects of the tracer itself are never recorded.
 * FXT_LOCK_LABELS=0 leaves the label argument out. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "preload/events/lock.h"
#include "preload/base/real.h"
#include "preload/events/record.h"
#include "preload/events/uobj.h"
#include "writer/fields.h"

/* This library's own image: its locks are the tracer's, never recorded. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

enum kind {
	K_MUTEX, K_TIMEDMUTEX, K_RDLOCK, K_WRLOCK, K_COND, K_TIMEDCOND, K_CLOCKCOND, K_SEM,
	K_TIMEDSEM, K_BARRIER, K_JOIN, K_COUNT
};

static struct {
	struct fxtp_cstr name;
	const char *obj_kind;	/* uobj.c kind, NULL: the joined thread's name labels it */
} kinds[K_COUNT] = {
	[K_MUTEX] = { FXTP_CSTR("mutex_lock"), "mutex" },
	[K_TIMEDMUTEX] = { FXTP_CSTR("mutex_timedlock"), "mutex" },
	[K_RDLOCK] = { FXTP_CSTR("rwlock_rdlock"), "rwlock" },
	[K_WRLOCK] = { FXTP_CSTR("rwlock_wrlock"), "rwlock" },
	[K_COND] = { FXTP_CSTR("cond_wait"), "cond" },
	[K_TIMEDCOND] = { FXTP_CSTR("cond_timedwait"), "cond" },
	[K_CLOCKCOND] = { FXTP_CSTR("cond_clockwait"), "cond" },
	[K_SEM] = { FXTP_CSTR("sem_wait"), "sem" },
	[K_TIMEDSEM] = { FXTP_CSTR("sem_timedwait"), "sem" },
	[K_BARRIER] = { FXTP_CSTR("barrier_wait"), "barrier" },
	[K_JOIN] = { FXTP_CSTR("join"), NULL },
};
static struct fxtp_cstr s_lock = FXTP_CSTR("lock"), s_object = FXTP_CSTR("object"),
			s_label = FXTP_CSTR("label");
static int labels_off;

/* ---- the wait record ---- */

/* Records the wait of kind k on obj from start to now; label: the joined thread's name. */
static __attribute__((noinline)) void waited(enum kind k, const void *obj, uint64_t start,
					     const char *label)
{
	uint64_t end = fxtp_now();
	int saved = errno;
	struct fxtp_thread *t;

	if ((const char *)obj >= __ehdr_start && (const char *)obj < _end)
		return;
	if (!(t = fxtp_rec_enter())) {
		errno = saved;
		return;
	}
	/* The label first: viewers that show pointers as strings take the first string. */
	struct fxt_warg args[2] = {
		fxt_arg_string(fxtp_cstr(&s_label),
			       kinds[k].obj_kind ? fxtp_uobj_label(obj, kinds[k].obj_kind)
						 : fxt_str_inl(label, (uint32_t)strlen(label))),
		fxt_arg_pointer(fxtp_cstr(&s_object), (uintptr_t)obj),
	};
	struct fxt_event e = fxt_ev_complete(fxtp_thread_ref(t), fxtp_cstr(&s_lock),
					     fxtp_cstr(&kinds[k].name), start, end);
	e.args = labels_off ? args + 1 : args;
	e.nargs = labels_off ? 1 : 2;
	fxtp_rec_event(t, &e);
	fxtp_leave(t);
	errno = saved;
}

/* The real function, or NULL (the wrapper then fails with ENOSYS). */
#define REAL(fn) (fxtp_real_init(), fxtp_real.fn)

/* ---- wrappers ---- */

static __attribute__((noinline)) int mutex_wait(pthread_mutex_t *m)
{
	uint64_t start = fxtp_now();
	if (!REAL(pthread_mutex_lock))
		return ENOSYS;
	int rc = fxtp_real.pthread_mutex_lock(m);
	if (rc == 0)
		waited(K_MUTEX, m, start, NULL);
	return rc;
}

/* A plain mutex found free goes straight to glibc's lock (its trylock costs 3-4 ns more); a
 * race lost in between waits unrecorded. Other kinds (recursive, error-checking, robust, PI,
 * elided) and a held mutex go through trylock. */
FXTP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int (*lock)(pthread_mutex_t *) = fxtp_real.pthread_mutex_lock;
	if (__builtin_expect(lock && m->__data.__kind == PTHREAD_MUTEX_TIMED_NP &&
			     __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0, 1))
		return lock(m);
	int rc = pthread_mutex_trylock(m);
	return __builtin_expect(rc != EBUSY, 1) ? rc : mutex_wait(m);
}

FXTP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	int rc = pthread_mutex_trylock(m);
	if (__builtin_expect(rc != EBUSY, 1))
		return rc;
	uint64_t start = fxtp_now();
	if (!REAL(pthread_mutex_timedlock))
		return ENOSYS;
	rc = fxtp_real.pthread_mutex_timedlock(m, abstime);
	if (rc == 0 || rc == ETIMEDOUT)
		waited(K_TIMEDMUTEX, m, start, NULL);
	return rc;
}

static __attribute__((noinline)) int rwlock_wait(pthread_rwlock_t *l, int write)
{
	uint64_t start = fxtp_now();
	int (*fn)(pthread_rwlock_t *) = write ? REAL(pthread_rwlock_wrlock)
					      : REAL(pthread_rwlock_rdlock);
	if (!fn)
		return ENOSYS;
	int rc = fn(l);
	if (rc == 0)
		waited(write ? K_WRLOCK : K_RDLOCK, l, start, NULL);
	return rc;
}

FXTP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	int rc = pthread_rwlock_tryrdlock(l);
	return __builtin_expect(rc != EBUSY, 1) ? rc : rwlock_wait(l, 0);
}

FXTP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	int rc = pthread_rwlock_trywrlock(l);
	return __builtin_expect(rc != EBUSY, 1) ? rc : rwlock_wait(l, 1);
}

/* A condition wait always blocks until signalled (or timed out): always recorded. */
FXTP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	uint64_t start = fxtp_now();
	if (!REAL(pthread_cond_wait))
		return ENOSYS;
	int rc = fxtp_real.pthread_cond_wait(c, m);
	waited(K_COND, c, start, NULL);
	return rc;
}

FXTP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				       const struct timespec *abstime)
{
	uint64_t start = fxtp_now();
	if (!REAL(pthread_cond_timedwait))
		return ENOSYS;
	int rc = fxtp_real.pthread_cond_timedwait(c, m, abstime);
	waited(K_TIMEDCOND, c, start, NULL);
	return rc;
}

FXTP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
				       const struct timespec *abstime)
{
	uint64_t start = fxtp_now();
	if (!REAL(pthread_cond_clockwait))
		return ENOSYS;
	int rc = fxtp_real.pthread_cond_clockwait(c, m, clock, abstime);
	waited(K_CLOCKCOND, c, start, NULL);
	return rc;
}

/* The first step of sem_wait and sem_timedwait: a cancellation point even when it does not
 * block (as glibc's), then sem_trywait. Returns 0 (taken), -1 (failed, errno set) or 1 (it
 * would block: errno as the caller had it). */
static inline int sem_try(sem_t *s)
{
	int saved = errno;
	pthread_testcancel();
	if (__builtin_expect(sem_trywait(s) == 0, 1))
		return 0;
	if (errno != EAGAIN)
		return -1;
	errno = saved;
	return 1;
}

FXTP_EXPORT int sem_wait(sem_t *s)
{
	int tried = sem_try(s);
	if (tried <= 0)
		return tried;
	uint64_t start = fxtp_now();
	if (!REAL(sem_wait)) {
		errno = ENOSYS;
		return -1;
	}
	int rc = fxtp_real.sem_wait(s);
	if (rc == 0)
		waited(K_SEM, s, start, NULL);
	return rc;
}

FXTP_EXPORT int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	int tried = sem_try(s);
	if (tried <= 0)
		return tried;
	uint64_t start = fxtp_now();
	if (!REAL(sem_timedwait)) {
		errno = ENOSYS;
		return -1;
	}
	int rc = fxtp_real.sem_timedwait(s, abstime);
	if (rc == 0 || errno == ETIMEDOUT)
		waited(K_TIMEDSEM, s, start, NULL);
	return rc;
}

/* The serial thread (the last to arrive) did not wait: only the others are recorded. */
FXTP_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	uint64_t start = fxtp_now();
	if (!REAL(pthread_barrier_wait))
		return ENOSYS;
	int rc = fxtp_real.pthread_barrier_wait(b);
	if (rc == 0)
		waited(K_BARRIER, b, start, NULL);
	return rc;
}

/* Without ASan redzones: a cancelled join unwinds this frame without unpoisoning it. */
FXTP_EXPORT __attribute__((no_sanitize_address)) int pthread_join(pthread_t th, void **ret)
{
	char name[16] = "thread";
	int rc = pthread_tryjoin_np(th, ret);
	if (__builtin_expect(rc != EBUSY, 1))
		return rc;
	if (pthread_getname_np(th, name, sizeof(name)) != 0)
		strcpy(name, "thread");
	uint64_t start = fxtp_now();
	if (!REAL(pthread_join))
		return ENOSYS;
	rc = fxtp_real.pthread_join(th, ret);
	if (rc == 0)
		waited(K_JOIN, (const void *)th, start, name);
	return rc;
}

/* Called by fxtp_init (lock.h), which has resolved the real functions first. */
void fxtp_lock_init(void)
{
	labels_off = !fxtp_settings.lock_labels;	/* read by fxtp_init (common/options.c) */
}
