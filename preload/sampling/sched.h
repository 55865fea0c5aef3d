/* Scheduling records (sched.c): the traced threads' context switches from perf_event
 * (PERF_RECORD_SWITCH, no root needed at perf_event_paranoid <= 2), read off the program's
 * threads by one reader thread of the tracer and written as FXT context switch records. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SCHED_H
#define FXT_PRELOAD_SCHED_H

#include <stdint.h>
#include <sys/types.h>

/* Starts recording the process's context switches when FXT_SCHED is set (after the tracer
 * runs), or resumes them after a pause. Where the kernel refuses: one line on stderr, and the trace goes on without.
 * Fails: as said. Not thread-safe (constructor). */
void fxtp_sched_start(void);

/* STOP of a registered process (flush.c): disables the events and writes every switch still
 * in the rings; the reader stays for the next start (fxtp_sched_start resumes). Fails:
 * silently. Not thread-safe (provider thread). */
void fxtp_sched_pause(void);

/* Fork child (fork.c's handler): the parent's rings and reader are not the child's; it starts
 * over when FXT_SCHED is set. Fails: silently, as fxtp_sched_start. Not thread-safe. */
void fxtp_sched_fork_child(void);

/* Exit flush: stops the events and writes every switch still in the rings (from_signal: only
 * if the reader thread is not mid-drain; no lock is waited for); the reader stays, idle (a
 * failed exec resumes it with fxtp_sched_start). Fails: silently.
 * Thread-safe: the first caller (fxtp_finish's) does the work. */
void fxtp_sched_stop(int from_signal);

/* The program's last thread is ending: the reader ends and is joined (glibc ends a process
 * only once no thread is left); the rings stay for the exit flush's drain, and a later
 * fxtp_sched_start() starts a new reader. Fails: silently. Not thread-safe (thread.c). */
void fxtp_sched_end(void);

/* The chunks taken in the current buffer (header h) other than those holding context
 * switches (taken by the reader or a drain, which say nothing of whether the program recorded
 * calls or events of its own: flush.c, outname.c). Both counts are read under the reader's
 * lock, so a chunk the reader took is never counted as the program's (from_signal: tried,
 * else read as they are). Fails: never. Thread-safe, async-signal-safe with from_signal. */
uint64_t fxtp_sched_others(const struct fxt_buf_hdr *h, int from_signal);

/* The tid of the latest context switch reader thread (0: none started), known once
 * fxtp_sched_start() returns: a thread of the tracer's, not the program's (exec.c counts the
 * program's). Fails: never. Thread-safe. */
pid_t fxtp_sched_reader(void);

#endif
