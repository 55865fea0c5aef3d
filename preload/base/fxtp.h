/* Internals of libfxtauto.so shared by its files: the per-thread state (initial-exec TLS, no
 * allocation, no lazy TLS resolution inside the hooks), the global state word, the one
 * reentrancy guard (fxtp_enter/fxtp_leave are the only code that touches in_tracer), the
 * timestamp source and the process-wide tracer context (defined in fxtp.c and clock.c, the
 * leaves every room may use). Each part's functions are declared in its own header, included
 * by the files that call them. Everything here is used by code built with
 * -fno-instrument-functions. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FXTP_H
#define FXT_PRELOAD_FXTP_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <x86intrin.h>

#include "common/options.h"
#include "writer/buffer.h"
#include "writer/chunk.h"

#define FXTP_TLS __thread __attribute__((tls_model("initial-exec")))
#define FXTP_EXPORT __attribute__((visibility("default"), no_instrument_function))

/* Global state word: the state in its low bits, a generation above them that every change of
 * state bumps. A thread records under the RUNNING word it joined (fxtp_thread.run_key): both
 * hooks compare the word with it, so any change (a stop, a new start, a trigger) sends every
 * thread once through its slow path, where it rejoins the new trace or records nothing
 * (stack.c fxtp_join). Slow paths and wrappers do nothing unless RUNNING. Changed only by the
 * constructor, the exit flush, the provider thread (manager-link.c: START, STOP, triggers), fork
 * and exec, through fxtp_state_move(). */
enum fxtp_state {
	FXTP_STATE_SETUP = 0,	 /* constructor not done (or tracing refused: stays here) */
	FXTP_STATE_RUNNING = 1,	 /* hooks record */
	FXTP_STATE_STOPPING = 2, /* the buffer is being (or has been) finished */
	FXTP_STATE_IDLE = 3,	 /* registered with a manager (FXT_REGISTER), no trace: no buffer */
	FXTP_STATE_ARMED = 4,	 /* a trace's buffer exists, recording waits for a start trigger
				  * (or paused by a stop trigger) */
};
#define FXTP_STATE_MASK 7u
#define FXTP_STATE_GEN 8u	/* one generation */
/* Hidden: the hooks load it with one RIP-relative move (no GOT address first). */
extern uint32_t fxtp_state __attribute__((visibility("hidden")));

static inline uint32_t fxtp_state_word(void)
{
	return __atomic_load_n(&fxtp_state, __ATOMIC_RELAXED);
}

static inline int fxtp_running(void)
{
	return (fxtp_state_word() & FXTP_STATE_MASK) == FXTP_STATE_RUNNING;
}

/* Whether a buffer is live: RUNNING, or ARMED (made, waiting for a start trigger). */
static inline int fxtp_traced(void)
{
	uint32_t s = fxtp_state_word() & FXTP_STATE_MASK;
	return s == FXTP_STATE_RUNNING || s == FXTP_STATE_ARMED;
}

/* Moves the state from word `from` to state `to` with the next generation (compare and swap:
 * 0 when the word was not `from` any more). Returns the new word, or 0. Async-signal-safe. */
static inline uint32_t fxtp_state_move(uint32_t from, enum fxtp_state to)
{
	uint32_t next = ((from & ~FXTP_STATE_MASK) + FXTP_STATE_GEN) | (uint32_t)to;
	return __atomic_compare_exchange_n(&fxtp_state, &from, next, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED) ? next : 0;
}

/* Name values (names.c's shared map): below 0x8000 an indexed string ref; otherwise one of
 * these. */
#define FXTP_V_SKIP 0x80000000u	  /* filtered out, too deep or inherited: not recorded */
#define FXTP_V_INLINE 0x40000000u /* strings exhausted: low 24 bits = name slot (names.c) */
#define FXTP_V_DEFER 0x20000000u  /* not in the shared map, seen in a signal handler: the
				   * call goes to its level's deferred queue (siglevel.c) */
#define FXTP_V_SLOT_MASK 0x00ffffffu

/* A frame's tag (and a cache entry's): the thread's complete-event header with the name, ready
 * for the exit fast path (its low 32 bits are never zero: record type 4), or, for calls the
 * exit slow path must handle, the name value shifted left by 32 (low 32 bits zero). */
static inline uint64_t fxtp_tag_slow(uint32_t v)
{
	return (uint64_t)v << 32;
}

static inline int fxtp_tag_fast(uint64_t tag)
{
	return (uint32_t)tag != 0;
}

/* One open call on the shadow stack. */
struct fxtp_frame {
	uint64_t start;	/* timestamp at entry */
	uintptr_t sp;	/* caller-side stack pointer at the hook (CFA): deeper calls have lower */
	uintptr_t fn;	/* function address from the hook */
	uintptr_t site;	/* its call site (return address; the caller's, when inlined) */
	uint64_t tag;	/* see fxtp_tag_slow() */
};

#define FXTP_CACHE_SIZE 512u /* per-thread name cache entries, power of two */
#define FXTP_JMPS 16u	      /* jmp_bufs remembered per thread (nonlocal.c) */
/* t->nonlocal after a jump to a place not known (a jmp_buf not remembered, out of a signal
 * handler): the next entry finds its own CFA on the stack (stack.c). Any other nonzero value is
 * the stack pointer of a catching function at its catch: every frame below it is dead. */
