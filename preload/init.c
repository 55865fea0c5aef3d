/* Life of the tracer in a process: the constructor (options, clock, buffer, then RUNNING last),
 * the exit flush (destructor, _exit/_Exit wrappers, fatal signals: close open frames, calibrate
 * ticks per second over the whole run, finish the archive file in place and rename it), and
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
 *                     parent (fork + exec, system, posix_spawn). After an exec of the same
 *                     pid the new image writes FXT_OUTPUT.<pid>, then FXT_OUTPUT.<pid>.<n>
 *                     (fxtp_out_name; exec.c). A process that recorded nothing leaves the
 *                     name to one that did: an image that execs to the next, a wrapper to
 *                     the one program it started that recorded (outname.c); a wrapper
 *                     inside the tree leaves no file. Written as <path>.part, then
 *                     renamed. A relative path is made absolute once, in the environment
 *                     too (export_output): a descendant in another directory writes beside
 *                     it.
 *   FXT_BUFFER_SIZE   bytes of the trace buffer per process under fxtrun, with an optional K,
 *                     M or G suffix (powers of 1024): 1M .. 64G, default 64M, reserved as
 *                     used. Without fxtrun the archive file is the buffer and grows as the
 *                     program runs (preload/standalone.c); this only sizes its string area.
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/options.h"
#include "common/protocol.h"
#include "preload/emit.h"
#include "preload/exec.h"
#include "common/outpath.h"
#include "preload/fxtp.h"
#include "preload/init.h"
#include "preload/life.h"
#include "preload/names.h"
#include "preload/outname.h"
#include "preload/provider.h"
#include "preload/real.h"
#include "preload/registry.h"
#include "preload/sample.h"
#include "preload/sched.h"
#include "preload/signals.h"
#include "preload/stack.h"
#include "preload/standalone.h"
#include "preload/thread.h"
#include "preload/wait.h"
#include "writer/outfile.h"
#include "writer/sweep.h"
#include "writer/fields.h"
#include "writer/records.h"

uint32_t fxtp_state = FXTP_STATE_SETUP;
struct fxt_settings fxtp_settings;
struct fxtp_ctx fxtp;
uint64_t fxtp_tick_gap;
static uint64_t fxtp_t0_width;	/* ticks of uncertainty of (fxtp.t0_ticks, fxtp.t0_ns) */

#define CALIBRATE_MIN_NS 10000000ULL /* the longest calibration wait: up to 10 ms of run */
#define CALIBRATE_SPAN 4000ULL	      /* span / pair error of a calibration (see below) */
#define CALIBRATE_PAD 64ULL	      /* ticks added to the pairs' widths: reordered reads */
#define SETTLE_NS 50000ULL /* wait for hooks in flight when the exit flush starts */
#define GAP_NS 50000ULL	   /* the quick calibration of fxtp_tick_gap at start */
#define DURABLE_WAIT_NS 500000000ULL /* the longest wait for durable records in flight */

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
	if (fxt_write_all(2, line, n) < 0) {
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

/* FXT_OUTPUT=<a relative path> made absolute in this process's environment too, in place in the
 * array main() receives (a program that passes its own envp on, as bash does, passes it): the
 * processes it starts write beside FXT_OUTPUT and join its tree (outname.c) also from another
 * working directory (`sh -c 'cd sub && ./app'`). */
static char output_env[sizeof("FXT_OUTPUT=") + sizeof(fxtp.output_opt)];

static void export_output(void)
{
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, "FXT_OUTPUT=", 11)) {
			snprintf(output_env, sizeof(output_env), "FXT_OUTPUT=%s", fxtp.output_opt);
			*e = output_env;
			return;
		}
	}
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
	const char *session = getenv(FXT_ENV_SESSION), *refused;
	if (session && *session && (refused = fxtp_provider_session_refused(session)))
		return bad_option(FXT_ENV_SESSION, session, refused);
	if (o->output) {
		const char *why;
		fxtp.output_set = 1;
		absolute(o->output, fxtp.output_opt, sizeof(fxtp.output_opt));
		if (!getenv("FXT_SESSION") && fxt_outpath_check(fxtp.output_opt, &why) < 0)
			return bad_option("FXT_OUTPUT", o->output, why);	/* a device... */
		if (o->output[0] != '/')
			export_output();
	}
	return 0;
}

