/* Life of the tracer in a process: the constructor (options, clock, buffer, then RUNNING last),
 * the exit flush (destructor, _exit/_Exit wrappers, fatal signals: close open frames, calibrate
 * ticks per second over the whole run, write the archive to a temporary name and rename it), and
 * the buffer of a process (also a fork child's). A bad option: one line on stderr, tracing off,
 * the program runs normally. The tracer never changes the program's output, status or errno. */
/* SPDX-License-Identifier: MIT */
/*
 * Environment (read once, in the constructor, through the table of common/options.c, which
 * also holds FXT_CATEGORIES, FXT_LOG, FXT_LOG_EVENTS and FXT_LOCK_LABELS; fxtrun refuses the
 * same values):
 *   FXT_OUTPUT        archive path (default: fxtauto.<pid>.fxt in the working directory at
 *                     start). A fork child writes FXT_OUTPUT.<childpid> (default name: its own
 *                     fxtauto.<childpid>.fxt), and so does a program started by a traced
 *                     parent (fork + exec, system, posix_spawn). Written as <path>.tmp, then
 *                     renamed.
 *   FXT_BUFFER_SIZE   bytes of the trace buffer per process, with an optional K, M or G suffix
 *                     (powers of 1024): 1M .. 64G, default 64M. When it fills, later records
 *                     are dropped and counted, and the archive says so (buffer-full event).
 *   FXT_MAX_DEPTH     deepest call level recorded (1 = outermost calls only), 1 .. 2^31;
 *                     deeper calls are not recorded. Default: unlimited.
 *   FXT_FILTER        comma-separated fnmatch(3) globs: only functions whose name matches one
 *                     are recorded (e.g. "main,work*,ns::*").
 *   FXT_EXCLUDE       comma-separated globs: functions whose name matches one are not recorded.
 *   FXT_MIN_DURATION  calls shorter than this are not recorded: a number with unit ns, us, ms
 *                     or s (e.g. 10us); a bare number is nanoseconds.
 *   FXT_SAMPLE        sample call stacks at this rate in Hz of each thread's CPU time, 1 ..
 *                     100000 (empty: 997 Hz): preload/samples.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/options.h"
#include "preload/fxtp.h"
#include "preload/wait.h"
#include "preload/provider.h"
#include "preload/sample.h"
#include "writer/archive.h"
#include "writer/fields.h"

int fxtp_state = FXTP_STATE_SETUP;
struct fxt_settings fxtp_settings;
struct fxtp_ctx fxtp;
static uint64_t fxtp_t0_width;	/* ticks of uncertainty of (fxtp.t0_ticks, fxtp.t0_ns) */

#define CALIBRATE_MIN_NS 10000000ULL /* the longest calibration wait: up to 10 ms of run */
#define CALIBRATE_SPAN 4000ULL	      /* span / pair error of a calibration (see below) */
#define CALIBRATE_PAD 64ULL	      /* ticks added to the pairs' widths: reordered reads */
#define SETTLE_NS 50000ULL /* wait for hooks in flight when the exit flush starts */

void fxtp_warn(const char *msg, const char *detail)
{
	int saved = errno;
	char line[512];
	size_t n = 0;
	const char *parts[] = { "fxtauto: ", msg, detail ? ": " : "", detail ? detail : "", "\n" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strnlen(parts[i], sizeof(line) - 1 - n);
		memcpy(line + n, parts[i], l);
		n += l;
	}
	if (write(2, line, n) < 0) {
		/* nothing more to do: stderr is gone */
	}
	errno = saved;
}

/* ---- options ---- */

/* Makes path absolute against the working directory (cut to size - 1 bytes). */
static void absolute(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	if (path[0] != '/' && getcwd(buf, size - 1)) {
		n = strlen(buf);
		buf[n++] = '/';
	}
	snprintf(buf + n, size - n, "%s", path);
}

/* One line for a bad option: "fxtauto: NAME=VALUE: EXPECTED; tracing off". Returns -1. */
static int bad_option(const char *name, const char *value, const char *expected)
{
	char what[600];
	snprintf(what, sizeof(what), "%s=%.256s", name, value);
	char why[300];
	snprintf(why, sizeof(why), "%s; tracing off", expected);
	fxtp_warn(what, why);
	return -1;
}

/* Reads every FXT_* setting through the table of common/options.c (fxtrun refuses the same
 * values); on a bad one prints why and returns -1. */
