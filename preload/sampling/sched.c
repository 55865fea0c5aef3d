/* Context switches of the traced threads (FXT_SCHED / fxtrun --sched). One perf_event per CPU
 * for the process (software dummy event, context_switch, pid = the constructor's thread,
 * inherited by every thread created later: inherit_thread, removed on exec), each with a small
 * ring buffer: no thread setup hook (unmodified programs have none), ncpu descriptors whatever
 * the number of threads. Each PERF_RECORD_SWITCH (switch out, with PREEMPT or not; switch in)
 * becomes one FXT context switch record (scheduling record type 1,
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#scheduling-record): the traced
 * thread on one side, koid 0 with weight INT32_MIN (idle, "not a thread of ours": Perfetto's
 * importer skips that side) on the other; preempted -> state 1 (running: Perfetto's R), else
 * 3 (blocked: S). Timestamps are the events' clock: perf's TSC conversion from the ring's page
 * (cap_user_time_zero) when the tracer counts TSC ticks, else CLOCK_MONOTONIC (use_clockid),
 * in ns or converted to ticks with the run's calibration so far.
 * Why a reader thread: the rings are filled by the kernel whether or not the program makes
 * instrumented calls; a thread blocked on a pipe or a mutex switches without ever refilling a
 * chunk, so draining only at refill would lose switches, and would put the drain (a ring of
 * records) inside the program's timed calls. The reader sleeps in epoll_wait() until a ring is a
 * quarter full (or 100 ms pass), runs with every signal blocked and the guard held, is created
 * before the events (so its own switches are not recorded), and writes with its own chunk
 * writer. Ring overflow (PERF_RECORD_LOST) is counted as dropped records. A fork child starts
 * over (atfork: the parent's rings are not mapped in it, so they are closed, never unmapped);
 * the exit flush drains what is left (fxtp_sched_stop); a registered process's
 * STOP drains and pauses them, its next START resumes them into the new buffer. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/base/fd.h"
#include "preload/base/fxtp.h"
#include "preload/hot/names.h"
#include "preload/base/real.h"
#include "preload/sampling/sched.h"
#include "writer/records.h"

#define RING_PAGES_MAX 32u	/* data pages per CPU (128 KiB): halved on EPERM (mlock limit) */
#define POLL_MS 100		/* longest time a switch waits in a ring */
#define STATE_RUNNING 1u	/* FXT thread states (the spec's scheduling record, Thread States) */
#define STATE_BLOCKED 3u
#define IDLE_WEIGHT INT32_MIN	/* the other side of a switch: not one of our threads */

struct ring {
	int fd;
	struct perf_event_mmap_page *pg;	/* NULL: no ring (CPU offline) */
	size_t map_size;
};

