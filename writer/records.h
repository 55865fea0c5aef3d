/* FXT record encoders: one builder per record shape of the Fuchsia trace format
 * (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format), every argument type,
 * inline and indexed string/thread refs. Use: n = fxt_X_words(...) (0: cannot be encoded),
 * reserve n words of your memory, fxt_X_write(dst, ...) writes exactly n words and commits the
 * header last (reserve.h). Writers return the words written or -EINVAL (a field out of range) /
 * -E2BIG (a record, or one argument, over 4095 words); on error nothing is written. Inline
 * strings over 32000 bytes are cut at a UTF-8 boundary. Async-signal-safe: no malloc, no I/O,
 * no locks. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_RECORDS_H
#define FXT_WRITER_RECORDS_H

#include <stdint.h>

#include "writer/fields.h"
#include "writer/reserve.h"

/* ---- string refs ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-references */

/* index != 0: indexed (index in [1,32767], registered by a string record); else inline when
 * len > 0 (s holds len bytes of UTF-8, cut to 32000); else the empty string. repair: s may hold
 * bytes that are not UTF-8 (program data); they are written as '?' (fxt_utf8_repair()). */
struct fxt_str {
	uint16_t index; /* in [0,32767] */
	uint8_t repair; /* 0 or 1 */
	const char *s;
	uint32_t len;
};

static inline struct fxt_str fxt_str_idx(uint16_t index /* in [1,32767] */)
{
	return (struct fxt_str){ .index = index };
}

static inline struct fxt_str fxt_str_inl(const char *s, uint32_t len)
{
	return (struct fxt_str){ .s = s, .len = len };
}

/* An inline string of program data: written with every byte that does not start or continue a
 * valid UTF-8 sequence replaced by '?'. len: as fxt_str_inl(). */
static inline struct fxt_str fxt_str_repair(const char *s, uint32_t len)
{
	return (struct fxt_str){ .repair = 1, .s = s, .len = len };
}

/* Largest n <= len, n <= max, such that s[0..n) does not end inside a UTF-8 sequence (a run of
 * more than 3 continuation bytes is not UTF-8: cut plainly at max). The one UTF-8 cut of the
 * product. Fails: never. Thread-safe. */
uint32_t fxt_utf8_cut(const char *s, uint32_t len, uint32_t max);

/* Replaces, in place, every byte of p[0..len) that does not start or continue a valid UTF-8
 * sequence (overlong forms, surrogates and code points over U+10FFFF included) by '?': the one
 * UTF-8 repair of the product. Fails: never. Thread-safe; async-signal-safe. */
void fxt_utf8_repair(void *p, uint32_t len);

/* Bytes an inline string occupies in its stream (0 for indexed and empty strings). */
static inline uint32_t fxt_str_len(const struct fxt_str *s)
{
	if (s->index || !s->len)
		return 0;
	return s->len <= FXT_STRING_MAX_LEN ? s->len : fxt_utf8_cut(s->s, s->len, FXT_STRING_MAX_LEN);
}

/* The 16-bit string ref: index, 0x8000 | inline length, or 0. */
static inline uint16_t fxt_str_ref(const struct fxt_str *s)
{
	if (s->index)
		return s->index;
	uint32_t n = fxt_str_len(s);
	return n ? (uint16_t)(FXT_STRREF_INLINE | n) : 0;
}

/* Words of the inline stream (0 when indexed or empty). */
static inline uint32_t fxt_str_words(const struct fxt_str *s)
{
	return fxt_pad_words(fxt_str_len(s));
}

/* ---- thread refs ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#thread-references */

/* index != 0: indexed (registered by a thread record); 0: pid and tid koids inline. */
struct fxt_thread {
	uint8_t index; /* in [0,255] */
	uint64_t pid, tid;
};

static inline struct fxt_thread fxt_thread_idx(uint8_t index /* in [1,255] */)
{
	return (struct fxt_thread){ .index = index };
}

static inline struct fxt_thread fxt_thread_inl(uint64_t pid, uint64_t tid)
{
	return (struct fxt_thread){ .pid = pid, .tid = tid };
}

/* ---- arguments ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#argument-types */

