/* Triggers, uftrace's trace_on/trace_off and the flight recorder's "save now": a table of
 * (function address, kind) resolved once by the provider thread at START through the
 * symbolizer, published by its count (release) and read lock-free by the hooks' slow paths (a
 * trigger's function is never in a thread's name cache, so each of its entries comes there).
 * Every firing sends TRIGGERED (kind, session, ticks) on the registry connection. From a
 * signal handler's level firing does the same (compare-and-swap, frames closed with the thread
 * registry walked unlocked as the fatal flush does, send()): async-signal-safe by choice,
 * so that a trigger in a handler is not lost. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/trigger.h"

#include <errno.h>
#include <unistd.h>

#include "preload/hot/names.h"
#include "preload/transport/uplink.h"
#include "preload/hot/frames.h"
#include "preload/hot/thread.h"

static struct {
	uintptr_t fn;
	uint32_t kind;
} table[FXTP_TRIGGER_ADDRS];
static uint32_t ntable;		/* entries published (release after they are written) */
static uint64_t session;	/* the trace the triggers belong to */
static int snapshot_sent;	/* a snapshot trigger fired in this trace (one is enough) */

int fxtp_triggers_set(const struct fxt_trigger *tr, uint32_t n, uint64_t id)
{
	uint32_t k = 0;
	int armed = 0;
	__atomic_store_n(&ntable, 0, __ATOMIC_RELEASE);
	session = id;
	snapshot_sent = 0;
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t addrs[FXTP_TRIGGER_ADDRS];
		int found = fxtp_names_find(tr[i].function, addrs, FXTP_TRIGGER_ADDRS - k);
		if (found <= 0)	/* the trace goes on without it: said once, on stderr */
			fxtp_warn("no function of this name is loaded; trigger ignored",
				  tr[i].function);
		for (int j = 0; j < found; j++)
			table[k++] = (__typeof__(table[0])){ addrs[j], tr[i].kind };
		armed |= tr[i].kind == FXT_TRIGGER_START;
	}
	__atomic_store_n(&ntable, k, __ATOMIC_RELEASE);
	return armed;
}

void fxtp_triggers_clear(void)
{
	__atomic_store_n(&ntable, 0, __ATOMIC_RELEASE);
}

uint32_t fxtp_trigger_kind(uintptr_t fn)
{
	uint32_t n = __atomic_load_n(&ntable, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (table[i].fn == fn)
			return table[i].kind;
	return 0;
}

/* Tells the manager that a trigger of `kind` fired at ticks. */
static void fired_at(uint32_t kind, uint64_t ticks)
{
	struct fxt_msg_triggered m = {
		.h = { FXT_MSG_TRIGGERED, FXT_REGISTRY_VERSION, sizeof(m) },
		.session = session,
		.ticks = ticks,
		.kind = kind,
	};
	fxtp_uplink_send(&m, sizeof(m));
}

static void fired(uint32_t kind)
{
	fired_at(kind, fxtp_now());
}

int fxtp_trigger_armed(struct fxtp_thread *t, uintptr_t fn)
{
	(void)t;
	uint32_t w = fxtp_state_word();
	if ((w & FXTP_STATE_MASK) != FXTP_STATE_ARMED ||
	    fxtp_trigger_kind(fn) != FXT_TRIGGER_START)
		return 0;
	if (getpid() != fxtp.pid)
		return 0;	/* a vfork child: the state is its parent's */
	if (fxtp_state_move(w, FXTP_STATE_RUNNING))
		fired(FXT_TRIGGER_START);
	return fxtp_running();
}

int fxtp_trigger_running(struct fxtp_thread *t, uintptr_t fn)
{
	uint32_t kind = fxtp_trigger_kind(fn);
	if (kind == FXT_TRIGGER_STOP) {
		if (fxtp_state_move(t->run_key, FXTP_STATE_ARMED)) {
			fxtp_pause(t->run_key, t->siglevel == 0);
			fired(FXT_TRIGGER_STOP);
		}
		return FXTP_TRIGGER_PAUSED;
	}
	if (kind == FXT_TRIGGER_SNAPSHOT &&
	    !__atomic_exchange_n(&snapshot_sent, 1, __ATOMIC_ACQ_REL))
		return FXTP_TRIGGER_FIRE;
	return FXTP_TRIGGER_NONE;
}

void fxtp_trigger_snapshot(struct fxtp_thread *t)
{
	uint64_t now = fxtp_now();
	__atomic_store_n(&fxtp.buf.hdr->snapshot_cut, now, __ATOMIC_RELEASE);
	for (const struct fxtp_frame *f = t->top; f-- > t->base;)
		fxtp_write_frame(t, &t->w, f, now);
	fired_at(FXT_TRIGGER_SNAPSHOT, now);
}
