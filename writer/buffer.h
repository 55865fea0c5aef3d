/* The per-process trace buffer: one shared mapping (a file, a memfd or anonymous memory) that
 * the traced process writes and a manager process (fxtrun) may map and read at any time. The
 * layout below is a contract between processes, versioned by FXT_BUF_VERSION. Writers never
 * lock: the durable area and the chunks are handed out by atomic bumps; a record becomes
 * visible when its header word is stored (release), so readers stop at the first zero word.
 * No malloc, no syscalls: every function here is async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_BUFFER_H
#define FXT_WRITER_BUFFER_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "writer/records.h"

/*
 * Layout (all offsets from the start of the mapping, all little-endian, 8-byte aligned):
 *
 *   [0, 4096)                         struct fxt_buf_hdr (below) at hdr_off (0, or inside the
 *                                     FXT prologue of a standalone archive file: writer/outfile.h)
 *   [durable_off, +durable_size)      DURABLE area: FXT records back to back (string, thread,
 *                                     kernel object records). Bytes [0, durable_used) are
 *                                     reserved; a record is complete once its header word is
 *                                     non-zero. Never dropped: when full, tracing stops.
 *   [chunks_off, +nchunks*chunk_size) ROLLING area: nchunks chunks of chunk_size bytes.
 *
 * A chunk: word 0 is its sequence number (1 + the value of next_chunk that took it; 0 = never
 * taken), then FXT records back to back written by ONE thread, ending at the first zero word or
 * at the chunk's end. The first record of every chunk is the thread record of the thread that
 * owns it, so thread indexes may be recycled between chunks. The archive keeps chunks in
 * sequence order (oneshot: sequence = index + 1).
 */
#define FXT_BUF_MAGIC 0x3146554254584655ULL /* "UFXTBUF1" little-endian */
#define FXT_BUF_VERSION 3u
#define FXT_BUF_HDR_SIZE 4096u
#define FXT_BUF_MIN_CHUNK 256u		/* bytes; chunk sizes are multiples of 8 */
#define FXT_BUF_DEFAULT_CHUNK 32768u
#define FXT_BUF_MAX_CHUNK (1u << 18)	/* the largest a manager accepts (fxt_buf_attach_copy) */

enum fxt_buf_mode {
	FXT_BUF_ONESHOT = 0,	/* chunks run out: record no more, count drops */
	FXT_BUF_CIRCULAR = 1,	/* reserved for fxtrun: reuse the oldest chunks */
	FXT_BUF_STREAMING = 2,	/* reserved for fxtrun: two rolling halves saved by the manager */
	FXT_BUF_GROWING = 3,	/* standalone: the mapping is the archive file itself, chunks
				 * taken in file order from a file grown ahead of use
				 * (writer/outfile.h); left chunks become FXT in place */
};

/* Why records were dropped (fxt_buf_hdr.drop_reasons, a bit set): the summary says which. */
enum fxt_buf_drop_reason {
	FXT_DROP_FULL = 1u << 0,	/* oneshot/growing: no chunk left in the buffer */
	FXT_DROP_OVERFLOW = 1u << 1,	/* streaming --overflow drop: the save did not keep up */
	FXT_DROP_NO_MANAGER = 1u << 2,	/* streaming: the manager did not answer in time */
	FXT_DROP_NO_SPACE = 1u << 3,	/* the file system refused to grow the buffer (ENOSPC) */
	FXT_DROP_DURABLE = 1u << 4,	/* the durable area (strings, threads) filled */
	FXT_DROP_TOO_BIG = 1u << 5,	/* a record larger than a chunk */
	FXT_DROP_KILLED = 1u << 6,	/* the process was killed: its open calls and pending
					 * flows were never ended (a recovered or SIGKILLed run) */
	FXT_DROP_SWITCHES = 1u << 7,	/* context switches the kernel's ring lost (overflow) */
	FXT_DROP_FILE_SIZE = 1u << 8,	/* the buffer file reached RLIMIT_FSIZE (EFBIG) */
	FXT_DROP_CUT = 1u << 9,		/* a snapshot of a running process: its calls open at the
					 * cut are not in it (nothing was lost), but a snapshot
					 * trigger's thread's chain (preload/transport/trigger.c) */
	FXT_DROP_MANAGER_KILLED = 1u << 10, /* the trace manager was killed: what it had not saved
					   * is lost (fxt recover of its archive says so) */
};