struct fxt_warg {
	unsigned type; /* enum fxt_arg_type, in [0,9] */
	struct fxt_str name;
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64; /* also pointer and koid */
		double d;
		struct fxt_str str;
		int b;
	} v;
};

static inline struct fxt_warg fxt_arg_null(struct fxt_str name)
{
	return (struct fxt_warg){ .type = FXT_AT_NULL, .name = name };
}
static inline struct fxt_warg fxt_arg_int32(struct fxt_str name, int32_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_INT32, .name = name, .v.i32 = v };
}
static inline struct fxt_warg fxt_arg_uint32(struct fxt_str name, uint32_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_UINT32, .name = name, .v.u32 = v };
}
static inline struct fxt_warg fxt_arg_int64(struct fxt_str name, int64_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_INT64, .name = name, .v.i64 = v };
}
static inline struct fxt_warg fxt_arg_uint64(struct fxt_str name, uint64_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_UINT64, .name = name, .v.u64 = v };
}
static inline struct fxt_warg fxt_arg_double(struct fxt_str name, double v)
{
	return (struct fxt_warg){ .type = FXT_AT_DOUBLE, .name = name, .v.d = v };
}
static inline struct fxt_warg fxt_arg_string(struct fxt_str name, struct fxt_str v)
{
	return (struct fxt_warg){ .type = FXT_AT_STRING, .name = name, .v.str = v };
}
static inline struct fxt_warg fxt_arg_pointer(struct fxt_str name, uint64_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_POINTER, .name = name, .v.u64 = v };
}
static inline struct fxt_warg fxt_arg_koid(struct fxt_str name, uint64_t v)
{
	return (struct fxt_warg){ .type = FXT_AT_KOID, .name = name, .v.u64 = v };
}
static inline struct fxt_warg fxt_arg_bool(struct fxt_str name, int v)
{
	return (struct fxt_warg){ .type = FXT_AT_BOOL, .name = name, .v.b = v };
}

/* Words of one argument (header, inline name, value); 0 if it cannot be encoded. */
uint32_t fxt_arg_words(const struct fxt_warg *a);

/* ---- header builders (inline: constant-fold on hot paths) ---- */

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#record-header */
static inline uint64_t fxt_record_hdr(unsigned type /* in [0,15] */,
				      uint32_t words /* in [1,4095] */)
{
	return fxt_field_prep(FXT_RECORD_TYPE, type) | fxt_field_prep(FXT_RECORD_SIZE, words);
}

/* The one header builder of all 11 event types.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record */
static inline uint64_t fxt_event_hdr(unsigned type /* enum fxt_event_type, in [0,10] */,
				     unsigned nargs /* in [0,15] */,
				     unsigned thread_ref /* in [0,255], 0 = inline */,
				     unsigned cat_ref /* string ref, 16 bits */,
				     unsigned name_ref /* string ref, 16 bits */,
				     uint32_t words /* in [2,4095] */)
{
	return fxt_record_hdr(FXT_RT_EVENT, words) | fxt_field_prep(FXT_EVENT_TYPE, type) |
	       fxt_field_prep(FXT_EVENT_ARG_CNT, nargs) |
	       fxt_field_prep(FXT_EVENT_THREAD_REF, thread_ref) |
	       fxt_field_prep(FXT_EVENT_CATEGORY_REF, cat_ref) |
	       fxt_field_prep(FXT_EVENT_NAME_REF, name_ref);
}

/* The preload's hot path, a duration complete event
 * (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#duration-complete-event): indexed
 * thread, indexed (or empty) category and name, no arguments: exactly FXT_COMPLETE3_WORDS words.
 * Build the header once with fxt_complete3_hdr(); then each event is two stores and the release
 * store. */
#define FXT_COMPLETE3_WORDS 3u

static inline uint64_t fxt_complete3_hdr(unsigned thread_index /* in [1,255] */,
					 unsigned cat_index /* in [0,32767] */,
					 unsigned name_index /* in [0,32767] */)
{
	return fxt_event_hdr(FXT_ET_DURATION_COMPLETE, 0, thread_index, cat_index, name_index,
			     FXT_COMPLETE3_WORDS);
}

