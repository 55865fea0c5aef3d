/* <fxt/reader.h>: public API of libfxtreader (reader/): a streaming, bounds-checked parser over a
 * mapped archive that delivers records in file order as plain structs, with string and thread
 * refs already resolved through the current provider's tables; a validator of the rules that
 * span records; the canonical text of a record. Any bytes are safe input: the reader never
 * reads out of bounds and always advances or stops. One reader is used by one thread; distinct
 * readers are independent. Views (struct fxt_sv) point into the mapped file and stay valid
 * until fxt_reader_close(). Needs only <fxt/format.h> (the spec's type numbers) beside it;
 * link with `pkg-config --libs fxtreader`. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_READER_H
#define FXT_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libfxtreader.so exports (the rest of the library is hidden; reader/fxtreader.map
 * names the same functions). */
#define FXT_READER_API __attribute__((visibility("default")))

struct fxt_reader;

/* A string view into the archive: not NUL-terminated. */
struct fxt_sv {
	const char *s;
	uint32_t len;
};

/* A process/thread koid pair, resolved from a thread ref or read inline. */
struct fxt_koids {
	uint64_t pid;
	uint64_t tid;
};

/* One argument; type is an enum fxt_arg_type value.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#arguments */
struct fxt_arg {
	unsigned type;
	struct fxt_sv name;
	union {
		int64_t i64;	/* int32, int64 */
		uint64_t u64;	/* uint32, uint64, pointer, koid */
		double dbl;
		int boolean;
		struct fxt_sv str;
	} v;
};

/* One decoded record. type is an enum fxt_record_type value, numbers in the sub-structs are the
 * spec's enum values (<fxt/format.h>). Only the member matching type is meaningful. */
struct fxt_record {
	uint64_t offset;	/* byte offset of the header word in the archive */
	uint64_t words;		/* record size in 8-byte words, header included */
	unsigned type;
	uint32_t provider_id;	/* provider whose section holds the record (0 before any) */
	union {
		struct {
			unsigned meta_type;	/* enum fxt_metadata_type */
			uint32_t provider_id;
			struct fxt_sv name;	/* provider info */
			unsigned event_id;	/* provider event */
			unsigned trace_info_type;
			uint32_t magic;		/* trace info, magic number record */
		} meta;
		struct {
			uint64_t ticks_per_second;
		} init;
		struct {
			uint16_t index;
			struct fxt_sv str;
		} string;
		struct {
			uint8_t index;
			struct fxt_koids koids;
		} thread;
		struct {
			unsigned event_type;	/* enum fxt_event_type */
			uint64_t ts;
			struct fxt_koids thread;
			struct fxt_sv category;
			struct fxt_sv name;
			uint64_t end_ts;	/* duration complete */
			uint64_t id;		/* counter id, async or flow correlation id */
		} event;
		struct {
			struct fxt_sv name;
			unsigned blob_type;	/* enum fxt_blob_type */
			const void *data;
			uint32_t size;
		} blob;
		struct {
			uint64_t pointer;
			uint64_t process_koid;
			struct fxt_sv name;
		} uobj;
		struct {
			unsigned obj_type;	/* enum fxt_kobj_type */
			uint64_t koid;
			struct fxt_sv name;
		} kobj;
		struct {
			unsigned sched_type;	/* enum fxt_sched_type */
			uint64_t ts;
			unsigned cpu;
			unsigned out_state;
			struct fxt_koids out_thread;	/* context switch (tid only) or legacy */
			struct fxt_koids in_thread;	/* context switch (tid only) or legacy */
			uint64_t waking_tid;		/* thread wakeup */
			unsigned out_prio, in_prio;	/* legacy */
		} sched;
		struct {
			uint64_t ts;
			struct fxt_koids thread;
			struct fxt_sv msg;
		} log;
		struct {
			unsigned large_type;	/* enum fxt_large_type */
			unsigned format;	/* enum fxt_lblob_format */
			struct fxt_sv category;
			struct fxt_sv name;
			uint64_t ts;		/* format 0 */
			struct fxt_koids thread; /* format 0 */
			const void *data;
			uint64_t size;
		} large;
	} u;
	unsigned nargs;
	struct fxt_arg args[FXT_MAX_ARGS];
};