/* Stopped flag values of fxt_buf_hdr.state. */
enum fxt_buf_state {
	FXT_BUF_WRITING = 0,	/* the process may still write */
	FXT_BUF_STOPPED = 1,	/* the process wrote its last record (exit or crash flush done) */
	FXT_BUF_DURABLE_FULL = 2, /* the durable area filled: tracing stopped early */
};

/* The header page. Fields above `durable_used` are written once by fxt_buf_init() before the
 * buffer is shared and never change (a manager may read them plainly). Counters below live on
 * their own cache line: they are touched only on slow paths (chunk refill, durable append,
 * drops), never per event. */
struct fxt_buf_hdr {
	uint64_t magic;			/* FXT_BUF_MAGIC */
	uint32_t version;		/* FXT_BUF_VERSION */
	uint32_t mode;			/* enum fxt_buf_mode */
	uint64_t size;			/* bytes of the whole mapping */
	uint64_t durable_off, durable_size;
	uint64_t chunks_off;
	uint32_t chunk_size;		/* bytes, multiple of 8, >= FXT_BUF_MIN_CHUNK */
	uint32_t nchunks;
	uint64_t pid;			/* koid of the writing process */
	uint64_t ticks_per_second;	/* 0 until the writer stores it (at stop, or earlier) */
	uint64_t start_ticks;		/* timestamp of buffer creation */
	uint64_t stop_ticks;		/* 0, or when the writer stopped: events ending later were
					 * written by threads still running then, and are left out */
	/* The clock at the buffer's creation, stored before the buffer is shared (a manager that
	 * finds it zero, reading a buffer not yet announced, uses a reading of its own), and a
	 * later one stored with ticks_per_second ({0, 0} before): the archive's clock record. */
	struct fxt_clock_pair clock_start, clock_end;

	/* Bytes of the durable area handed out: fetch-add by the record size (bounded by
	 * durable_size, 2^64 never reached). relaxed: the record's own header store (release)
	 * publishes its content; readers read the header with acquire. */
	_Alignas(64) _Atomic uint64_t durable_used;
	/* Chunks handed out: one fetch-add per chunk taken; values >= nchunks mean the oneshot
	 * buffer is exhausted (circular: value % nchunks is the chunk, value / nchunks the wrap).
	 * relaxed: a chunk's words are only written by its taker after the add. */
	_Atomic uint64_t next_chunk;
	_Atomic uint64_t dropped;	/* records not written because no space was left */
	_Atomic uint64_t wraps;		/* circular: times the rolling area was reused */
	_Atomic uint32_t state;		/* enum fxt_buf_state, release-stored */
	uint32_t ppid;			/* 0, or the writer's parent pid, stored before sharing (a
					 * manager may see a short process only after it was reaped) */
	/* End (offset in the mapping) of the chunk area backed by storage (fallocate), grown
	 * ahead of the chunks taken (preload/transport/grow.c); a chunk is handed out only once it lies
	 * below; chunks_off until the first. 0: a buffer that is not grown. release/acquire. */
	_Atomic uint64_t backed;
	/* The same for the durable area (grown as records are reserved); 0: not grown. */
	_Atomic uint64_t durable_backed;
	_Atomic uint32_t drop_reasons;	/* enum fxt_buf_drop_reason bits, or-ed in */
	uint32_t hdr_off;		/* offset of this header in the mapping */
	_Atomic uint32_t open_overflow;	/* growing: a chunk was taken with the open-chunk table
					 * full (writer/outfile.h): finishing scans every chunk */
	/* Standalone: who takes FXT_OUTPUT among the processes this one started (the word of
	 * preload/transport/outname.c, shared by them through this page). */
	_Atomic uint64_t name_tree;
	/* The ticks of the snapshot trigger this writer fired (0: none): its thread's open calls
	 * were written ending then, for that snapshot's archive only (preload/transport/trigger.c); any
	 * other save of the buffer leaves out the complete events ending exactly then. */
	_Atomic uint64_t snapshot_cut;
};