static struct {
	int on;				/* started in this process */
	int ncpu;
	struct ring *rings;
	int efd;			/* eventfd: wakes the reader to stop */
	int epfd;			/* epoll set the reader waits on: efd, then every ring (no
					 * allocation in the reader, whatever the number of CPUs) */
	int stop;			/* the reader stops (atomic) */
	unsigned gen;			/* bumped by every start: a reader of an older one ends
					 * (a failed exec starts again while the last one exits) */
	pid_t reader_tid;		/* the latest reader thread (atomic; kept after it ends) */
	pthread_t reader_th;		/* ... joinable while `joinable` is 1 */
	int joinable;
	int done;			/* fxtp_sched_stop ran (atomic) */
	int ready;			/* rings and ncpu published to the reader (atomic) */
	pthread_mutex_t lock;		/* one drainer at a time: owns w and the rings' tails */
	struct fxt_chunk_w w;
	int use_tsc_conv;		/* perf clock -> TSC through the page's time_* fields */
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	uint16_t in_weight_idx, out_weight_idx;	/* string indexes of the argument names */
	uint64_t switches, lost;	/* written / reported lost by the kernel */
	uint64_t chunks;		/* chunks w took in this buffer (atomic) */
} S = { .efd = -1, .epfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static int perf_open(struct perf_event_attr *a, int cpu)
{
	const char *deny = getenv("FXT_SCHED_TEST_ERRNO");	/* tests: a refusing kernel */
	if (deny && *deny) {
		errno = atoi(deny);
		return -1;
	}
	/* The process's first thread: the constructor's, a fork child's only one, and also when
	 * a registered process starts from its provider thread (manager-link.c). Above the program's
	 * descriptors: its own open() calls get the numbers they get untraced. */
	int fd = (int)syscall(SYS_perf_event_open, a, (pid_t)fxtp.pid, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? fd : fxtp_fd_high(fd);
}

/* The event of one CPU, waking the reader once `wakeup` bytes are in its ring; returns its fd
 * or -1 (errno). */
static int open_cpu(int cpu, int clockid, uint32_t wakeup)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.context_switch = 1;
	a.inherit = 1;
	a.inherit_thread = 1;	/* threads only: a fork child opens its own */
	a.remove_on_exec = 1;
	a.exclude_kernel = 1;	/* allowed at perf_event_paranoid 2 */
	a.exclude_hv = 1;
	a.watermark = 1;
	a.wakeup_watermark = wakeup;
	if (clockid >= 0) {
		a.use_clockid = 1;
		a.clockid = clockid;
	}
	int fd = perf_open(&a, cpu);
	if (fd < 0 && errno == EINVAL) {	/* before Linux 5.13: no inherit_thread */
		a.inherit_thread = 0;
		a.remove_on_exec = 0;
		fd = perf_open(&a, cpu);
	}
	return fd;
}

/* Opens cpu's event and maps its ring (1 + pages pages), waking the reader at a quarter of it
 * (the kernel's default is half: a busy machine that runs the reader late then overflows the
 * ring sooner). The wakeup is fixed at open, so a ring the mlock limit refuses (EPERM, ENOMEM)
 * is opened again with half the pages. Returns 0 or -1 (errno; r->fd -1). */
static int open_ring(struct ring *r, int cpu, int clockid)
{
	long psz = sysconf(_SC_PAGESIZE);
	for (unsigned pages = RING_PAGES_MAX; pages >= 1; pages /= 2) {
		size_t size = (size_t)(pages + 1) * (size_t)psz;
		r->fd = open_cpu(cpu, clockid, (uint32_t)(pages * (size_t)psz / 4));
		if (r->fd < 0)
			return -1;
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (m != MAP_FAILED) {
			r->pg = m;
			r->map_size = size;
			return 0;
		}
		int err = errno;
		close(r->fd);
		r->fd = -1;
		errno = err;
		if (err != EPERM && err != ENOMEM)
			break;
	}
	return -1;
}

/* Closes every ring's event; unmaps the rings when `mapped` (they are this process's). */
static void drop_rings(int mapped)
{
	for (int i = 0; S.rings && i < S.ncpu; i++) {
		if (S.rings[i].pg && mapped)
			munmap(S.rings[i].pg, S.rings[i].map_size);
		fxtp_fd_close(&S.rings[i].fd);
	}
	free(S.rings);
	S.rings = NULL;
}

/* Opens every CPU's event and ring with the given clock (-1: perf's). Returns 0 or -errno. */
static int open_rings(int clockid)
{
	int got = 0, err = 0;
	S.ncpu = get_nprocs_conf();
	S.rings = calloc((size_t)S.ncpu, sizeof(*S.rings));
	if (!S.rings)
		return -ENOMEM;
	for (int c = 0; c < S.ncpu; c++) {
		struct ring *r = &S.rings[c];
		if (open_ring(r, c, clockid) < 0) {
			if (errno != ENODEV && errno != EINVAL)	/* offline CPU: skipped */
				err = errno;
			else if (!err)
				err = errno;
			continue;
		}
		fxtp_fd_keep(&r->fd);	/* a daemon closing every descriptor keeps it */
		got++;
	}
	if (!got) {
		drop_rings(1);
		return -(err ? err : ENODEV);
	}
	return 0;
}

/* perf time -> TSC ticks (the inverse of the page's cyc -> time conversion), or -> ticks via
 * CLOCK_MONOTONIC and the calibration so far. */
static uint64_t to_ticks(uint64_t t)
{
	if (S.use_tsc_conv) {
		uint64_t d = t - S.time_zero;
		uint64_t quot = d / S.time_mult, rem = d % S.time_mult;
		return (quot << S.time_shift) + (rem << S.time_shift) / S.time_mult;
	}
	if (!fxtp.use_tsc)
		return t;
	uint64_t now = fxtp_now(), ns = fxt_mono_ns();
	if (ns <= fxtp.t0_ns)
		return fxtp.t0_ticks;
	__int128 dt = (__int128)((int64_t)(t - fxtp.t0_ns)) * (int64_t)(now - fxtp.t0_ticks) /
		      (int64_t)(ns - fxtp.t0_ns);
	return (uint64_t)((__int128)fxtp.t0_ticks + dt);
}

static void put_switch(unsigned cpu, uint64_t ts, int out, int preempt, uint64_t tid,
		       uint64_t other)
{
	struct fxt_warg idle = fxt_arg_int32(
		out ? fxt_str_idx(S.in_weight_idx) : fxt_str_idx(S.out_weight_idx), IDLE_WEIGHT);
	if (!(out ? S.in_weight_idx : S.out_weight_idx))
		idle.name = out ? fxt_str_inl("incoming_weight", 15) : fxt_str_inl("outgoing_weight", 15);
	struct fxt_cswitch s = {
		.cpu = cpu & 0xffffu,
		.out_state = out ? (preempt ? STATE_RUNNING : STATE_BLOCKED) : 0,
		.ts = ts,
		.out_tid = out ? tid : other,
		.in_tid = out ? other : tid,
		.args = &idle,
		.nargs = other ? 0 : 1,
	};
	uint32_t words = fxt_cswitch_words(&s);
	const uint64_t *end = S.w.end;
	uint64_t *r = words ? fxt_chunk_reserve(&S.w, words) : NULL;
	if (S.w.end != end)
		__atomic_add_fetch(&S.chunks, 1, __ATOMIC_RELAXED);
	if (r && fxt_cswitch_write(r, &s) > 0)
		S.switches++;
}

/* One record of a ring (rec: a contiguous copy, size bytes). */
static void handle(const struct perf_event_header *h, const unsigned char *rec)
{
	const unsigned char *p = rec + sizeof(*h), *end = rec + h->size;
	uint64_t other = 0;
	switch (h->type) {
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (end - p >= 16) {
			memcpy(v, p, 16);
			S.lost += v[1];
			S.w.dropped += v[1];
			fxt_buf_drop_reason(&fxtp.buf, FXT_DROP_SWITCHES);
		}
		return;
	}
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		uint32_t np[2];
		if (end - p < 8)
			return;
		memcpy(np, p, 8);
		other = np[1];
		p += 8;
	} /* fall through */
	case PERF_RECORD_SWITCH: {
		struct { uint32_t pid, tid; uint64_t time; uint32_t cpu, res; } id;
		if (end - p < (long)sizeof(id))
			return;
		memcpy(&id, p, sizeof(id));
		int out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
		int preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
		put_switch(id.cpu, to_ticks(id.time), out, preempt, id.tid, other);
		return;
	}
	default:
		return;
	}
}