#define FXTP_NONLOCAL_SCAN UINTPTR_MAX
struct fxtp_cache_ent {
	uintptr_t fn;
	uint64_t tag;	/* for this thread: see fxtp_tag_slow() */
};

/* What the hooks use of a thread, saved while a signal handler runs with its own (siglevel.c):
 * the shadow stack, the chunk writer and the guard. */
struct fxtp_sigstate {
	struct fxtp_frame *top, *limit, *base, *end, *depth_cap;
	size_t below;
	struct fxt_chunk_w w;
	int in_tracer;
	uintptr_t nonlocal;
};

#define FXTP_SIG_LEVELS 4u	/* nested signal handlers traced on their own state */
/* Deferred calls per level (power of two): as many as a level's handler may make before the
 * thread's next call at level 0 names them, which can be long (a drain symbolizing on a busy
 * machine, or a thread waiting in sigsuspend while its handler runs). 1.5 MB of address space
 * per level, mmap'ed (no reserve) on the level's first use, touched only as used. */
#define FXTP_DEFER (1u << 16)
/* A signal handler's nesting level k (1..FXTP_SIG_LEVELS): while its handler runs, the thread's
 * hook state is level k's own and `saved` holds the interrupted one (level k-1's). */
struct fxtp_siglevel {
	struct fxtp_sigstate saved;
	struct fxtp_frame *base, *end;	/* this level's shadow stack (mmap, kept; NULL: none yet) */
	struct fxt_chunk_w w;		/* this level's writer (its own chunk) */
	int w_ready;			/* w started for this process */
	uintptr_t lo, hi;		/* the handler's frames have lo <= sp < hi */
	/* Calls whose name was not known in the handler: written by level 0 (single producer:
	 * this level's handler; single consumer: level 0's slow path or the exit flush). */
	struct fxtp_deferred {
		uintptr_t fn;
		uint64_t start, end;
	} *q;				/* FXTP_DEFER of them (mmap, kept; NULL: none) */
	uint32_t qhead, qtail;		/* free-running; tail - head = queued */
};

/* Per-thread state: lives in TLS, listed in the thread registry (thread.c) while alive. */
struct fxtp_thread {
	int in_tracer;			/* the guard: only fxtp_enter/fxtp_leave touch it (and
					 * limit, NULL while the guard is held) */
	int dead;			/* past the key destructor, or setup failed: no tracing */
	uintptr_t nonlocal;		/* 0, or the repair the next entry makes (limit stays
					 * NULL until then) after a non-local exit (nonlocal.c):
					 * FXTP_NONLOCAL_SCAN, or a C++ catch's stack pointer */
	struct fxtp_frame *top;		/* next free frame */
	struct fxtp_frame *limit;	/* entry takes the fast path below it: min(end, depth_cap),
					 * base without TSC; NULL until set up, and while the
					 * guard is held (fxtp_leave() sets it) */
	struct fxtp_frame *base;	/* shadow stack (mmap, grows by mremap); base[-1] is a
					 * sentinel frame with sp = UINTPTR_MAX */
	struct fxtp_frame *end;		/* end of the mapping */
	struct fxtp_frame *depth_cap;	/* frames at or above it are FXTP_V_SKIP (FXT_MAX_DEPTH) */
	uint32_t fastlimit;		/* name values below it get fast tags (0: none do) */
	uint32_t thread_index;		/* 1..255, or 0: events carry koids inline */
	uint64_t hdr_base;		/* complete-event header without the name ref */
	struct fxt_chunk_w w;
	uint32_t run_key;		/* the RUNNING state word this thread recorded under last */
	uint32_t buf_gen;		/* fxtp_ctx.buf_gen of the buffer w and thread_index are in */
	pid_t tid;
	pthread_t self;
	uintptr_t stack_lo, stack_hi;	/* the thread's stack: sp outside it is an alternate stack */
	void *altstack;			/* our sigaltstack for this thread, or NULL */
	struct fxtp_thread *next, *prev;/* thread registry links */
	struct fxtp_cache_ent cache[FXTP_CACHE_SIZE];
	struct fxtp_jmp {
		const void *env;	/* a jmp_buf this thread passed to setjmp */
		size_t depth;		/* frames alive then: a longjmp to it closes the rest */
		uint64_t start;		/* start and sp of the innermost of them (depth > 0): */
		uintptr_t sp;		/* while it is open, env may be jumped to */
		uint32_t level;		/* siglevel then */
		uint32_t seq;		/* order of the setjmps (jmps_seq then) */
	} jmps[FXTP_JMPS];
	uint32_t jmps_seq;		/* setjmps noted so far (wraps) */
	size_t below;			/* frames open in the interrupted levels (depth cap) */
	uint32_t siglevel;		/* 0, or the signal handler level whose state is current */
	int sigjump;			/* a jump left a handler for a place not remembered: the next
					 * slow path pops the levels its stack pointer is out of */
	int deferred;			/* a level's deferred queue may hold calls */
	struct fxtp_siglevel sig[FXTP_SIG_LEVELS];	/* sig[k - 1]: level k */
};
extern FXTP_TLS struct fxtp_thread fxtp_self;
/* Set by the fatal-signal flush (dispositions.c) before it ends the process: a handler's level
 * then writes its deferred calls without symbolizing (siglevel.c). */