_Static_assert(sizeof(struct fxt_buf_hdr) <= FXT_BUF_HDR_SIZE, "header fits its page");
_Static_assert(offsetof(struct fxt_buf_hdr, durable_used) % 64 == 0, "counters on own line");

/*
 * Word 0 of a chunk ("1 + the value of next_chunk that took it"). In circular and streaming
 * modes (writer/policy.h) a chunk is reused, so its word 0 also says whether its writer left it:
 *   bits  0..39  sequence number (1-based, archive order); FXT_CHUNK_BUSY while being reset
 *   bits 40..62  streaming: low bits of the wrap count when the writer left the chunk
 *   bit  63      the writer left the chunk (it may be reused once its content is saved)
 * A manager reads a chunk's records only while word 0 holds the same sequence before and after.
 */
#define FXT_CHUNK_SEQ_MASK ((1ULL << 40) - 1)
#define FXT_CHUNK_BUSY FXT_CHUNK_SEQ_MASK
#define FXT_CHUNK_WRAP_SHIFT 40
#define FXT_CHUNK_WRAP_MASK ((1ULL << 23) - 1)
#define FXT_CHUNK_CLOSED (1ULL << 63)

/* The sequence number in chunk word w, or 0 for a chunk without records to read. */
static inline uint64_t fxt_chunk_word_seq(uint64_t w)
{
	uint64_t seq = w & FXT_CHUNK_SEQ_MASK;
	return seq == FXT_CHUNK_BUSY ? 0 : seq;
}


struct fxt_buf;

/* Chunk policy of the circular, streaming and growing modes (preload/transport/provider.c,
 * writer/outfile.c): fxt_buf_chunk_take() delegates to take(), and a chunk writer hands each
 * chunk it leaves to release(). NULL (oneshot): the built-in one-pass policy. take() may wait
 * (streaming back-pressure); the chunk writer records that wait as a tracer stall. */
struct fxt_buf_policy {
	uint64_t *(*take)(struct fxt_buf *b);
	/* end: the first word its writer did not use (every record before it is committed) */
	void (*release)(struct fxt_buf *b, uint64_t *chunk, const uint64_t *end);
};

/* A process-local handle on a mapped buffer (the mapping itself holds all shared state). */
struct fxt_buf {
	struct fxt_buf_hdr *hdr;
	uint8_t *base;
	const struct fxt_buf_policy *policy;	/* NULL: oneshot */
	/* NULL, or called by a chunk writer with each chunk it takes, before writing it (slow
	 * path): the tracer populates the pages ahead there, so the per-event path never faults
	 * and a short process does not populate the whole buffer at start. */
	void (*prepare)(struct fxt_buf *b, const uint64_t *chunk);
	/* NULL, or the writers' clock: a take or prepare longer than stall_ticks is written into
	 * the new chunk as a duration of category "fxtauto" (the tracer's time, not the
	 * program's). */
	uint64_t (*now)(void);
	uint64_t stall_ticks;
	void *ctx;			/* the policy's process-local state */
	/* NULL, or makes the durable area backed up to end (an offset in the mapping) before a
	 * record is written there: 0, or -errno (the record is dropped). Async-signal-safe. */
	int (*back_durable)(struct fxt_buf *b, uint64_t end);
};

/* Lays out a new buffer in mem (size bytes, zero-filled, 8-byte aligned): header, a durable area
 * of durable_size bytes (rounded down to 8), then as many chunks of chunk_size as fit.
 * Circular and streaming need a policy (b->policy, set by the caller after init).
 * Fails: -EINVAL (size too small for the header, the durable area and 2 chunks, bad chunk
 * size or mode). Not thread-safe: call before the buffer is shared. Async-signal-safe. */
int fxt_buf_init(struct fxt_buf *b, void *mem, size_t size, uint64_t durable_size,
		 uint32_t chunk_size, enum fxt_buf_mode mode, uint64_t pid);

/* As fxt_buf_init(), with the header at hdr_off (8-aligned, 64 for its counters, the header
 * within the first FXT_BUF_HDR_SIZE bytes): the bytes before it and after it in the first
 * page are left as they are (a standalone archive file's FXT prologue). */
int fxt_buf_init_at(struct fxt_buf *b, void *mem, size_t size, uint32_t hdr_off,
		    uint64_t durable_size, uint32_t chunk_size, enum fxt_buf_mode mode,
		    uint64_t pid);

