/* The end of recording: the exit flush (destructor, _exit/_Exit wrappers, fatal signals, exec)
 * and a manager's STOP: close open frames (every thread's: thread.c), settle records in flight,
 * end samples and context switches, calibrate ticks per second over the whole run, finish the
 * standalone archive in place and rename it. The first caller wins; the tracer never changes
 * the program's output, status or errno. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/life/flush.h"

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/base/clock.h"
#include "preload/base/fxtp.h"
#include "preload/base/real.h"
#include "preload/events/spawn.h"
#include "preload/hot/thread.h"
#include "preload/sampling/sampler.h"
#include "preload/sampling/sched.h"
#include "preload/transport/outname.h"
#include "preload/transport/provider.h"
#include "writer/sweep.h"

#define SETTLE_NS 50000ULL /* wait for hooks in flight when the exit flush starts */
#define DURABLE_WAIT_NS 500000000ULL /* the longest wait for durable records in flight */

/* The standalone archive's name at the finish (README, FXT_OUTPUT): an image that recorded
 * nothing gives its name to the image that replaces it at exec (a wrapper that execs the
 * program: `env ./app`), and a root to the one process it started that recorded (a wrapper
 * that forks it: preload/transport/outname.c). Async-signal-safe. */
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
	fxtp_threads_close(&others, was, now, !from_signal, !self->in_tracer);
	fxtp_spawn_flush(&others, now);
	fxt_chunk_flush(&others);
	fxtp.recorded |= __atomic_load_n(&fxtp.buf.hdr->next_chunk, __ATOMIC_ACQUIRE) != taken;
	struct fxt_clock_pair end;
	uint64_t tps = fxtp_ticks_per_second(&end);
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