extern int fxtp_sig_fatal;

/* Process-wide tracer context, set by the constructor (and refreshed in a fork child). */
struct fxtp_ctx {
	struct fxt_buf buf;
	void *map;
	size_t map_size;
	int warmed;			/* fxtp_buffer_warm() done for this buffer */
	uint32_t buf_gen;		/* bumped by every new buffer (fxtp_open_buffer) */
	pid_t pid;
	int use_tsc;			/* invariant TSC present: ticks are TSC cycles, else ns */
	uint64_t t0_ticks, t0_ns;	/* calibration start (CLOCK_MONOTONIC ns) */
	char out_path[4096];		/* final archive path (absolute) */
	char prog[256];			/* process name for its kernel object record */
	/* options (init.c read_options) */
	size_t buffer_size;
	uint32_t max_depth;		/* 0: unlimited */
	uint64_t min_ticks;		/* FXT_MIN_DURATION in ticks, 0: off */
	char *filter, *exclude;		/* comma-separated fnmatch globs, or NULL */
	int output_set;			/* FXT_OUTPUT given */
	int parent_traced;		/* the parent runs the tracer too: FXT_OUTPUT.<pid> */
	/* Which name the archive of this image takes (outname.c fxtp_out_name): 0 FXT_OUTPUT, 1
	 * FXT_OUTPUT.<pid>, n >= 2 FXT_OUTPUT.<pid>.<n> (default names alike). Passed on to the
	 * next image of the pid at exec (exec.c). */
	int name_seq;
	int at_exec;			/* the exit flush runs for an exec (exec.c) */
	int recorded;			/* set by the flush: a call or event of this image's own (samples
					 * aside: flush.c finish_standalone) */
	int name_freed;			/* set by the flush: this image recorded nothing and left its
					 * name to the next image (at exec) */
	char output_opt[4096];		/* FXT_OUTPUT as given (made absolute) */
};
extern struct fxtp_ctx fxtp;
/* Every FXT_* setting as read by the constructor (init.c read_options; defaults otherwise). */
extern struct fxt_settings fxtp_settings;

/* Takes the guard: returns 0 if this thread is already inside the tracer (the caller must then
 * do nothing), else 1; every slow path and wrapper that records pairs it with fxtp_leave().
 * While it is held, limit is NULL: hooks of code the tracer calls take the slow path at entry
 * and return; their exits cannot match the top frame (deeper stack pointer) and take the slow
 * path too. So the fast path reads no flag. (A program's signal handler runs on its own state,
 * guard released: siglevel.c.) limit also stays NULL in a handler's level (its entries take the
 * slow path: no name cache there) and while calls are deferred. */
static inline int fxtp_enter(struct fxtp_thread *t)
{
	if (__builtin_expect(t->in_tracer, 0))
		return 0;
	t->in_tracer = 1;
	t->limit = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline void fxtp_leave(struct fxtp_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!t->base || t->dead || t->nonlocal || t->siglevel || t->deferred)
		t->limit = NULL;
	else if (!fxtp.use_tsc)
		t->limit = t->base;
	else
		t->limit = t->depth_cap < t->end ? t->depth_cap : t->end;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->in_tracer = 0;
}

/* Waits (bounded: 1 s) until a tracer thread just started (the switch reader, the grower) has
 * published its id in *tid: an exec soon after counts the program's threads without it
 * (exec.c). Not async-signal-safe. */
static inline void fxtp_await_tid(const pid_t *tid)
{
	for (int i = 0; i < 10000 && !__atomic_load_n(tid, __ATOMIC_ACQUIRE); i++) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
}

static inline uint64_t fxtp_now(void)
{
	if (__builtin_expect(fxtp.use_tsc, 1))
		return __rdtsc();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The start of a slice nested in one that started at `outer`, for the time now: now, or
 * outer + fxtp_tick_gap when now is closer to outer than that (or before it: TSC skew). Perfetto
 * orders slices by their start in whole nanoseconds, ties by place in the archive, where an
 * inner slice comes first (written at its end): one starting in its outer slice's nanosecond
 * would be taken for a partial overlap and dropped (docs/FORMAT.md). */
/* Ticks that surely part two timestamps' nanoseconds, set by the constructor. Hidden: the entry
 * hook loads it with one RIP-relative move. */
extern uint64_t fxtp_tick_gap __attribute__((visibility("hidden")));
static inline uint64_t fxtp_after(uint64_t outer, uint64_t now)
{
	return (int64_t)(now - outer) < (int64_t)fxtp_tick_gap ? outer + fxtp_tick_gap : now;
}

/* Prints one "fxtauto: ..." line on stderr, keeping errno (fxtp.c). Async-signal-safe. */
void fxtp_warn(const char *msg, const char *detail);


#endif