static int read_options(void)
{
	const struct fxt_option *bad;
	const char *value;

	fxt_settings_default(&fxtp_settings);
	if (fxt_settings_read(&fxtp_settings, getenv, &bad, &value) < 0)
		return bad_option(bad->env, value, bad->expected);
	const struct fxt_settings *o = &fxtp_settings;
	fxtp.buffer_size = o->buffer_size;
	fxtp.max_depth = o->max_depth;
	fxtp.min_ticks = o->min_duration_ns;	/* converted to ticks once the clock is known */
	if ((o->filter && !(fxtp.filter = strdup(o->filter))) ||
	    (o->exclude && !(fxtp.exclude = strdup(o->exclude))))
		return bad_option(o->filter ? "FXT_FILTER" : "FXT_EXCLUDE", "", "out of memory");
	fxtp_sampling.hz = o->sample_hz;
	if (o->output) {
		fxtp.output_set = 1;
		absolute(o->output, fxtp.output_opt, sizeof(fxtp.output_opt));
	}
	return 0;
}

/* ---- clock ---- */

/* A (ticks, ns) pair of the same instant: ticks is the midpoint of two reads around the clock
 * read, off by at most *width / 2 ticks; the narrowest of a few tries (a preempted try is
 * wide). Async-signal-safe. */
static void clock_pair(uint64_t *ticks, uint64_t *ns, uint64_t *width)
{
	*width = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = fxtp_now(), n = fxt_mono_ns(), b = fxtp_now();
		if (b - a < *width) {
			*width = b - a;
			*ticks = a + (b - a) / 2;
			*ns = n;
		}
	}
}

/* Ticks per second over [start, now]. The two pairs' error is at most (w0 + w1) / 2 ticks, so a
 * span of CALIBRATE_SPAN * (w0 + w1 + CALIBRATE_PAD) ticks bounds the rate's error by 1/8000
 * (the archive's must be within 0.1%): a process that ran that long (typically under 1 ms)
 * does not wait, a shorter one spins until then, and never past CALIBRATE_MIN_NS.
 * Async-signal-safe. */
static uint64_t ticks_per_second(void)
{
	if (!fxtp.use_tsc)
		return 1000000000ULL;
	uint64_t ns, ticks, width;
	do {
		clock_pair(&ticks, &ns, &width);
	} while (ns - fxtp.t0_ns < CALIBRATE_MIN_NS &&
		 ticks - fxtp.t0_ticks < CALIBRATE_SPAN * (fxtp_t0_width + width + CALIBRATE_PAD));
	return (uint64_t)((unsigned __int128)(ticks - fxtp.t0_ticks) * 1000000000ULL /
			  (ns - fxtp.t0_ns));
}

/* Whether the parent process runs this library too (then this process is a traced program's
 * child that exec'd, and FXT_OUTPUT belongs to the parent): looks for our own file in the
 * parent's memory map. */
static int parent_is_traced(void)
{
	Dl_info self;
	char path[64], *line = NULL;
	size_t cap = 0;
	int found = 0;
	if (!dladdr((void *)parent_is_traced, &self) || !self.dli_fname || !*self.dli_fname)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)getppid());
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, self.dli_fname) != NULL;
	free(line);
	fclose(f);
	return found;
}

/* ---- buffer ---- */

/* Copies the string records of the durable area `from` into the current buffer (fork child:
 * the indexes cached by names.c stay valid). */
static void copy_strings(const struct fxt_buf *from)
{
	const uint64_t *p = fxt_buf_durable(from);
	size_t words = fxt_archive_valid_prefix(p, from->hdr->durable_size / 8) / 8;
	for (size_t at = 0; at < words;) {
		uint32_t n = (uint32_t)fxt_field_get(FXT_RECORD_SIZE, p[at]);
		if (fxt_field_get(FXT_RECORD_TYPE, p[at]) == FXT_RT_STRING) {
			uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, n);
			if (!r)
				return;
			memcpy(r + 1, p + at + 1, (n - 1) * 8);
			fxt_chunk_commit(r, p[at]);
		}
		at += n ? n : 1;
	}
}