/* ---- clock ---- */

/* A (ticks, ns) pair of the same instant: fxt_tsc_pair(); without a TSC, ticks are the clock
 * itself: one read, exact (width 0). Async-signal-safe. */
static void clock_pair(uint64_t *ticks, uint64_t *ns, uint64_t *width)
{
	if (!fxtp.use_tsc) {
		*ticks = *ns = fxt_mono_ns();
		*width = 0;
		return;
	}
	fxt_tsc_pair(ticks, ns, width);
}

/* Ticks per second over [start, now], and in *end the pair it ends at (the end of the
 * archive's clock record). The two pairs' error is at most (w0 + w1) / 2 ticks, so a span of
 * CALIBRATE_SPAN * (w0 + w1 + CALIBRATE_PAD) ticks bounds the rate's error by 1/8000 (the
 * archive's must be within 0.1%): a process that ran that long (typically under 1 ms) does not
 * wait, a shorter one spins until then, and never past CALIBRATE_MIN_NS. Async-signal-safe. */
static uint64_t ticks_per_second(struct fxt_clock_pair *end)
{
	uint64_t width;
	do {
		clock_pair(&end->ticks, &end->ns, &width);
	} while (fxtp.use_tsc && end->ns - fxtp.t0_ns < CALIBRATE_MIN_NS &&
		 end->ticks - fxtp.t0_ticks <
			 CALIBRATE_SPAN * (fxtp_t0_width + width + CALIBRATE_PAD));
	if (!fxtp.use_tsc)
		return 1000000000ULL;
	return fxt_ticks_per_second(end->ticks - fxtp.t0_ticks, end->ns - fxtp.t0_ns);
}

/* Ticks that surely put two timestamps in different nanoseconds (fxtp_after): the TSC's
 * ticks per ns rounded up, with 1/64 to spare for the quick calibration's error (50 us, pairs
 * good to a few ticks); 1 when timestamps are ns. */
static uint64_t tick_gap(void)
{
	if (!fxtp.use_tsc)
		return 1;
	uint64_t ns;
	while ((ns = fxt_mono_ns()) - fxtp.t0_ns < GAP_NS)
		;
	uint64_t tps = fxt_ticks_per_second(fxtp_now() - fxtp.t0_ticks, ns - fxtp.t0_ns);
	return (tps + tps / 64) / 1000000000ULL + 1;
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
 * the indexes cached by names.c stay valid). Only its used part is read: a parent that ends
 * meanwhile compacts its file at the finish, cutting the rest of the area and moving its chunks
 * (a walk up to durable_size went on into them and past the file's new end: SIGBUS in the
 * child); the used part stays where it is. */
static void copy_strings(const struct fxt_buf *from)
{
	const uint64_t *p = fxt_buf_durable(from);
	uint64_t used = __atomic_load_n(&from->hdr->durable_used, __ATOMIC_ACQUIRE);
	if (used > from->hdr->durable_size)
		used = from->hdr->durable_size;
	struct fxt_sweep s = fxt_sweep_over(p, 0, used / 8);
	for (size_t n; (n = fxt_sweep_peek(&s)); s.at += n) {
		if (fxt_field_get(FXT_RECORD_TYPE, s.header) == FXT_RT_STRING) {
			uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, n);
			if (!r)
				return;
			memcpy(r + 1, p + s.at + 1, (n - 1) * 8);
			fxt_chunk_commit(r, s.header);
		}
	}
}

/* A buffer mapping given up: unmapped, unless it was retired by a stop (fxtp_retire_buffer),
 * when it stays mapped until the next one is given up (a hook preempted inside its few
 * instructions since before that stop may still store into it). */
static void *retired, *grave;
static size_t retired_size, grave_size;