/* Attaches to a buffer laid out by fxt_buf_init() (possibly in another process): checks magic,
 * version and that every area lies inside size bytes.
 * Fails: -EINVAL (not a buffer, or inconsistent), -EPROTONOSUPPORT (other version).
 * Thread-safe; async-signal-safe. */
int fxt_buf_attach(struct fxt_buf *b, void *mem, size_t size);

/* As fxt_buf_attach(), for a reader that does not trust the writer (the trace manager): the
 * header is copied into *copy first and only the copy is checked and used for the layout
 * (b->hdr = copy), so a writer that later scribbles over its header cannot move the areas
 * under the reader; chunk sizes above FXT_BUF_MAX_CHUNK are refused. The counters must be read
 * from the mapping itself ((const struct fxt_buf_hdr *)mem), and bounded by the copy's layout.
 * Fails: -EINVAL (no magic: not a buffer, or not one yet), -EPROTONOSUPPORT (other version),
 * -EBADMSG (the magic over an inconsistent layout: a header overwritten). Thread-safe;
 * async-signal-safe. */
int fxt_buf_attach_copy(struct fxt_buf *b, const void *mem, size_t size, struct fxt_buf_hdr *copy);

/* Reserves `words` words in the durable area: one atomic add. The caller writes the record and
 * commits it (header last, release). Full: NULL, state becomes FXT_BUF_DURABLE_FULL and the
 * record counts as dropped. The reservation stays consumed even when it does not fit.
 * Fails: NULL as said. Thread-safe, lock-free, async-signal-safe. */
uint64_t *fxt_buf_durable_reserve(struct fxt_buf *b, uint32_t words);

/* Takes the next chunk: one atomic fetch-add. Stores its sequence number in its word 0 and
 * returns the chunk (chunk_size bytes, word 0 included). Oneshot and exhausted: NULL.
 * With a policy (circular, streaming): whatever policy->take() returns.
 * Fails: NULL as said. Thread-safe, lock-free, async-signal-safe. */
uint64_t *fxt_buf_chunk_take(struct fxt_buf *b);

/* Adds n to the dropped-records counter. Thread-safe, async-signal-safe. */
void fxt_buf_count_drops(struct fxt_buf *b, uint64_t n);

/* Notes why records are being dropped (enum fxt_buf_drop_reason). Thread-safe, async-signal-
 * safe. */
static inline void fxt_buf_drop_reason(struct fxt_buf *b, uint32_t reason)
{
	atomic_fetch_or_explicit(&b->hdr->drop_reasons, reason, memory_order_relaxed);
}

/* Notes why the buffer's file could not be grown: err, the -errno of a back function (-EFBIG:
 * the file size limit, else no space). Thread-safe, async-signal-safe. */
static inline void fxt_buf_refused(struct fxt_buf *b, int err)
{
	fxt_buf_drop_reason(b, err == -EFBIG ? FXT_DROP_FILE_SIZE : FXT_DROP_NO_SPACE);
}

/* Chunks that may hold records: those in the part of the buffer backed so far (a chunk is backed
 * before it is handed out; the rest may be holes a reader must not touch), or, for a buffer that
 * is not grown, the chunk counter bounded by nchunks. Thread-safe. */
static inline uint32_t fxt_buf_slots_used(const struct fxt_buf *b)
{
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t backed = atomic_load_explicit(&h->backed, memory_order_acquire);
	uint64_t n = backed ? (backed > h->chunks_off ? (backed - h->chunks_off) / h->chunk_size : 0)
			    : atomic_load_explicit(&h->next_chunk, memory_order_acquire);
	return n < h->nchunks ? (uint32_t)n : h->nchunks;
}

/* Chunk i in [0, nchunks) (for readers): its first word. Thread-safe. */
static inline const uint64_t *fxt_buf_chunk(const struct fxt_buf *b, uint32_t i)
{
	return (const uint64_t *)(b->base + b->hdr->chunks_off + (uint64_t)i * b->hdr->chunk_size);
}

/* The durable area (for readers). Thread-safe. */
static inline const uint64_t *fxt_buf_durable(const struct fxt_buf *b)
{
	return (const uint64_t *)(b->base + b->hdr->durable_off);
}

#endif