int fxtp_open_buffer(void)
{
	struct fxt_buf old = fxtp.buf;
	void *old_map = fxtp.map;
	size_t size = fxtp.buffer_size;
	uint64_t durable = size / 8;
	if (durable < (64u << 10))
		durable = 64u << 10;
	if (durable > (32u << 20))
		durable = 32u << 20;

	/* Under fxtrun: the session's shared buffer file, in its mode (preload/provider.c). */
	void *m = NULL;
	int rc = fxtp_provider_open(&fxtp.buf, &m, size, durable, FXT_BUF_DEFAULT_CHUNK);
	if (rc < 0)
		return rc;
	fxtp.pid = getpid();
	if (!m) {
		/* Standalone, nobody else maps the buffer: private memory, so transparent huge pages
		 * spare the hot path one page fault per 4 KiB of events (fxtrun hands a shared file). */
		m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return -errno;
		madvise(m, size, MADV_HUGEPAGE);
		rc = fxt_buf_init(&fxtp.buf, m, size, durable, FXT_BUF_DEFAULT_CHUNK,
				  FXT_BUF_ONESHOT, (uint64_t)fxtp.pid);
		if (rc < 0) {
			munmap(m, size);
			return rc;
		}
	}
	fxtp.map = m;
	fxtp.map_size = size;
	fxtp.warmed = 0;
	fxtp.buf.hdr->start_ticks = fxtp_now();
	if (old_map) {
		copy_strings(&old);
		munmap(old_map, size);
	}

	char def[64];
	snprintf(def, sizeof(def), "fxtauto.%d.fxt", (int)fxtp.pid);
	if (!fxtp.output_set)
		absolute(def, fxtp.out_path, sizeof(fxtp.out_path));
	else if (old_map || fxtp.parent_traced)
		snprintf(fxtp.out_path, sizeof(fxtp.out_path), "%.4000s.%d", fxtp.output_opt,
			 (int)fxtp.pid);
	else
		snprintf(fxtp.out_path, sizeof(fxtp.out_path), "%s", fxtp.output_opt);
	snprintf(fxtp.tmp_path, sizeof(fxtp.tmp_path), "%.4000s.tmp", fxtp.out_path);

	fxtp_emit_kobj(FXT_OBJ_TYPE_PROCESS, (uint64_t)fxtp.pid, fxtp.prog,
		       (uint32_t)strlen(fxtp.prog), 0);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define WARM_DURABLE (256u << 10) /* durable bytes populated at start (strings, threads) */
#define WARM_STEP (512u << 10)	   /* chunk bytes populated per step, ahead of the writers */
#define WARM_LONG (512u << 10)	   /* past this many chunk bytes the process is a long writer */
#define WARM_MAX (1ULL << 30)	   /* a long writer gets this much populated at once */

/* End (offset in the mapping) of the chunk bytes populated so far: grows by WARM_STEP. */
static uint64_t warm_end;

static void populate(uint64_t from, uint64_t to)
{
	int saved = errno;
	if (to > fxtp.map_size)
		to = fxtp.map_size;
	if (to > from)	/* best effort: the pages fault on first write otherwise */
		madvise((uint8_t *)fxtp.map + from, to - from, MADV_POPULATE_WRITE);
	errno = saved;
}

/* fxt_buf.prepare (chunk slow path): populates the next WARM_STEP bytes of chunks once a writer
 * takes a chunk past the populated end, so events are written to populated pages without
 * paying for the whole buffer at start; past WARM_LONG bytes of chunks, the rest up to
 * WARM_MAX at once (what every process used to pay at start), so a long run's events never
 * fault. Chunks are taken in address order (a circular or streaming buffer comes back to
 * populated chunks). Async-signal-safe. */
static void prepare_chunk(struct fxt_buf *b, const uint64_t *chunk)
{
	uint64_t need = (uint64_t)((const uint8_t *)chunk - b->base) + b->hdr->chunk_size;
	uint64_t end = __atomic_load_n(&warm_end, __ATOMIC_RELAXED);
	while (need > end) {
		uint64_t to = need + WARM_STEP;
		if (need - b->hdr->chunks_off > WARM_LONG && to < WARM_MAX)
			to = WARM_MAX;
		if (__atomic_compare_exchange_n(&warm_end, &end, to, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			populate(end, to);
			return;
		}
	}
}

void fxtp_buffer_warm(void)
{
	if (__atomic_exchange_n(&fxtp.warmed, 1, __ATOMIC_RELAXED))
		return;
	const struct fxt_buf_hdr *h = fxtp.buf.hdr;
	uint64_t durable = h->durable_size < WARM_DURABLE ? h->durable_size : WARM_DURABLE;
	populate(0, h->durable_off + durable);
	__atomic_store_n(&warm_end, h->chunks_off, __ATOMIC_RELAXED);
	fxtp.buf.prepare = prepare_chunk;
}

/* ---- archive at exit ---- */

static int emit_fd(void *ctx, const void *data, size_t len)
{
	int fd = *(int *)ctx;
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -(n < 0 ? errno : EIO);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static struct fxt_chunk_w others_w; /* koid-inline closing events of other threads */

static void close_other(struct fxtp_thread *t, void *arg)
{
	uint64_t now = *(uint64_t *)arg;
	if (!t->dead)
		fxtp_close_frames(t, &others_w, now);
	fxt_chunk_flush(&t->w);
}

void fxtp_finish(int from_signal)
{
	int expected = FXTP_STATE_RUNNING;
	if (getpid() != fxtp.pid)
		return;	/* a vfork child or raw clone: the buffer is its parent's */
	if (!__atomic_compare_exchange_n(&fxtp_state, &expected, FXTP_STATE_STOPPING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	int saved = errno;
	struct fxtp_thread *self = &fxtp_self;
	/* Hooks already past their state check finish first (exits pop no more after it). */
	for (uint64_t t0 = fxt_mono_ns(); fxt_mono_ns() - t0 < SETTLE_NS;)
		;
	uint64_t now = fxtp_now();
	/* Threads still running write on after this; the archive leaves their later events out. */
	fxtp.buf.hdr->stop_ticks = now;
	if (from_signal)
		fxtp_sample_stop();
	else
		fxtp_samples_flush(now);
	if (self->base && !self->dead && !self->in_tracer)
		fxtp_close_frames(self, &self->w, now);
	fxt_chunk_flush(&self->w);
	fxt_chunk_init(&others_w, &fxtp.buf, NULL);
	fxtp_threads_each(close_other, &now, !from_signal);
	fxtp_spawn_flush(&others_w, now);
	fxt_chunk_flush(&others_w);
	fxtp.buf.hdr->ticks_per_second = ticks_per_second();
	if (fxtp_provider_managed())
		goto stopped;	/* fxtrun writes the archive from the shared buffer */

	struct fxt_archive_info info = {
		.with_magic = 1,
		.provider_id = (uint32_t)fxtp.pid,
		.provider_name = fxtp.prog,
	};
	int fd = open(fxtp.tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -errno : fxt_archive_write(&fxtp.buf, &info, emit_fd, &fd);
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(fxtp.tmp_path, fxtp.out_path) < 0)
		rc = -errno;
	if (rc < 0) {
		if (fd >= 0)
			unlink(fxtp.tmp_path);
		fxtp_warn("cannot write the archive", fxtp.out_path);
	}
stopped:
	__atomic_store_n(&fxtp.buf.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	errno = saved;
}

/* ---- constructor, destructor, _exit ---- */

__attribute__((constructor(101), no_instrument_function)) static void fxtp_init(void)
{
	struct fxtp_thread *t = &fxtp_self;
	fxtp_enter(t);
	int saved = errno;
	fxtp_real_init();
	if (read_options() < 0)
		goto out;
	snprintf(fxtp.prog, sizeof(fxtp.prog), "%s", program_invocation_short_name);
	fxtp.parent_traced = fxtp.output_set && parent_is_traced();
	fxtp.use_tsc = fxt_invariant_tsc();
	clock_pair(&fxtp.t0_ticks, &fxtp.t0_ns, &fxtp_t0_width);
	if (fxtp.min_ticks && fxtp.use_tsc) {
		/* A short calibration (1 ms) converts FXT_MIN_DURATION into TSC ticks. */
		uint64_t ns;
		while ((ns = fxt_mono_ns()) - fxtp.t0_ns < 1000000)
			;
		uint64_t tps = (uint64_t)((unsigned __int128)(fxtp_now() - fxtp.t0_ticks) *
					  1000000000ULL / (ns - fxtp.t0_ns));
		fxtp.min_ticks = (uint64_t)((unsigned __int128)fxtp.min_ticks * tps / 1000000000ULL);
	}
	int rc;
	if ((rc = fxtp_names_init()) < 0 || (rc = fxtp_threads_init()) < 0 ||
	    (rc = fxtp_open_buffer()) < 0 || (rc = fxtp_signals_init()) < 0 ||
	    (rc = fxtp_fork_init()) < 0) {
		fxtp_warn("cannot start tracing; tracing off", strerror(-rc));
		goto out;
	}
	__atomic_store_n(&fxtp_state, FXTP_STATE_RUNNING, __ATOMIC_RELEASE);
	fxtp_sample_start();
out:
	errno = saved;
	fxtp_leave(t);
}

__attribute__((destructor, no_instrument_function)) static void fxtp_fini(void)
{
	fxtp_finish(0);
}

FXTP_EXPORT void _exit(int status)
{
	fxtp_finish(0);
	fxtp_real_init();
	if (fxtp_real._exit)
		fxtp_real._exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

FXTP_EXPORT void _Exit(int status)
{
	fxtp_finish(0);
	fxtp_real_init();
	if (fxtp_real._Exit)
		fxtp_real._Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
