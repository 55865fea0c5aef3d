/* Triggers of a trace (preload/transport/trigger.c): functions named by a START (common/registry.h) whose
 * entry starts recording (ARMED -> RUNNING), pauses it (RUNNING -> ARMED) or asks the manager
 * for a snapshot. Resolved once per START by the provider thread; looked up lock-free by the
 * hooks' slow paths. Firing is async-signal-safe: a compare-and-swap of the state word, open
 * frames closed without locks from a signal handler's level, one send(). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_TRIGGER_H
#define FXT_PRELOAD_TRIGGER_H

#include <stdint.h>

#include "common/registry.h"
#include "preload/base/fxtp.h"

#define FXTP_TRIGGER_ADDRS 64u	/* resolved addresses of one trace's triggers */

/* Resolves the n triggers of session `session` through the symbolizer (every function of that
 * name in every loaded module) and publishes them. Returns 1 when a start trigger was given
 * (the trace starts ARMED), else 0. A name found nowhere fires never. Fails: never. Not
 * thread-safe (provider thread, while no trace runs). */
int fxtp_triggers_set(const struct fxt_trigger *tr, uint32_t n, uint64_t session);

/* Forgets the triggers (end of the trace). Fails: never. Not thread-safe (provider thread). */
void fxtp_triggers_clear(void);

/* The kind (enum fxt_trigger_kind) of a trigger at function address fn, or 0. Lock-free,
 * async-signal-safe. */
uint32_t fxtp_trigger_kind(uintptr_t fn);

/* An entry of fn while not RUNNING: when ARMED and fn is a start trigger, starts recording and
 * tells the manager. Returns 1 when the state is RUNNING now (the call is recorded), else 0.
 * Async-signal-safe; no guard needed. */
int fxtp_trigger_armed(struct fxtp_thread *t, uintptr_t fn);

/* What an entry of a trigger's function does while recording (fxtp_trigger_running()). */
enum fxtp_trigger_action {
	FXTP_TRIGGER_NONE = 0,
	FXTP_TRIGGER_PAUSED = 1,	/* a stop trigger: the call is not recorded */
	FXTP_TRIGGER_FIRE = 2,		/* the trace's first snapshot trigger: push the call's
					 * frame, then fxtp_trigger_snapshot() */
};

/* An entry of fn (not in t's name cache) while t records: a stop trigger pauses recording
 * (every open frame closed now) and returns FXTP_TRIGGER_PAUSED; the first snapshot trigger of
 * the trace returns FXTP_TRIGGER_FIRE; else FXTP_TRIGGER_NONE. Guard held, t joined.
 * Async-signal-safe. */
int fxtp_trigger_running(struct fxtp_thread *t, uintptr_t fn);

/* Fires a snapshot trigger whose call's frame t just pushed: t's open frames (that call on top,
 * the chain that led to it below) are written as complete events ending now and left open (the
 * snapshot's archive is cut at now: their real ends come later and are left out), then the
 * manager is told (TRIGGERED at now). Guard held, t joined. Async-signal-safe. */
void fxtp_trigger_snapshot(struct fxtp_thread *t);

#endif
