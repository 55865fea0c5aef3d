/* The standalone archive file: without fxtrun, a process's trace buffer is a shared mapping of
 * the archive file itself (FXT_BUF_GROWING), so committed records reach the file through the
 * page cache with no copy, survive SIGKILL, and the file grows as chunks are taken (no wall).
 * This module lays the file out, turns each chunk a writer leaves into plain FXT in place, and
 * finishes (at exit) or recovers (after a kill: `fxt recover`) the whole file into a valid
 * archive. Pure memory work, no I/O: the caller backs the bytes (fallocate) and truncates.
 * Every function is async-signal-safe and lock-free unless it says otherwise. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_OUTFILE_H
#define FXT_WRITER_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "writer/buffer.h"

/*
 * Layout (offsets in the file, all records 8-byte aligned):
 *
 *   [0, 4096)        the prologue, plain FXT: magic number record, provider info (the process
 *                    name), provider section, initialization record (ticks per second: an
 *                    estimate while running, the calibrated value once finished), the clock
 *                    record (writer/records.h: its end pair follows the calibration), and one
 *                    raw-data blob named "fxt-buffer" that fills the page; its payload holds
 *                    struct fxt_buf_hdr at FXT_OUTFILE_HDR_OFF (counters, sizes, state) and
 *                    the open-chunk table at FXT_OUTFILE_SLOTS_OFF: one word per chunk a
 *                    writer holds (its sequence number, 0: free), so that finishing the file
 *                    (at exit, or `fxt recover`) visits only those, never the whole file.
 *   [4096, +D)       the durable area: string, thread and kernel object records, then zeros
 *                    until finished (the zeros then become padding records).
 *   chunks           chunk i at chunks_off + i * chunk_size, taken in file order. Word 0 of a
 *                    chunk a writer still owns is FXT_OUTFILE_OPEN | slot << 40 | sequence
 *                    (slot: its entry in the open-chunk table, or FXT_OUTFILE_NO_SLOT); when
 *                    its writer leaves it, the words after its last record become padding and
 *                    word 0 a provider section record: the chunk is then plain FXT.
 * Once finished, the durable area also holds the buffer-full provider event and the dropped-
 * records count (fxt_outfile_trailer()) when records were dropped: it is always backed.
 *
 * Padding: one raw-data blob with the empty name per run of up to 4095 words; where a thread
 * may still be writing (a chunk or durable tail finished while threads run), one-word provider
 * section records instead, so that a late record committed over them leaves the stream valid.
 */
#define FXT_OUTFILE_HDR_OFF 512u
#define FXT_OUTFILE_OPEN (1ULL << 62)
#define FXT_OUTFILE_SLOTS_OFF 1024u
#define FXT_OUTFILE_SLOTS ((FXT_BUF_HDR_SIZE - FXT_OUTFILE_SLOTS_OFF) / 8)	/* 384 */
#define FXT_OUTFILE_SLOT_SHIFT 40
#define FXT_OUTFILE_NO_SLOT 0xfffu	/* the table was full: finishing scans every chunk */
#define FXT_OUTFILE_MAX_NAME 255u
#define FXT_OUTFILE_MAX_DURABLE (64ULL << 20)	/* bytes of string area a file may have */

/* Process-local state of a growing buffer, b->ctx. */
struct fxt_outfile {
	/* Makes bytes [0, end) of the mapping writable storage (fallocate: the file grows);
	 * 0, or -errno (full disk: no more chunks). Async-signal-safe. */
	int (*back)(struct fxt_buf *b, uint64_t end);
	uint32_t provider_id;
	uint32_t init_off;	/* offset of the initialization record's ticks-per-second word */
	int stopped;		/* set by the exit flush: no chunk is handed out any more */
	int taking;		/* takes in flight (between the chunk counter and word 0) */
};

/* Writes the prologue into the first FXT_BUF_HDR_SIZE bytes of mem (zeroed) and lays a growing
 * buffer out behind it (header inside the prologue, durable area at FXT_BUF_HDR_SIZE, chunks up
 * to size bytes of address space), with the growing policy and o as its state.
 * Fails: -EINVAL (sizes, as fxt_buf_init()). Not thread-safe: before the buffer is shared. */
int fxt_outfile_init(struct fxt_buf *b, struct fxt_outfile *o, void *mem, size_t size,
		     uint64_t durable_size, uint32_t chunk_size, uint64_t pid, const char *name,
		     uint64_t ticks_per_second, struct fxt_clock_pair clock_start);

/* The growing policy (fxt_outfile_init() installs it; a caller may wrap release): take hands out
 * the next chunk in file order once o->back() backed it (NULL: stopped, window full, or the file
 * system refused), release finishes the chunk its writer left. Thread-safe; async-signal-safe. */