/* Writes the 3-word event at dst (reserved, dst[0] zero) and commits it. Fails: never.
 * Async-signal-safe; not thread-safe with respect to dst. */
static inline void fxt_complete3_write(uint64_t *dst, uint64_t hdr, uint64_t start, uint64_t end)
{
	dst[1] = start;
	dst[2] = end;
	__atomic_store_n(dst, hdr, __ATOMIC_RELEASE);
}

/* Words of the record whose header is h (normal or large record header); 0 for a zero word.
 * Fails: never. Thread-safe. */
static inline uint64_t fxt_record_words(uint64_t h)
{
	return fxt_field_get(FXT_RECORD_TYPE, h) == FXT_RT_LARGE
		       ? fxt_field_get(FXT_LARGE_RECORD_SIZE, h)
		       : fxt_field_get(FXT_RECORD_SIZE, h);
}

/* A blob record (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#blob-record) used
 * as padding: a raw-data blob with the empty name whose payload is the (words - 1) * 8 bytes that
 * follow, whatever they hold; readers skip it (Perfetto keeps only blobs of type Perfetto). Pads a
 * hole in a stream of records in place. */
static inline uint64_t fxt_padding_hdr(uint32_t words /* in [2,4095] */)
{
	return fxt_record_hdr(FXT_RT_BLOB, words) |
	       fxt_field_prep(FXT_BLOB_SIZE, (uint64_t)(words - 1) * 8) |
	       fxt_field_prep(FXT_BLOB_TYPE, FXT_BT_DATA);
}

/* ---- metadata records ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#metadata-record */

/* Magic number record: 1 word, 10 00 04 46 78 54 16 00 in memory.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#magic-number-record */
int fxt_magic_write(uint64_t *dst);

/* Provider info: name cut to 255 bytes (UTF-8 boundary).
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-info-metadata */
uint32_t fxt_provider_info_words(const char *name, uint32_t len);
int fxt_provider_info_write(uint64_t *dst, uint32_t provider_id /* 32 bits */, const char *name,
			    uint32_t len);

/* Provider section: 1 word.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-section-metadata */
int fxt_provider_section_write(uint64_t *dst, uint32_t provider_id /* 32 bits */);

/* Provider event: 1 word.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-event-metadata */
int fxt_provider_event_write(uint64_t *dst, uint32_t provider_id /* 32 bits */,
			     unsigned event_id /* enum fxt_provider_event, in [0,15] */);

/* ---- initialization record: 2 words ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#initialization-record */
int fxt_init_write(uint64_t *dst, uint64_t ticks_per_second);

/* ---- fxtauto's clock record (docs/FORMAT.md): a blob record of type data named "fxt-clock"
 * whose 32-byte payload is two clock pairs, little-endian u64: start ticks, start ns, end
 * ticks, end ns (CLOCK_MONOTONIC). Written after each initialization record; the end pair
 * (words FXT_CLOCK_END_WORD and FXT_CLOCK_END_WORD + 1 of the record) is {0, 0} until known
 * and may be rewritten in place, as the ticks per second are. ---- */
struct fxt_clock_pair {
	uint64_t ticks;	/* the writers' clock: TSC cycles, or CLOCK_MONOTONIC ns without a TSC */
	uint64_t ns;	/* CLOCK_MONOTONIC at the same instant */
};
#define FXT_CLOCK_WORDS 7u	/* header, the name (2 words), the payload (4) */
#define FXT_CLOCK_END_WORD 5u
int fxt_clock_write(uint64_t *dst /* FXT_CLOCK_WORDS words */, struct fxt_clock_pair start,
		    struct fxt_clock_pair end);

/* ---- string record: s cut to 32000 bytes (UTF-8 boundary) ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-record */
uint32_t fxt_string_words(const char *s, uint32_t len);
int fxt_string_write(uint64_t *dst, uint16_t index /* in [1,32767] */, const char *s, uint32_t len);

/* ---- thread record: 3 words ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#thread-record */
#define FXT_THREAD_WORDS 3u
int fxt_thread_write(uint64_t *dst, uint8_t index /* in [1,255] */, uint64_t pid, uint64_t tid);

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record ---- */