static void bury(void *map, size_t size)
{
	if (map != retired) {
		munmap(map, size);
		return;
	}
	if (grave)
		munmap(grave, grave_size);
	grave = retired;
	grave_size = retired_size;
	retired = NULL;
}

void fxtp_retire_buffer(void)
{
	const struct fxt_buf_hdr *h = fxtp.buf.hdr;
	uint8_t *map = fxtp.map;
	long page = sysconf(_SC_PAGESIZE);
	size_t keep = (size_t)((uint8_t *)fxt_buf_durable(&fxtp.buf) - map) +
		      (size_t)__atomic_load_n(&h->durable_used, __ATOMIC_RELAXED);
	if (keep > (size_t)(h->chunks_off))
		keep = (size_t)h->chunks_off;
	keep = (keep + (size_t)page - 1) & ~((size_t)page - 1);
	if (keep > fxtp.map_size)
		keep = fxtp.map_size;
	/* The header and strings survive in private memory (the next buffer copies the strings:
	 * names.c's indexes stay valid); the chunks become zero pages. */
	void *copy = mmap(NULL, keep, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy != MAP_FAILED) {
		memcpy(copy, map, keep);
		if (mremap(copy, keep, keep, MREMAP_MAYMOVE | MREMAP_FIXED, map) == MAP_FAILED)
			munmap(copy, keep);
	}
	if (fxtp.map_size > keep)
		mmap(map + keep, fxtp.map_size - keep, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	retired = map;
	retired_size = fxtp.map_size;
}

/* Ticks of a stall worth recording as a tracer slice (about 10 us; the clock is not calibrated
 * yet, so TSC ticks are taken for at most 2 GHz). */
#define STALL_TICKS 20000ULL

void fxtp_out_name(int seq, char *buf, size_t size)
{
	char name[4200];
	int pid = (int)fxtp.pid;
	if (!fxtp.output_set && seq < 2)
		snprintf(name, sizeof(name), "fxtauto.%d.fxt", pid);
	else if (!fxtp.output_set)
		snprintf(name, sizeof(name), "fxtauto.%d.%d.fxt", pid, seq);
	else if (!seq)
		snprintf(name, sizeof(name), "%s", fxtp.output_opt);
	else if (seq == 1)
		snprintf(name, sizeof(name), "%.4000s.%d", fxtp.output_opt, pid);
	else
		snprintf(name, sizeof(name), "%.4000s.%d.%d", fxtp.output_opt, pid, seq);
	if (fxtp.output_set)
		snprintf(buf, size, "%s", name);
	else
		absolute(name, buf, size);
}

int fxtp_open_buffer(void)
{
	struct fxt_buf old = fxtp.buf;
	void *old_map = fxtp.map;
	size_t old_size = fxtp.map_size, size = fxtp.buffer_size;
	uint64_t durable = size / 8;
	if (durable < (64u << 10))
		durable = 64u << 10;
	if (durable > (32u << 20))
		durable = 32u << 20;
	fxtp.pid = getpid();

	fxtp_out_name(fxtp.name_seq, fxtp.out_path, sizeof(fxtp.out_path));

	/* The clock record's start: read now, so that its two pairs bracket this buffer's
	 * events closely (a registered process's constructor may be days before its trace). */
	struct fxt_clock_pair start;
	uint64_t width;
	clock_pair(&start.ticks, &start.ns, &width);
	/* Under fxtrun: the session's shared buffer file, in its mode (preload/provider.c);
	 * else the archive file itself, growing (preload/standalone.c). */
	void *m = NULL;
	int rc = fxtp_provider_open(&fxtp.buf, &m, size, durable, FXT_BUF_DEFAULT_CHUNK, start);
	if (rc < 0)
		return rc;
	if (!m) {
		/* The string area is reserved in the file: 1/32 of the size (2 MiB by default). */
		rc = fxtp_standalone_open(&fxtp.buf, &m, &size, durable / 4, fxtp.out_path,
					  fxtp.prog, fxtp.pid, start);
		if (rc < 0)
			return rc;
	}
	fxtp.map = m;
	fxtp.map_size = size;
	fxtp.warmed = 0;
	fxtp.buf_gen++;
	fxtp.buf.now = fxtp_now;
	fxtp.buf.stall_ticks = fxtp.use_tsc ? STALL_TICKS : STALL_TICKS / 2;
	fxtp.buf.hdr->start_ticks = fxtp_now();
	if (old_map) {
		copy_strings(&old);
		fxtp_outname_reopened(old.hdr);
		bury(old_map, old_size);
	}
	fxtp_emit_kobj(FXT_OBJ_TYPE_PROCESS, (uint64_t)fxtp.pid, fxtp.prog,
		       (uint32_t)strlen(fxtp.prog), 0);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define WARM_DURABLE (64u << 10) /* durable bytes populated at start (strings, threads) */

void fxtp_buffer_warm(void)
{
	if (__atomic_exchange_n(&fxtp.warmed, 1, __ATOMIC_RELAXED))
		return;
	const struct fxt_buf_hdr *h = fxtp.buf.hdr;
	uint64_t durable = h->durable_size < WARM_DURABLE ? h->durable_size : WARM_DURABLE;
	int saved = errno;	/* best effort: the pages fault on first write otherwise */
	madvise(fxtp.map, h->durable_off + durable, MADV_POPULATE_WRITE);
	errno = saved;
}

void fxtp_refresh_tps(void)
{
	struct fxt_clock_pair now;
	uint64_t width;
	clock_pair(&now.ticks, &now.ns, &width);
	if (fxtp.use_tsc && now.ns - fxtp.t0_ns >= 1000000)
		fxt_outfile_set_tps(&fxtp.buf,
				    fxt_ticks_per_second(now.ticks - fxtp.t0_ticks,
							 now.ns - fxtp.t0_ns),
				    &now);
}

/* ---- archive at exit ---- */

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

/* Closes at now every open frame of the threads recording under word `was` into w (the
 * caller's own popped when self_too, the others' read: they may still run). lock = 0 from a
 * signal. */
static void close_all(struct fxt_chunk_w *w, uint32_t was, uint64_t now, int lock, int self_too)
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

/* The standalone archive's name at the finish (README, FXT_OUTPUT): an image that recorded
 * nothing gives its name to the image that replaces it at exec (a wrapper that execs the
 * program: `env ./app`), and a root to the one process it started that recorded (a wrapper
 * that forks it: preload/outname.c). Async-signal-safe. */
static void finish_standalone(uint64_t now, uint64_t tps)
{
	fxtp_out_name(fxtp.name_seq, fxtp.out_path, sizeof(fxtp.out_path));
	/* name_freed: the next image takes name_seq */
	fxtp.name_freed = fxtp_outname_finish(&fxtp.buf, now, tps, fxtp.out_path, fxtp.recorded,
					      fxtp.at_exec);
}

/* Waits (up to DURABLE_WAIT_NS, yielding the CPU) until every durable record reserved so far
 * is committed. A thread preempted between its reservation and its commit (a new thread's
 * name, a string) leaves a hole that readers stop at: the records after it, strings that
 * events refer to, would be lost, and with them the provider's data from the first event
 * that names one. The writer may be the caller itself, interrupted by the signal that ends
 * the process: then the wait runs out. Async-signal-safe. */
static void settle_durable(void)
{
	struct fxt_buf_hdr *h = fxtp.buf.hdr;
	const uint64_t *d = fxt_buf_durable(&fxtp.buf);
	for (uint64_t t0 = fxt_mono_ns(); fxt_mono_ns() - t0 < DURABLE_WAIT_NS; sched_yield()) {
		uint64_t used = __atomic_load_n(&h->durable_used, __ATOMIC_ACQUIRE);
		/* A grown area is read only where it is backed (beyond: a reservation growing it) */
		uint64_t backed = __atomic_load_n(&h->durable_backed, __ATOMIC_ACQUIRE);
		if (used > h->durable_size)
			return;	/* full or refused: nothing more is reserved */
		if ((!backed || used <= backed - h->durable_off) &&
		    fxt_sweep_prefix(d, used / 8) * 8 == used)
			return;
	}
}

/* Ends the recording into the buffer, once the caller moved the state from `was` (RUNNING or
 * ARMED) to STOPPING: the stop time, hooks in flight settled, samples, context switches,
 * every open frame closed at the stop time, pending flows ended, drops counted, ticks per
 * second, the standalone archive finished, and the header's state STOPPED last. final: the
 * process (image) ends; else (STOP) tracing may start again, so sampling and context
 * switches pause instead of ending. */
static void end_recording(uint32_t was, int from_signal, int final)
{
	struct fxtp_thread *self = &fxtp_self;
	/* The stop time right away: a hook that saw RUNNING read its time before, so every
	 * record committed before stop_ticks is published is stamped before it (a manager that
	 * reads stop_ticks as 0 after a save's plan may write that plan as it is). Threads still
	 * running write on after this; the archive leaves their later events out. */
	uint64_t now = fxtp_now();
	__atomic_store_n(&fxtp.buf.hdr->stop_ticks, now, __ATOMIC_SEQ_CST);
	/* Hooks already past their state check finish first (exits pop no more after it). */
	for (uint64_t t0 = fxt_mono_ns(); fxt_mono_ns() - t0 < SETTLE_NS;)
		;
	settle_durable();
	/* Whether the image has calls or events of its own (samples and context switches aside: a
	 * wrapper waiting for its child is switched out too): one that has none (a shell or
	 * wrapper) leaves its name to one that has (finish_standalone). */
	fxtp.recorded = fxtp_sched_others(fxtp.buf.hdr, from_signal) ||
			(self->base && self->top != self->base);
	if (from_signal)
		fxtp_sample_stop();
	else
		fxtp_samples_flush(now);
	if (final)
		fxtp_sched_stop(from_signal);
	else
		fxtp_sched_pause();
	uint64_t taken = __atomic_load_n(&fxtp.buf.hdr->next_chunk, __ATOMIC_ACQUIRE);
	struct fxt_chunk_w others;
	close_all(&others, was, now, !from_signal, !self->in_tracer);
	fxtp_spawn_flush(&others, now);
	fxt_chunk_flush(&others);
	fxtp.recorded |= __atomic_load_n(&fxtp.buf.hdr->next_chunk, __ATOMIC_ACQUIRE) != taken;
	struct fxt_clock_pair end;
	uint64_t tps = ticks_per_second(&end);
	fxtp.buf.hdr->clock_end = end;
	fxtp.buf.hdr->ticks_per_second = tps;
	if (!fxtp_provider_managed())	/* else the manager writes the archive from the buffer */
		finish_standalone(now, tps);
	__atomic_store_n(&fxtp.buf.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
}

/* Moves a state with a buffer (RUNNING or ARMED) to STOPPING; returns the word it was, or 0
 * (no buffer, or another caller won). */
static uint32_t claim_stop(void)
{
	for (;;) {
		uint32_t w = fxtp_state_word(), s = w & FXTP_STATE_MASK;
		if (s != FXTP_STATE_RUNNING && s != FXTP_STATE_ARMED)
			return 0;
		if (fxtp_state_move(w, FXTP_STATE_STOPPING))
			return w;
	}
}

void fxtp_finish(int from_signal)
{
	if (getpid() != fxtp.pid)
		return;	/* a vfork child or raw clone: the buffer is its parent's */
	uint32_t was = claim_stop();
	if (!was)
		return;
	int saved = errno;
	end_recording(was, from_signal, 1);
	errno = saved;
}

int fxtp_stop(void)
{
	uint32_t was = claim_stop();
	if (!was)
		return -EALREADY;
	int saved = errno;
	end_recording(was, 0, 0);
	errno = saved;
	return 0;
}

void fxtp_pause(uint32_t was, int lock)
{
	struct fxt_chunk_w others;
	close_all(&others, was, fxtp_now(), lock, 1);
	fxt_chunk_flush(&others);
	fxt_chunk_close(&others);
}

/* ---- constructor, destructor, _exit ---- */

/* The preload's one constructor (priority 101, the first of this library; across libraries the
 * loader's order holds, hence real.c's lazy resolution), run with the guard held. Its order,
 * and why:
 *   1. real functions (real.c): every later step and any wrapper may call one;
 *   2. the exec image number (exec.c) and the settings (common/options.c): everything below
 *      reads them; a bad setting stops here, tracing off;
 *   3. the clock (TSC or CLOCK_MONOTONIC, first calibration pair), since the buffer stamps its
 *      start and FXT_MIN_DURATION becomes ticks;
 *   4. names.c's map and thread.c's registry, then the buffer (init.c, which interns and emits
 *      the process record into them), signal handlers (signal.c: a fatal signal flushes the
 *      buffer, so it must exist) and the fork handlers (fork.c: a fork child opens its own);
 *   5. RUNNING, published last of what the hooks need; with FXT_REGISTER (registry.c) no
 *      buffer is made in step 4, the state is IDLE and the provider thread starts instead:
 *      a manager's START makes the buffer and starts the parts of step 6;
 *   6. the parts that run only while tracing: sampling (sample.c), context switches
 *      (sched.c), <fxt/trace.h> categories (api.c, publishes its generation last), lock
 *      labels (lock.c), log capture (log.c). This is the order of the constructors at
 *      priorities 101, 102 and 103 before they were merged into this one.
 * Fails: one line on stderr, tracing off; the program runs on. */
__attribute__((constructor(101), no_instrument_function)) static void fxtp_init(void)
{
	struct fxtp_thread *t = &fxtp_self;
	fxtp_enter(t);
	int saved = errno;
	fxtp_real_init();
	int image_seq = fxtp_exec_image();
	if (read_options() < 0)
		goto out;
	snprintf(fxtp.prog, sizeof(fxtp.prog), "%s", program_invocation_short_name);
	if (image_seq >= 0)
		fxtp.name_seq = image_seq;	/* a later image of this pid (exec.c) */
	else
		fxtp.name_seq = fxtp.parent_traced = fxtp.output_set && parent_is_traced();
	fxtp.use_tsc = fxt_invariant_tsc();
	clock_pair(&fxtp.t0_ticks, &fxtp.t0_ns, &fxtp_t0_width);
	fxtp_tick_gap = tick_gap();
	if (fxtp.min_ticks && fxtp.use_tsc) {
		/* A short calibration (1 ms) converts FXT_MIN_DURATION into TSC ticks. */
		uint64_t ns;
		while ((ns = fxt_mono_ns()) - fxtp.t0_ns < 1000000)
			;
		uint64_t tps = fxt_ticks_per_second(fxtp_now() - fxtp.t0_ticks, ns - fxtp.t0_ns);
		fxtp.min_ticks = (uint64_t)((unsigned __int128)fxtp.min_ticks * tps / 1000000000ULL);
	}
	int rc, registered = fxtp_registry_wanted();
	if ((rc = fxtp_names_init()) < 0 || (rc = fxtp_threads_init()) < 0 ||
	    (!registered && (rc = fxtp_open_buffer()) < 0) || (rc = fxtp_signals_init()) < 0 ||
	    (rc = fxtp_fork_init()) < 0) {
		fxtp_warn("cannot start tracing; tracing off", strerror(-rc));
		goto out;
	}
	fxtp_thread_alive();	/* the main thread: its pthread_exit may leave others running */
	if (registered) {
		/* No buffer until a manager starts a trace (registry.c). */
		fxtp_state_move(FXTP_STATE_SETUP, FXTP_STATE_IDLE);
		fxtp_lock_init();
		fxtp_log_init();
		if ((rc = fxtp_registry_start()) < 0)
			fxtp_warn("FXT_REGISTER: cannot start the provider thread; tracing off",
				  strerror(-rc));
		goto out;
	}
	fxtp_outname_attach();
	fxtp_state_move(FXTP_STATE_SETUP, FXTP_STATE_RUNNING);
	fxtp_sample_start();
	fxtp_sched_start();
	fxtp_api_init();
	fxtp_lock_init();
	fxtp_log_init();
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