uint64_t *fxt_outfile_take(struct fxt_buf *b);
void fxt_outfile_release(struct fxt_buf *b, uint64_t *c, const uint64_t *end);

/* Stores a ticks-per-second value in the prologue's initialization record and the header, and
 * the clock reading it was calibrated up to (NULL: the one stored is kept) as the end pair of
 * the prologue's clock record and the header's clock_end.
 * Fails: never. Thread-safe (a racing reader sees the old or the new value, or an end pair of
 * ticks 0, which readers refuse). */
void fxt_outfile_set_tps(struct fxt_buf *b, uint64_t ticks_per_second,
			 const struct fxt_clock_pair *end);

/* The header word of the first padding record of a run of n >= 1 words: a raw-data blob of
 * min(n, 4095) words, or a one-word provider section record. Fails: never. */
uint64_t fxt_outfile_pad_word(size_t n, uint32_t provider_id);

/* Pads words [p, p + n) with padding records (robust: one-word records). Fails: never. */
void fxt_outfile_pad(uint64_t *p, size_t n, uint32_t provider_id, int robust);

/* Makes chunk c plain FXT: its valid records are kept except events and logs stamped after
 * cutoff (0: none), which become padding like the rest of the chunk; word 0 becomes a provider
 * section record last. robust: a writer may still be writing into it. Fails: never. */
void fxt_outfile_finish_chunk(const struct fxt_buf *b, uint64_t *c, uint64_t cutoff, int robust);

/* Stops handing out chunks and waits (briefly) for takes in flight to stamp their chunk, so the
 * finish sees every chunk taken. Async-signal-safe. */
void fxt_outfile_stop(struct fxt_buf *b);

/* Finishes the whole file at exit or after a kill: pads the durable tail, finishes every chunk
 * still open below `chunks` (those taken; each at most once), and returns the file size in
 * bytes (end of the last chunk). robust: threads may still be running.
 * Fails: never. Not thread-safe with another finisher. */
uint64_t fxt_outfile_finish(struct fxt_buf *b, uint64_t chunks, uint64_t cutoff, int robust);

/* The whole end of a file: the trailer (when records were dropped) into the durable area, which
 * is always backed (a full disk that made records drop has no room after the chunks), then
 * fxt_outfile_finish(). Returns the file size. Fails: never. Not thread-safe. */
uint64_t fxt_outfile_seal(struct fxt_buf *b, uint64_t chunks, uint64_t cutoff, uint64_t ts,
			  int robust);

/* Words of the trailer for buffer b (0 when nothing was dropped); dst (at least
 * FXT_OUTFILE_TRAILER_WORDS words) receives the buffer-full provider event and an instant
 * event "records dropped" of category "fxtauto" carrying the count (argument "records") and
 * the reasons (argument "reason"), stamped at ts. Fails: never. */
#define FXT_OUTFILE_TRAILER_WORDS 48u
uint32_t fxt_outfile_trailer(const struct fxt_buf *b, uint32_t provider_id, uint64_t ts,
			     uint64_t *dst);

/* Finds the buffer of a standalone archive file of size bytes at mem (a killed run's, or a
 * finished one): checks the prologue, the header and that the areas lie in the file.
 * Fails: -EINVAL (not such a file), -EPROTONOSUPPORT (other layout version). Thread-safe. */
int fxt_outfile_attach(struct fxt_buf *b, struct fxt_outfile *o, void *mem, size_t size);

/* The header of a standalone archive file from its first FXT_BUF_HDR_SIZE bytes (page, 8-byte
 * aligned), with the checks of fxt_outfile_attach() that need no more of the file: to read its
 * state, or to learn how long a file cut short must be (chunks_off: a process killed before
 * its string area was backed). Fails: NULL, errno EINVAL or EPROTONOSUPPORT. Thread-safe. */
const struct fxt_buf_hdr *fxt_outfile_header(const void *page);

/* Words of the "records dropped" event (used by the manager's archive too): ts, pid, count and
 * the reason bits. Fails: -EINVAL if dst_words is too small. */
int fxt_dropped_event_write(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
			    uint64_t records, uint32_t reasons);

/* Words of the "records overwritten" event of a circular buffer that wrapped (written by the
 * manager, the only writer of circular buffers): ts, pid, about how many records were
 * overwritten, the stamp of the oldest record kept and the chunks overwritten. Fails: -EINVAL if
 * dst_words is too small. */
int fxt_overwritten_event_write(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
				uint64_t records, uint64_t kept_from, uint64_t chunks);

/* The words naming drop reasons ("buffer full", "manager did not answer"...), comma-separated,
 * into buf. Fails: never (cut to size). Thread-safe. */
void fxt_drop_reasons_str(uint32_t reasons, char *buf, size_t size);

#endif