/* Reader options for fxt_reader_open*(): */
enum fxt_reader_flags {
	/* Report every structural violation as an error: non-zero reserved bits or padding (of
	 * inline strings, string records, provider names, log messages, blob payloads), invalid
	 * UTF-8, refs to strings/threads never registered, argument sizes that do not match their
	 * type, subtypes the spec leaves undefined (event type 11 and up, metadata, trace info,
	 * scheduling and large record types, large blob formats). Without it, such records are
	 * still decoded as well as possible (unknown refs become empty strings / zero koids) and
	 * counted in fxt_reader_stats (records of an undefined subtype are skipped). Unknown record
	 * and argument types are skipped in both modes: the spec extends the format with them. */
	FXT_READER_STRICT = 1 << 0,
	/* Report record types (10-14) and argument types (10-15) the spec reserves as errors
	 * (the validator, fxt check); without it they are skipped and counted as unknown. */
	FXT_READER_RESERVED = 1 << 1,
};

/* Result codes of fxt_reader_next(). */
enum fxt_read_result {
	FXT_READ_RECORD = 1,	  /* *rec holds the next record */
	FXT_READ_END = 0,	  /* clean end of archive */
	FXT_READ_TRUNCATED = -1,  /* last record runs past the end: everything before it was read */
	FXT_READ_CORRUPT = -2,	  /* malformed record: see fxt_reader_error() */
};

/* What went wrong, where. msg is one line without a newline. */
struct fxt_read_error {
	uint64_t offset;
	char msg[160];
};

/* Counters kept while reading (all records, also skipped ones). */
struct fxt_reader_stats {
	uint64_t records;
	uint64_t unknown_skipped;	/* records of unknown type (or subtype: lenient), skipped */
	uint64_t lenient_fixes;		/* violations tolerated outside STRICT mode */
	uint64_t bytes;			/* bytes consumed so far */
};

/* Maps the file read-only; input that cannot be mapped (a pipe, a FIFO, /dev/stdin on a pipe)
 * is read whole into memory the reader owns, up to the memory available when reading starts.
 * Returns 0 or a negative errno (file missing, a directory: -EISDIR, unreadable, -EFBIG: a pipe
 * holding more than the memory available). An empty file opens and reads as FXT_READ_END...
 * callers that need the magic number check it on the first record. Thread-safe: each call
 * makes an independent reader. */
FXT_READER_API int fxt_reader_open(struct fxt_reader **out, const char *path, unsigned flags);

/* Reads from memory the caller keeps alive until close. Same result codes. */
FXT_READER_API int fxt_reader_open_mem(struct fxt_reader **out, const void *data, size_t len,
				       unsigned flags);

FXT_READER_API void fxt_reader_close(struct fxt_reader *r);

/* Starts r over at the first record of the same bytes (a second pass over a pipe read once):
 * tables, stats, errors and the end state are reset; views from before stay valid. Returns 0
 * or -ENOMEM (then every fxt_reader_next() returns FXT_READ_CORRUPT). Not thread-safe. */
FXT_READER_API int fxt_reader_rewind(struct fxt_reader *r);

/* Decodes the next record into *rec. Returns an enum fxt_read_result. After TRUNCATED or
 * CORRUPT every further call returns the same code. Unknown record types are skipped (counted
 * in stats) as the spec allows; they never end the read. */
FXT_READER_API int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec);

/* Decodes the one record at the start of [p, p + words) (8-byte aligned, any bytes) with r's
 * tables and flags, as if it came next in r's archive at byte offset `offset` (its string and
 * thread records register in r's tables); r's own position is left alone. Views in *rec point
 * into p. Used to vet records before they are copied (the trace manager). Returns
 * FXT_READ_RECORD, FXT_READ_END for a record skipped (unknown type, or subtype when lenient),
 * FXT_READ_TRUNCATED (it runs past words) or FXT_READ_CORRUPT (fxt_reader_error() says why).
 * Fails: as said. Not thread-safe (one reader, one thread). */
