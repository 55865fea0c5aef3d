/* Signal handlers traced on their own state. An asynchronous handler can land between any two
 * instructions of a hook, of the chunk reserve/commit or of a slow path; if its hooks used the
 * interrupted state they would reuse a frame slot being filled, words being reserved, or find
 * the guard held and drop their calls. So every program handler is run by fxtp_sig_run()
 * (dispositions.c installs it): level k+1 swaps in its own shadow stack, chunk writer and guard, and
 * swaps the interrupted state back, untouched, when the handler returns. The hooks' fast path
 * is unchanged: a level's limit is NULL (its entries take the slow path, which reads no name
 * cache and never symbolizes; a name not yet in the shared map is deferred, and the call is
 * written later by level 0's slow path). Jumps out of a handler (siglongjmp) pop its level.
 * Invariants: t->siglevel is raised before the state is swapped and lowered after it is
 * restored, so a nested handler always takes a free level and restores exactly what it saw.
 * Async-signal-safe, no malloc, no locks (but fxtp_sig_drain with symbolize). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "preload/base/fxtp.h"
#include "preload/hot/siglevel.h"
#include "preload/hot/frames.h"

#define BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define LEVEL_STACK_BYTES (16u * 1024u) /* a level's first shadow stack: 512 frames; grows */
#define QUEUE_BYTES (FXTP_DEFER * sizeof(struct fxtp_deferred))

/* The fields a level swaps (struct fxtp_sigstate), in the order restore() writes them: the
 * guard, then limit last. */
#define SIGSTATE_FIELDS(F) \
	F(top) F(base) F(end) F(depth_cap) F(below) F(w) F(nonlocal) F(in_tracer) F(limit)

static void save(const struct fxtp_thread *t, struct fxtp_sigstate *s)
{
#define SAVE(field) s->field = t->field;
	SIGSTATE_FIELDS(SAVE)
#undef SAVE
}

static void restore(struct fxtp_thread *t, const struct fxtp_sigstate *s)
{
#define RESTORE(field) t->field = s->field;
	SIGSTATE_FIELDS(RESTORE)
#undef RESTORE
}

/* Makes level l's state current (l->base mapped): an empty stack whose sentinel frame never
 * looks dead, its writer, the guard free, limit NULL. */
static void enter_level(struct fxtp_thread *t, struct fxtp_siglevel *l)
{
	struct fxtp_frame *map = l->base - 1;
	map[0] = (struct fxtp_frame){ .sp = UINTPTR_MAX, .tag = fxtp_tag_slow(FXTP_V_SKIP) };
	t->base = t->top = l->base;
	t->end = l->end;
	t->below = l->saved.below + (size_t)(l->saved.top - l->saved.base);
	t->depth_cap = !fxtp.max_depth ? (struct fxtp_frame *)UINTPTR_MAX
		       : t->base + (fxtp.max_depth > t->below ? fxtp.max_depth - t->below : 0);
	t->w = l->w;
	t->nonlocal = 0;
	t->limit = NULL;
	t->in_tracer = 0;
}

/* Leaves level l (current) for the state it saved: keeps its stack (grown maybe) and writer. */
static void leave_level(struct fxtp_thread *t, struct fxtp_siglevel *l)
{
	l->base = t->base;
	l->end = t->end;
	l->w = t->w;
	restore(t, &l->saved);
}

