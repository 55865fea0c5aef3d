/* FXT bit layouts as data: one mask per field of the Fuchsia trace format, named after the
 * spec (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format), and the two helpers
 * that pack and unpack them. Writer and reader both include this file; no other file shifts
 * record bits. The type numbers that decoded records carry are in the public <fxt/format.h>,
 * included here. Header-only, no state, safe anywhere (signal handlers included). Bit ranges are
 * inclusive [lo, hi] as in the spec. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_FIELDS_H
#define FXT_WRITER_FIELDS_H

#include <stdint.h>

#include "fxt/format.h" /* the spec's type numbers, FXT_MAGIC, FXT_MAX_ARGS */

/* A mask covering bits lo..hi inclusive (0 <= lo <= hi <= 63). */
#define FXT_BITS(lo, hi) ((~0ULL >> (63 - (hi))) & (~0ULL << (lo)))

/* Lowest set bit of a non-zero mask: the field's shift. */
static inline unsigned fxt_field_shift(uint64_t mask)
{
	return (unsigned)__builtin_ctzll(mask);
}

/* Packs v into the field; bits of v beyond the field's width are dropped. */
static inline uint64_t fxt_field_prep(uint64_t mask, uint64_t v)
{
	return (v << fxt_field_shift(mask)) & mask;
}

/* Extracts the field from a word. */
static inline uint64_t fxt_field_get(uint64_t mask, uint64_t word)
{
	return (word & mask) >> fxt_field_shift(mask);
}

/* Largest value a field can hold. */
#define FXT_FIELD_MAX(mask) ((mask) >> __builtin_ctzll(mask))

/* ---- record header ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#record-header */
#define FXT_RECORD_TYPE FXT_BITS(0, 3)
#define FXT_RECORD_SIZE FXT_BITS(4, 15) /* in words, header included */
#define FXT_RECORD_MAX_WORDS 4095u

/* ---- large record header ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#large-record-header */
#define FXT_LARGE_RECORD_SIZE FXT_BITS(4, 35)
#define FXT_LARGE_RECORD_TYPE FXT_BITS(36, 39)
#define FXT_LARGE_BLOB_FORMAT FXT_BITS(40, 43)

/* ---- metadata ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#metadata-record */
#define FXT_META_TYPE FXT_BITS(16, 19)
#define FXT_META_PROVIDER_ID FXT_BITS(20, 51)
#define FXT_META_NAME_LEN FXT_BITS(52, 59) /* provider info */
#define FXT_META_EVENT_ID FXT_BITS(52, 55) /* provider event */
#define FXT_META_TRACE_INFO_TYPE FXT_BITS(20, 23)
#define FXT_META_MAGIC FXT_BITS(24, 55)
/* The whole magic number record word: bytes 10 00 04 46 78 54 16 00. */
#define FXT_MAGIC_RECORD 0x0016547846040010ULL

/* ---- string record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-record */
#define FXT_STRING_INDEX FXT_BITS(16, 30)
#define FXT_STRING_LEN FXT_BITS(32, 46)
#define FXT_STRING_MAX_INDEX 0x7fffu
#define FXT_STRING_MAX_LEN 32000u /* the spec's conservative limit */

/* ---- string ref: 16 bits ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-references */
#define FXT_STRREF_INLINE 0x8000u /* set: the low 15 bits are an inline length */
#define FXT_STRREF_LEN_MASK 0x7fffu

/* ---- thread record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#thread-record */
#define FXT_THREAD_INDEX FXT_BITS(16, 23)
#define FXT_THREAD_MAX_INDEX 255u

/* ---- event record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record */
#define FXT_EVENT_TYPE FXT_BITS(16, 19)
#define FXT_EVENT_ARG_CNT FXT_BITS(20, 23)
#define FXT_EVENT_THREAD_REF FXT_BITS(24, 31)
#define FXT_EVENT_CATEGORY_REF FXT_BITS(32, 47)
#define FXT_EVENT_NAME_REF FXT_BITS(48, 63)

/* ---- blob record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#blob-record */
#define FXT_BLOB_NAME_REF FXT_BITS(16, 31)
#define FXT_BLOB_SIZE FXT_BITS(32, 46)
#define FXT_BLOB_TYPE FXT_BITS(48, 55)
/* fxtauto's clock record: a data blob of this name, 32 bytes (writer/records.h, docs/FORMAT.md) */
#define FXT_CLOCK_NAME "fxt-clock"
#define FXT_CLOCK_BYTES 32u

/* ---- userspace object record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#userspace-object-record */
#define FXT_UOBJ_THREAD_REF FXT_BITS(16, 23)
#define FXT_UOBJ_NAME_REF FXT_BITS(24, 39)
#define FXT_UOBJ_ARG_CNT FXT_BITS(40, 43)

/* ---- kernel object record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#kernel-object-record */
#define FXT_KOBJ_TYPE FXT_BITS(16, 23)
#define FXT_KOBJ_NAME_REF FXT_BITS(24, 39)
#define FXT_KOBJ_ARG_CNT FXT_BITS(40, 43)

/* ---- scheduling records ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#scheduling-record */
#define FXT_SCHED_TYPE FXT_BITS(60, 63)
#define FXT_SCHED_ARG_CNT FXT_BITS(16, 19)	 /* context switch, wakeup */
#define FXT_SCHED_CPU FXT_BITS(20, 35)		 /* context switch, wakeup */
#define FXT_SCHED_OUT_STATE FXT_BITS(36, 39)	 /* context switch */
#define FXT_LEGACY_CS_CPU FXT_BITS(16, 23)
#define FXT_LEGACY_CS_OUT_STATE FXT_BITS(24, 27)
#define FXT_LEGACY_CS_OUT_THREAD FXT_BITS(28, 35)
#define FXT_LEGACY_CS_IN_THREAD FXT_BITS(36, 43)
#define FXT_LEGACY_CS_OUT_PRIO FXT_BITS(44, 51)
#define FXT_LEGACY_CS_IN_PRIO FXT_BITS(52, 59)

/* ---- log record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#log-record */
#define FXT_LOG_MSG_LEN FXT_BITS(16, 30)
#define FXT_LOG_THREAD_REF FXT_BITS(32, 39)

/* ---- large blob, second word ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#large-blob-record */
#define FXT_LBLOB_CATEGORY_REF FXT_BITS(0, 15)
#define FXT_LBLOB_NAME_REF FXT_BITS(16, 31)
#define FXT_LBLOB_ARG_CNT FXT_BITS(32, 35) /* format 0 only */
#define FXT_LBLOB_THREAD_REF FXT_BITS(36, 43) /* format 0 only */

/* ---- arguments ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#argument-types */
#define FXT_ARG_TYPE FXT_BITS(0, 3)
#define FXT_ARG_SIZE FXT_BITS(4, 15)
#define FXT_ARG_NAME_REF FXT_BITS(16, 31)
#define FXT_ARG_VALUE32 FXT_BITS(32, 63) /* int32, uint32 */
#define FXT_ARG_STRING_REF FXT_BITS(32, 47)
#define FXT_ARG_BOOL FXT_BITS(32, 32)

/* Words a byte stream of n bytes occupies once zero-padded to 8. */
static inline uint32_t fxt_pad_words(uint32_t n)
{
	return (n + 7u) / 8u;
}

#endif