FXT_READER_API int fxt_reader_decode(struct fxt_reader *r, const uint64_t *p, size_t words,
				     uint64_t offset, struct fxt_record *rec);

FXT_READER_API const struct fxt_read_error *fxt_reader_error(const struct fxt_reader *r);
FXT_READER_API const struct fxt_reader_stats *fxt_reader_stats(const struct fxt_reader *r);

/* Name of a provider seen so far in provider info records, or an empty view. */
FXT_READER_API struct fxt_sv fxt_reader_provider_name(const struct fxt_reader *r,
						     uint32_t provider_id);

/* Converts ticks to nanoseconds with the current provider's initialization record
 * (1 tick = 1 ns when there is none, as the spec says). */
FXT_READER_API uint64_t fxt_reader_ticks_to_ns(const struct fxt_reader *r, uint64_t ticks);

/* fxtauto's clock record (docs/FORMAT.md "The clock"): a blob of type data named "fxt-clock"
 * after a provider's initialization record, holding two readings of the provider's clock
 * (ticks) and of CLOCK_MONOTONIC (ns), each taken at one instant; the end reading is {0, 0}
 * (or has ticks 0) when the writer did not store one. */
struct fxt_clock {
	uint64_t start_ticks, start_ns;
	uint64_t end_ticks, end_ns;
};

/* Whether rec is a clock record: 1 and *clock set, else 0 (a blob of that name whose size or
 * type differs is not one: STRICT reading reports it). Fails: never. Thread-safe. */
FXT_READER_API int fxt_record_clock(const struct fxt_record *rec, struct fxt_clock *clock);

/* Converts ticks to CLOCK_MONOTONIC nanoseconds with the current provider's latest clock
 * record: on the line through its two readings when the end one is later in both clocks, else
 * from its start reading at the initialization record's rate. Exact integer arithmetic; a
 * result below 0 or past 2^64 - 1 ns is clamped. Returns 1 (*ns set), or 0 when the provider
 * has no clock record (*ns = fxt_reader_ticks_to_ns()). Fails: never. */
FXT_READER_API int fxt_reader_mono_ns(const struct fxt_reader *r, uint64_t ticks, uint64_t *ns);

/* Whether rec is fxtauto's count of dropped records (an instant event of category "fxtauto"
 * named "records dropped", written once per provider that dropped records, beside its "buffer
 * full" provider event): 1 and *records set, else 0. Fails: never. Thread-safe. */
FXT_READER_API int fxt_record_dropped(const struct fxt_record *rec, uint64_t *records);

/* Whether rec is fxtauto's account of a circular buffer that wrapped (an instant event of
 * category "fxtauto" named "records overwritten", written once per such provider at its end):
 * 1 with *records the estimated number of records overwritten (chunks overwritten times the
 * records per kept chunk) and *kept_from the stamp of the oldest record kept, else 0. Fails:
 * never. Thread-safe. */
FXT_READER_API int fxt_record_overwritten(const struct fxt_record *rec, uint64_t *records,
					  uint64_t *kept_from);

/* ---- Semantic validation (reader/validate.c) ----
 * The rules that span records, fed one decoded record at a time in archive order: the magic
 * number record first; duration begin/end balanced per thread, each end at or after its begin;
 * complete events with end >= start; per provider,
 * as many async (flow) ends as begins for each id, and no instant (step) of an id never begun.
 * Ids are paired by count over the whole archive, not in file order (chunks of threads
 * interleave, so an end may precede its begin in the file); an async id's records are then put
 * in time order (fxt_validator_lenient: not). A provider that reported dropped
 * records (provider event "buffer full") may miss begins and ends: unpaired ones are accepted.
 * Warnings (counted, the record accepted): complete events of a thread that overlap without
 * nesting (the spec has no nesting rule; exact for callees written before callers, never
 * reports a pair that does not overlap).
 * Views of the records must stay valid until fxt_validator_free() (keep the reader open).
 * One validator per thread. */
struct fxt_validator;