/* Writes every whole record of ring r and frees its space. Lock held. */
static void drain_ring(struct ring *r)
{
	struct perf_event_mmap_page *pg = r->pg;
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	uint64_t size = pg->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	unsigned char copy[256];
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t off = tail % size;
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(off + i) % size];
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* torn or corrupt: stop here, the kernel's view wins */
		const unsigned char *rec = data + off;
		if (off + h.size > size) {	/* wraps: copy it whole */
			if (h.size <= sizeof(copy)) {
				for (size_t i = 0; i < h.size; i++)
					copy[i] = data[(off + i) % size];
				rec = copy;
			} else {
				rec = NULL;
			}
		}
		if (rec)
			handle(&h, rec);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(void)
{
	for (int i = 0; i < S.ncpu; i++)
		if (S.rings[i].pg)
			drain_ring(&S.rings[i]);
}

static void *reader(void *arg)
{
	unsigned gen = (unsigned)(uintptr_t)arg;
	struct fxtp_thread *t = &fxtp_self;
	__atomic_store_n(&S.reader_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	fxtp_enter(t);	/* held for good: wrappers this thread reaches pass through */
	while (!__atomic_load_n(&S.stop, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE) == gen) {
		int ready = __atomic_load_n(&S.ready, __ATOMIC_ACQUIRE);
		struct epoll_event ev[8];
		uint64_t v;
		if (epoll_wait(S.epfd, ev, 8, POLL_MS) < 0 && errno != EINTR)
			break;
		if (read(S.efd, &v, sizeof(v)) < 0) {
			/* nothing pending: EAGAIN */
		}
		if (__atomic_load_n(&S.stop, __ATOMIC_ACQUIRE) || !ready)
			continue;
		pthread_mutex_lock(&S.lock);
		if (!__atomic_load_n(&S.done, __ATOMIC_ACQUIRE))
			drain_all();
		pthread_mutex_unlock(&S.lock);
	}
	return NULL;
}

/* Reads the page's TSC conversion (under its seqlock). Returns 1 when it exists. */
static int tsc_conversion(const struct perf_event_mmap_page *pg)
{
	for (int tries = 0; tries < 100; tries++) {
		uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		int cap = pg->cap_user_time_zero && !pg->cap_user_time_short;
		S.time_zero = pg->time_zero;
		S.time_mult = pg->time_mult;
		S.time_shift = pg->time_shift;
		atomic_thread_fence(memory_order_acquire);	/* stdatomic: TSan takes it */
		if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq && !(seq & 1))
			return cap && S.time_mult;
	}
	return 0;
}