static int level_ready(struct fxtp_siglevel *l)
{
	if (!l->base) {
		void *p = mmap(NULL, LEVEL_STACK_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 0;
		l->base = (struct fxtp_frame *)p + 1;
		l->end = (struct fxtp_frame *)p + LEVEL_STACK_BYTES / sizeof(struct fxtp_frame);
	}
	if (!l->q) {
		/* No queue (no memory): calls not yet named are written at once, unnamed. */
		void *p = mmap(NULL, QUEUE_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			l->q = p;
	}
	if (!l->w_ready) {
		/* The interrupted writer's buffer and thread record (none: the thread's index is
		 * bound durably), the same for every level. */
		const struct fxt_chunk_w *w0 = &l->saved.w;
		fxt_chunk_init(&l->w, w0->buf, w0->thread_rec[0] ? w0->thread_rec : NULL);
		l->w_ready = 1;
	}
	return 1;
}

void fxtp_sig_run(const struct sigaction *act, int sig, void *si, void *uc)
{
	struct fxtp_thread *t = &fxtp_self;
	uint32_t k = t->siglevel + 1;
	int siginfo = (act->sa_flags & SA_SIGINFO) != 0;
	if (!t->base || t->dead || k > FXTP_SIG_LEVELS || !fxtp_running() ||
	    t->run_key != fxtp_state_word()) {
		/* Not traced, too deep, or not rejoined since the trace changed: the handler's
		 * hooks find the guard held (when traced) and record nothing, which keeps the
		 * interrupted state whole. */
		int held = t->base && !t->dead && fxtp_enter(t);
		if (siginfo)
			act->sa_sigaction(sig, si, uc);
		else
			act->sa_handler(sig);
		if (held)
			fxtp_leave(t);
		return;
	}
	int err = errno;
	struct fxtp_siglevel *l = &t->sig[k - 1];
	t->siglevel = k;	/* claimed before anything: a nested handler takes k + 1 */
	BARRIER();
	save(t, &l->saved);
	uintptr_t isp = uc ? (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP] : 0;
	uintptr_t hsp = (uintptr_t)__builtin_frame_address(0);
	if (hsp < isp && hsp >= t->stack_lo && hsp < t->stack_hi) {
		l->lo = t->stack_lo;	/* on the thread's stack, below the interrupted code */
		l->hi = isp;
	} else {
		stack_t ss;
		if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
		    hsp >= (uintptr_t)ss.ss_sp && hsp < (uintptr_t)ss.ss_sp + ss.ss_size) {
			l->lo = (uintptr_t)ss.ss_sp;
			l->hi = hsp < isp && isp <= (uintptr_t)ss.ss_sp + ss.ss_size
					? isp	/* nested on the alternate stack */
					: (uintptr_t)ss.ss_sp + ss.ss_size;
		} else {
			l->lo = 0;
			l->hi = isp ? isp : UINTPTR_MAX;
		}
	}
	if (!level_ready(l)) {
		/* No memory for a stack: run it untraced on a state that records nothing. */
		t->top = t->base = t->limit = NULL;
		t->in_tracer = 1;
	} else {
		enter_level(t, l);
	}
	BARRIER();
	errno = err;
	if (siginfo)
		act->sa_sigaction(sig, si, uc);
	else
		act->sa_handler(sig);
	err = errno;
	BARRIER();
	if (t->siglevel != k) {
		/* A jump out of a deeper level came back here without popping it: cannot be,
		 * fxtp_sig_pop_to() pops on every remembered jump; be safe anyway. */
		if (t->siglevel < k)
			goto out;
		fxtp_sig_pop_to(t, k, fxtp_now());
	}
	if (t->base && t->top > t->base && fxtp_enter(t)) {
		/* Frames left open in the handler (exits never seen): closed at its return. */
		fxtp_close_frames_above(t, t->base, fxtp_now());
		t->in_tracer = 0;
	}
	if (t->base)
		leave_level(t, l);
	else
		restore(t, &l->saved);
	if (l->qtail != l->qhead) {
		t->deferred = 1;
		if (!t->in_tracer)
			t->limit = NULL; /* level 0's next entry drains (held: fxtp_leave does) */
	}
	BARRIER();
	t->siglevel = k - 1;
out:
	errno = err;
}

void fxtp_sig_pop_to(struct fxtp_thread *t, uint32_t level, uint64_t now)
{
	while (t->siglevel > level) {
		struct fxtp_siglevel *l = &t->sig[t->siglevel - 1];
		if (t->base) {
			fxtp_close_frames_above(t, t->base, now);
			leave_level(t, l);
		} else {
			restore(t, &l->saved);
		}
		/* The interrupted code is abandoned: its guard, if it held it, is ours now. */
		t->in_tracer = 1;
		if (l->qtail != l->qhead)
			t->deferred = 1;
		BARRIER();
		t->siglevel--;
	}
}

void fxtp_sig_unwind(struct fxtp_thread *t, uintptr_t sp, uint64_t now)
{
	t->sigjump = 0;
	while (t->siglevel) {
		const struct fxtp_siglevel *l = &t->sig[t->siglevel - 1];
		if (sp >= l->lo && sp < l->hi)
			break;
		fxtp_sig_pop_to(t, t->siglevel - 1, now);
		t->nonlocal = FXTP_NONLOCAL_SCAN;	/* the restored state's frames left by the jump */
	}
	if (t->siglevel)
		t->sigjump = 1;		/* still inside a handler: a later call may leave it */
}

/* Set in a child forked inside a handler that interrupted no tracer code: the levels it runs
 * at are all its own (the ones below are the parent's), so its exit flush may name the calls
 * its handler level deferred (what level 0 would have done): nothing of the tracer's was cut
 * short by the signal. */
static int forked_in_handler;

void fxtp_sig_close_saved(struct fxtp_thread *t, struct fxt_chunk_w *w, uint64_t end)
{
	for (uint32_t k = t->siglevel; k > 0; k--) {
		const struct fxtp_sigstate *s = &t->sig[k - 1].saved;
		if (!s->base)
			continue;
		for (const struct fxtp_frame *f = s->top; f-- > s->base;)
			fxtp_write_frame(t, w, f, end);
	}
	fxtp_sig_drain_into(t, w, !fxtp_sig_fatal && (fxtp_self.siglevel == 0 || forked_in_handler));
}

void fxtp_sig_release(struct fxtp_thread *t)
{
	for (uint32_t k = 0; k < FXTP_SIG_LEVELS; k++) {
		struct fxtp_siglevel *l = &t->sig[k];
		if (l->w_ready) {
			fxt_chunk_flush(&l->w);
			fxt_chunk_close(&l->w);
			l->w_ready = 0;
		}
		if (l->base)
			munmap(l->base - 1, (size_t)(l->end - (l->base - 1)) * sizeof(*l->base));
		l->base = l->end = NULL;
		if (l->q)
			munmap(l->q, QUEUE_BYTES);
		l->q = NULL;
		l->qhead = l->qtail;
	}
}

void fxtp_sig_after_fork(struct fxtp_thread *t)
{
	for (uint32_t k = 0; k < FXTP_SIG_LEVELS; k++) {
		t->sig[k].w_ready = 0;
		t->sig[k].qhead = t->sig[k].qtail;
	}
	t->deferred = 0;
	/* A fork inside a handler: the levels it interrupted hold the parent's calls, kept for
	 * pairing once the handler returns, never recorded as the child's. */
	forked_in_handler = t->siglevel > 0;
	for (uint32_t k = t->siglevel; k > 0; k--) {
		const struct fxtp_sigstate *s = &t->sig[k - 1].saved;
		for (struct fxtp_frame *f = s->base; s->base && f < s->top; f++)
			f->tag = fxtp_tag_slow(FXTP_V_SKIP);
		if (s->in_tracer)
			forked_in_handler = 0;
	}
}