/* What the records fed so far hold. */
struct fxt_validate_summary {
	uint64_t by_type[16];	/* records per record type */
	uint64_t events;	/* event records */
	uint64_t providers;	/* distinct provider ids in provider info / section records */
	uint64_t threads;	/* distinct (provider, pid, tid) of event records */
	uint64_t strings;	/* string records */
	uint64_t thread_records;
	uint64_t dropped_providers;	/* providers that reported dropped records (buffer full) */
	uint64_t dropped_records;	/* records they said they dropped (fxt_record_dropped()) */
	uint64_t warnings;	/* records accepted with a warning (fxt_validator_warning()) */
};

/* Returns 0 or -ENOMEM. */
FXT_READER_API int fxt_validator_new(struct fxt_validator **out);

/* Before the first record: async ids are paired by count only. Without it, each async id's
 * records in time order (ties: begin, instants, end) must go begin, instants, end, again for
 * a reused id: a second begin before the end, an instant outside them or an end before the
 * begin is a problem. Fails: never. */
FXT_READER_API void fxt_validator_lenient(struct fxt_validator *v);
FXT_READER_API void fxt_validator_free(struct fxt_validator *v);

/* Checks one record. Returns 0, -EBADMSG when it breaks a rule (the first problem is kept:
 * fxt_validator_problem(); later calls return -EBADMSG at once), or -ENOMEM. */
FXT_READER_API int fxt_validator_add(struct fxt_validator *v, const struct fxt_record *rec);

/* fxt_validator_add() of a duration complete event of provider_id on thread, from start to
 * end, at archive offset `offset`, without arguments: the same checks and counts, without a
 * decoded record to build. Same returns. */
FXT_READER_API int fxt_validator_add_complete(struct fxt_validator *v, uint32_t provider_id,
					      struct fxt_koids thread, uint64_t start,
					      uint64_t end, uint64_t offset);

/* The end-of-archive rules (no open duration, async or flow). Same returns. */
FXT_READER_API int fxt_validator_finish(struct fxt_validator *v);

FXT_READER_API const struct fxt_read_error *fxt_validator_problem(const struct fxt_validator *v);

/* The latest warning (its offset and one line), NULL when none: a caller that wants every
 * warning reads it after each fxt_validator_add() that raised summary->warnings. Fails: never.
 * Thread-safe: as the validator. */
FXT_READER_API const struct fxt_read_error *fxt_validator_warning(const struct fxt_validator *v);
FXT_READER_API const struct fxt_validate_summary *
fxt_validator_summary(const struct fxt_validator *v);

/* ---- Text of a record (reader/print.c): `fxt dump` and golden-file tests ---- */

/* Name of a record's kind: its event, metadata or scheduling type when it has one ("complete",
 * "provider_info", "context_switch"...), else its record type ("string", "log"...); "unknown"
 * for a type the spec does not define. Fails: never. Thread-safe. */
FXT_READER_API const char *fxt_record_kind(const struct fxt_record *rec);

/* Name of an argument type ("int32", "koid"...), "unknown" past bool. Fails: never.
 * Thread-safe. */
FXT_READER_API const char *fxt_arg_type_name(unsigned type);

/* Bytes fxt_arg_text() needs: the longest value it writes, NUL included. */
#define FXT_ARG_TEXT_MAX 32u

/* The value of an argument that is not a string, as text into buf (FXT_ARG_TEXT_MAX bytes):
 * integers and koids in decimal, pointers as 0x hex, doubles with %.17g (they read back
 * exactly), "true"/"false", "null". Returns buf, or NULL for a string argument (its value is
 * a->v.str) or a type past bool. Fails: as said. Thread-safe. */
FXT_READER_API const char *fxt_arg_text(const struct fxt_arg *a, char buf[FXT_ARG_TEXT_MAX]);

/* Writes the record's canonical line (with '\n') to f: "<offset> <kind> field=value ...
 * args{"name":type=value, ...}", fields in a fixed order, strings quoted with C escapes so that
 * any bytes print as one line. Returns what the last putc() returned: EOF when f failed.
 * Thread-safe: as f. */
FXT_READER_API int fxt_record_print(FILE *f, const struct fxt_record *rec);

#ifdef __cplusplus
}
#endif
#endif