static const struct ring *first_ring(void)
{
	for (int i = 0; i < S.ncpu; i++)
		if (S.rings[i].pg)
			return &S.rings[i];
	return NULL;
}

/* Adds fd to the reader's epoll set (input). Returns 0 or -1 (errno). */
static int watch(int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };
	return epoll_ctl(S.epfd, EPOLL_CTL_ADD, fd, &e);
}

/* Reader thread first (not inheriting the events), then the events, then it runs. */
static void start(void)
{
	int rc;
	unsigned gen = __atomic_add_fetch(&S.gen, 1, __ATOMIC_ACQ_REL);
	S.stop = 0;
	S.done = 0;
	S.ready = 0;
	S.switches = S.lost = 0;
	pthread_mutex_init(&S.lock, NULL);
	fxt_chunk_init(&S.w, &fxtp.buf, NULL);
	__atomic_store_n(&S.chunks, 0, __ATOMIC_RELAXED);
	fxtp_fd_close(&S.efd);	/* a start after a failed exec: the last reader ends by gen */
	fxtp_fd_close(&S.epfd);
	S.efd = fxtp_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	S.epfd = S.efd < 0 ? -1 : fxtp_fd_high(epoll_create1(EPOLL_CLOEXEC));
	if (S.epfd < 0 || watch(S.efd) < 0) {
		fxtp_warn("cannot record context switches (eventfd, epoll); going on without",
			  strerror(errno));
		return;
	}
	fxtp_fd_keep(&S.efd);	/* a daemon closing every descriptor keeps them */
	fxtp_fd_keep(&S.epfd);
	/* Opened (in the rings' absence the reader only polls efd) before the thread exists. */
	S.rings = NULL;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (S.joinable)
		pthread_detach(S.reader_th);	/* a failed exec's start: the last one ends by gen */
	S.joinable = 0;
	__atomic_store_n(&S.reader_tid, 0, __ATOMIC_RELEASE);
	fxtp_real_init();
	rc = fxtp_real.pthread_create ? fxtp_real.pthread_create(&S.reader_th, NULL, reader,
							     (void *)(uintptr_t)gen) : ENOSYS;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		fxtp_warn("cannot record context switches (reader thread); going on without",
			  strerror(rc));
		return;
	}
	S.joinable = 1;	/* fxtp_sched_end joins it */
	/* Its tid known before the program runs on: exec.c tells the program's threads from it
	 * (a busy machine may not have run it yet). */
	fxtp_await_tid(&S.reader_tid);
	if (!fxtp.use_tsc) {
		rc = open_rings(CLOCK_MONOTONIC);
	} else {
		rc = open_rings(-1);
		if (rc == 0 && !(S.use_tsc_conv = tsc_conversion(first_ring()->pg))) {
			drop_rings(1);
			rc = open_rings(CLOCK_MONOTONIC);
		}
	}
	if (rc < 0) {
		char why[160];
		snprintf(why, sizeof(why), "perf_event_open: %s%s", strerror(-rc),
			 rc == -EACCES || rc == -EPERM ?
				 " (kernel.perf_event_paranoid > 2, seccomp or a container)" : "");
		fxtp_warn("cannot record context switches; going on without", why);
		__atomic_store_n(&S.stop, 1, __ATOMIC_RELEASE);
		uint64_t one = 1;
		if (write(S.efd, &one, sizeof(one)) < 0) {
			/* the reader stops at its next timeout */
		}
		return;
	}
	for (int i = 0; i < S.ncpu; i++)
		if (S.rings[i].pg)
			watch(S.rings[i].fd);	/* else drained at the reader's timeouts */
	S.in_weight_idx = (uint16_t)fxtp_name_index("incoming_weight", 15);
	S.out_weight_idx = (uint16_t)fxtp_name_index("outgoing_weight", 15);
	S.on = 1;
	__atomic_store_n(&S.ready, 1, __ATOMIC_RELEASE);
	uint64_t one = 1;	/* the reader polls the rings from its next wakeup */
	if (write(S.efd, &one, sizeof(one)) < 0) {
		/* it will at its next timeout */
	}
}