struct fxt_event {
	unsigned type; /* enum fxt_event_type, in [0,10] */
	struct fxt_thread thread;
	struct fxt_str category, name;
	uint64_t ts;
	const struct fxt_warg *args;
	unsigned nargs; /* in [0,15] */
	/* Event-type specific word: counter id (counter), end ts (complete), async correlation id
	 * (async begin/instant/end), flow correlation id (flow begin/step/end); unused otherwise. */
	uint64_t extra;
};

uint32_t fxt_event_words(const struct fxt_event *e);
int fxt_event_write(uint64_t *dst, const struct fxt_event *e);
/* As fxt_event_write() without checking e again, for a hot path that just sized it: words must
 * be what fxt_event_words(e) returned (non-zero) for this very e, inline strings (e.g. string
 * values cut to the room left) included. Returns words. Fails: never. */
int fxt_event_write_sized(uint64_t *dst, const struct fxt_event *e, uint32_t words);

/* Thin callers: each fills a struct fxt_event of one type (no arguments: set .args/.nargs). */
#define FXT_EVENT_INIT(ty, th, cat, nm, t, x)                                              \
	((struct fxt_event){ .type = (ty), .thread = (th), .category = (cat), .name = (nm), \
			     .ts = (t), .extra = (x) })
static inline struct fxt_event fxt_ev_instant(struct fxt_thread th, struct fxt_str cat,
					      struct fxt_str name, uint64_t ts)
{
	return FXT_EVENT_INIT(FXT_ET_INSTANT, th, cat, name, ts, 0);
}
static inline struct fxt_event fxt_ev_counter(struct fxt_thread th, struct fxt_str cat,
					      struct fxt_str name, uint64_t ts, uint64_t counter_id)
{
	return FXT_EVENT_INIT(FXT_ET_COUNTER, th, cat, name, ts, counter_id);
}
static inline struct fxt_event fxt_ev_begin(struct fxt_thread th, struct fxt_str cat,
					    struct fxt_str name, uint64_t ts)
{
	return FXT_EVENT_INIT(FXT_ET_DURATION_BEGIN, th, cat, name, ts, 0);
}
static inline struct fxt_event fxt_ev_end(struct fxt_thread th, struct fxt_str cat,
					  struct fxt_str name, uint64_t ts)
{
	return FXT_EVENT_INIT(FXT_ET_DURATION_END, th, cat, name, ts, 0);
}
static inline struct fxt_event fxt_ev_complete(struct fxt_thread th, struct fxt_str cat,
					       struct fxt_str name, uint64_t start, uint64_t end)
{
	return FXT_EVENT_INIT(FXT_ET_DURATION_COMPLETE, th, cat, name, start, end);
}
static inline struct fxt_event fxt_ev_async_begin(struct fxt_thread th, struct fxt_str cat,
						  struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_ASYNC_BEGIN, th, cat, name, ts, id);
}
static inline struct fxt_event fxt_ev_async_instant(struct fxt_thread th, struct fxt_str cat,
						    struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_ASYNC_INSTANT, th, cat, name, ts, id);
}
static inline struct fxt_event fxt_ev_async_end(struct fxt_thread th, struct fxt_str cat,
						struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_ASYNC_END, th, cat, name, ts, id);
}
static inline struct fxt_event fxt_ev_flow_begin(struct fxt_thread th, struct fxt_str cat,
						 struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_FLOW_BEGIN, th, cat, name, ts, id);
}
static inline struct fxt_event fxt_ev_flow_step(struct fxt_thread th, struct fxt_str cat,
						struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_FLOW_STEP, th, cat, name, ts, id);
}
static inline struct fxt_event fxt_ev_flow_end(struct fxt_thread th, struct fxt_str cat,
					       struct fxt_str name, uint64_t ts, uint64_t id)
{
	return FXT_EVENT_INIT(FXT_ET_FLOW_END, th, cat, name, ts, id);
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#blob-record ---- */
struct fxt_blob {
	struct fxt_str name;
	unsigned type; /* enum fxt_blob_type, in [0,255] */
	const void *data;
	uint32_t size; /* bytes, in [0,32767] */
};
uint32_t fxt_blob_words(const struct fxt_blob *b);
int fxt_blob_write(uint64_t *dst, const struct fxt_blob *b);

/* ---- userspace object record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#userspace-object-record */
struct fxt_uobj {
	uint64_t pointer;
	struct fxt_thread process; /* inline: only .pid is written (the spec's process id word) */
	struct fxt_str name;
	const struct fxt_warg *args;
	unsigned nargs; /* in [0,15] */
};
uint32_t fxt_uobj_words(const struct fxt_uobj *o);
int fxt_uobj_write(uint64_t *dst, const struct fxt_uobj *o);

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#kernel-object-record ---- */
struct fxt_kobj {
	unsigned obj_type; /* enum fxt_kobj_type (ZX_OBJ_TYPE_*), in [0,255] */
	uint64_t koid;
	struct fxt_str name;
	const struct fxt_warg *args; /* convention: "process" koid for threads */
	unsigned nargs; /* in [0,15] */
};
uint32_t fxt_kobj_words(const struct fxt_kobj *o);
int fxt_kobj_write(uint64_t *dst, const struct fxt_kobj *o);

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#scheduling-record ---- */
struct fxt_cswitch {	/* context switch (scheduling type 1) */
	unsigned cpu;	/* in [0,65535] */
	unsigned out_state; /* thread state, in [0,15] */
	uint64_t ts, out_tid, in_tid;
	const struct fxt_warg *args;
	unsigned nargs; /* in [0,15] */
};
uint32_t fxt_cswitch_words(const struct fxt_cswitch *s);
int fxt_cswitch_write(uint64_t *dst, const struct fxt_cswitch *s);

struct fxt_wakeup {	/* thread wakeup (scheduling type 2) */
	unsigned cpu;	/* in [0,65535] */
	uint64_t ts, waking_tid;
	const struct fxt_warg *args;
	unsigned nargs; /* in [0,15] */
};
uint32_t fxt_wakeup_words(const struct fxt_wakeup *s);
int fxt_wakeup_write(uint64_t *dst, const struct fxt_wakeup *s);

struct fxt_legacy_cswitch { /* legacy context switch (scheduling type 0) */
	unsigned cpu;	    /* in [0,255] */
	unsigned out_state; /* thread state, in [0,15] */
	struct fxt_thread out, in;
	unsigned out_prio, in_prio; /* in [0,255] */
	uint64_t ts;
};
uint32_t fxt_legacy_cswitch_words(const struct fxt_legacy_cswitch *s);
int fxt_legacy_cswitch_write(uint64_t *dst, const struct fxt_legacy_cswitch *s);

/* ---- log record: message cut to 32000 bytes (UTF-8 boundary) ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#log-record */
struct fxt_log {
	struct fxt_thread thread;
	uint64_t ts;
	const char *msg;
	uint32_t len;
};
uint32_t fxt_log_words(const struct fxt_log *l);
int fxt_log_write(uint64_t *dst, const struct fxt_log *l);

/* Program output as a log record: the message is l->msg[0..l->len) followed by
 * tail[0..tail_len) (a line written in two calls; tail_len 0: none), at most 32000 bytes
 * together (the caller cuts; more: 0 words, -EINVAL), written with every byte that is not UTF-8
 * replaced by '?' (fxt_utf8_repair(), over the joined message). The message bytes then start
 * at word 2 (indexed thread) or 4 (inline koids) of the record. */
uint32_t fxt_log_text_words(const struct fxt_log *l, uint32_t tail_len);
int fxt_log_text_write(uint64_t *dst, const struct fxt_log *l, const char *tail,
		       uint32_t tail_len);

/* ---- large blob record (large header: size up to 2^32-1 words) ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#large-blob-record */
struct fxt_large_blob {
	unsigned format; /* enum fxt_lblob_format: 0 with metadata, 1 without */
	struct fxt_str category, name;
	/* format 0 only: */
	struct fxt_thread thread;
	uint64_t ts;
	const struct fxt_warg *args;
	unsigned nargs; /* in [0,15] */
	/* payload: */
	const void *data;
	uint64_t size; /* bytes */
};
uint32_t fxt_large_blob_words(const struct fxt_large_blob *b);
int fxt_large_blob_write(uint64_t *dst, const struct fxt_large_blob *b);

#endif
