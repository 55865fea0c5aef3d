/* The end of recording (flush.c): the exit flush, a manager's STOP, a stop trigger's pause.
 * Called from the destructor and the _exit wrappers, the fatal-signal paths (dispositions.c),
 * exec.c, the provider thread (manager-link.c) and the triggers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FLUSH_H
#define FXT_PRELOAD_FLUSH_H

#include <stdint.h>

/* Stops tracing once, closes every open frame, writes the archive (tmp + rename). Async-signal-
 * safe when from_signal (skips nothing essential, takes no lock). Fails: silently (reports once
 * on stderr). Thread-safe: the first caller wins, later callers return at once. */
void fxtp_finish(int from_signal);
/* STOP (manager-link.c): ends the recording as the exit flush does (frames closed at the stop
 * time, drops counted, ticks per second, header state FXT_BUF_STOPPED), sampling and context
 * switches paused; the state stays STOPPING for the caller to retire the buffer and go IDLE.
 * Fails: -EALREADY (no buffer, or the exit flush won). Thread-safe as fxtp_finish. */
int fxtp_stop(void);

#endif