void fxtp_sched_fork_child(void)
{
	S.joinable = 0;	/* the parent's reader is not in this process: never joined here */
	if (!fxtp_settings.sched || !fxtp_running())
		return;
	int saved = errno;
	/* The parent's rings: their descriptors are inherited, their mappings are not (perf's
	 * mmap is VM_DONTCOPY). Their addresses are free here, and the child's own buffer, mapped
	 * just before (fork.c), may already lie over them: unmapping them would cut holes in it
	 * (its writers then wrote into the rings mapped next, or died of SIGBUS). */
	drop_rings(0);
	fxtp_fd_close(&S.efd);
	fxtp_fd_close(&S.epfd);
	S.on = 0;
	start();
	errno = saved;
}

/* Enables or disables every ring's event. */
static void rings_enable(int on)
{
	for (int i = 0; i < S.ncpu; i++)
		if (S.rings[i].fd >= 0)
			ioctl(S.rings[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void fxtp_sched_start(void)
{
	if (!fxtp_settings.sched)
		return;
	if (S.on && !__atomic_load_n(&S.stop, __ATOMIC_ACQUIRE)) {
		/* Paused by a STOP: the same reader and rings, writing into the new buffer. */
		pthread_mutex_lock(&S.lock);
		fxt_chunk_init(&S.w, &fxtp.buf, NULL);
		__atomic_store_n(&S.chunks, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&S.done, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&S.lock);
		rings_enable(1);
		return;
	}
	start();
}

void fxtp_sched_pause(void)
{
	if (!S.on || __atomic_exchange_n(&S.done, 1, __ATOMIC_ACQ_REL))
		return;
	int saved = errno;
	rings_enable(0);
	pthread_mutex_lock(&S.lock);
	drain_all();	/* done is set: the reader drains no more */
	fxt_chunk_flush(&S.w);
	pthread_mutex_unlock(&S.lock);
	errno = saved;
}

uint64_t fxtp_sched_others(const struct fxt_buf_hdr *h, int from_signal)
{
	int locked = S.on && (from_signal ? pthread_mutex_trylock(&S.lock) == 0
					  : pthread_mutex_lock(&S.lock) == 0);
	uint64_t mine = __atomic_load_n(&S.chunks, __ATOMIC_ACQUIRE);
	uint64_t taken = __atomic_load_n(&h->next_chunk, __ATOMIC_ACQUIRE);
	if (locked)
		pthread_mutex_unlock(&S.lock);
	return taken > mine ? taken - mine : 0;
}

void fxtp_sched_stop(int from_signal)
{
	if (!S.on || __atomic_exchange_n(&S.done, 1, __ATOMIC_ACQ_REL))
		return;
	int saved = errno;
	rings_enable(0);
	if (from_signal ? pthread_mutex_trylock(&S.lock) == 0 : pthread_mutex_lock(&S.lock) == 0) {
		/* done is set: the reader drains no more; what is left is ours to write */
		drain_all();
		fxt_chunk_flush(&S.w);
		pthread_mutex_unlock(&S.lock);
	}
	/* The reader is left asleep (done: it drains no more) rather than ended: a thread ending
	 * while the process exits races the exit's own work (under ASan, its leak check
	 * deadlocked with the ending thread's frees), and a failed exec resumes it as a START
	 * does. */
	errno = saved;
}

void fxtp_sched_end(void)
{
	if (!S.joinable)
		return;
	int saved = errno;
	__atomic_store_n(&S.stop, 1, __ATOMIC_RELEASE);
	uint64_t one = 1;
	if (write(S.efd, &one, sizeof(one)) < 0) {
		/* it stops at its next timeout (100 ms) */
	}
	fxtp_real_init();
	if (fxtp_real.pthread_join)
		fxtp_real.pthread_join(S.reader_th, NULL);
	S.joinable = 0;
	errno = saved;
}

pid_t fxtp_sched_reader(void)
{
	return __atomic_load_n(&S.reader_tid, __ATOMIC_ACQUIRE);
}
