/* The FXT record loop: maps or borrows an archive, walks it record by record with a
 * bounds-checked cursor, decodes each record type into struct fxt_record (one read_<kind>()
 * per type), resolves string/thread refs through the current provider's tables, and skips
 * unknown record types. Invariants: every read is checked against the record's end, every
 * call advances by the record's size (>= 1 word) or stops for good, so any input terminates.
 * A regular file is mapped; input that cannot be mapped (a pipe, /dev/stdin) is read into
 * memory first, bounded by the memory available. */
/* SPDX-License-Identifier: MIT */
#include "reader/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"

/* Keeps a one-line message at the current record's offset and returns -1; given a counter and
 * outside STRICT mode, adds one to it instead and returns 0. */
__attribute__((format(printf, 3, 4))) static int note(struct fxt_reader *r,
						       uint64_t *lenient_counter, const char *fmt,
						       ...)
{
	if (lenient_counter && !(r->flags & FXT_READER_STRICT)) {
		(*lenient_counter)++;
		return 0;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err.msg, sizeof(r->err.msg), fmt, ap);
	va_end(ap);
	r->err.offset = r->rec_offset;
	return -1;
}

/* Malformed input, reported in both modes: returns -1. */
#define fail(r, ...) note((r), NULL, __VA_ARGS__)

/* A violation that STRICT mode reports (returns -1) and lenient mode counts (returns 0). */
#define violation(r, ...) note((r), &(r)->stats.lenient_fixes, __VA_ARGS__)

/* A subtype the spec leaves undefined inside a defined record type (an event type past flow
 * end, a metadata or trace info type, a scheduling or large record type, a blob format): STRICT
 * reports it (returns -1); lenient mode skips the record and counts it (returns 0). Unknown
 * record types and argument types are not such: the spec defines new ones as the ways to extend
 * the format (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#extend-the-format),
 * so they are skipped in both modes. */
#define undefined(r, ...) note((r), &(r)->stats.unknown_skipped, __VA_ARGS__)

static int check_reserved(struct fxt_reader *r, uint64_t word, uint64_t used)
{
	if (word & ~used)
		return violation(r, "non-zero reserved bits 0x%llx", (unsigned long long)(word & ~used));
	return 0;
}

/* The bytes after a stream of len bytes up to its 8-byte boundary must be zero (the spec's
 * padding); the cursor already took them, so they are inside the record. */
static inline int check_padding(struct fxt_reader *r, const char *s, uint64_t len, const char *what)
{
	unsigned tail = (unsigned)(len & 7);
	if (!tail)
		return 0;
	uint64_t last;
	memcpy(&last, s + (len - tail), 8);
	/* little-endian: the stream's bytes are the low `tail` bytes of its last word */
	if (!(last >> (8 * tail)))
		return 0;
	return violation(r, "non-zero padding after the %llu bytes of %s", (unsigned long long)len, what);
}

static int check_utf8(struct fxt_reader *r, const char *s, uint32_t len)
{
	if (fxt_utf8_valid(s, len))
		return 0;
	return violation(r, "string of %u bytes is not valid UTF-8", len);
}

/* On the hot path of every event: always inlined, like read_tref() and read_event(). */
#define HOT static inline __attribute__((always_inline))

/* Off the hot path: kept out of line so that the event path needs few registers. */
#define COLD static __attribute__((noinline))

/* Takes a stream of len bytes of text (what: "an inline string"...) from the cursor into *out:
 * it must fit in the record, else fails; padding other than zero and invalid UTF-8 are
 * violations. Returns 0 or -1. */
HOT int read_text(struct fxt_reader *r, struct fxt_cursor *c, uint32_t len, const char *what,
		  struct fxt_sv *out)
{
	out->len = len;
	if (!fxt_cursor_bytes(c, len, &out->s))
		return fail(r, "%s of %u bytes runs past the record end", what, len);
	if (check_padding(r, out->s, len, what))
		return -1;
	return check_utf8(r, out->s, len);
}

/* Resolves a 16-bit string ref, taking an inline stream from the cursor. */
HOT int read_sref(struct fxt_reader *r, struct fxt_cursor *c, unsigned ref, struct fxt_sv *out)
{
	if (ref == 0) {
		out->s = "";
		out->len = 0;
		return 0;
	}
	if (ref & FXT_STRREF_INLINE)
		return read_text(r, c, ref & FXT_STRREF_LEN_MASK, "an inline string", out);
	const struct fxt_sv *s = fxt_string_get(r, ref);
	if (s) {
		*out = *s;
		return 0;
	}
	out->s = "";
	out->len = 0;
	return violation(r, "string ref to unregistered index %u", ref);
}

/* Resolves an 8-bit thread ref, taking two inline koid words from the cursor when it is 0. */
HOT int read_tref(struct fxt_reader *r, struct fxt_cursor *c, unsigned ref, struct fxt_koids *out)
{
	if (ref == 0) {
		if (!fxt_cursor_u64(c, &out->pid) || !fxt_cursor_u64(c, &out->tid))
			return fail(r, "inline thread runs past the record end");
		return 0;
	}
	const struct fxt_koids *k = fxt_thread_get(r, ref);
	if (k) {
		*out = *k;
		return 0;
	}
	out->pid = out->tid = 0;
	return violation(r, "thread ref to unregistered index %u", ref);
}

/* Reads nargs arguments (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#arguments);
 * unknown argument types are skipped. */
COLD int read_args(struct fxt_reader *r, struct fxt_cursor *c, unsigned nargs,
		   struct fxt_record *rec)
{
	rec->nargs = 0;
	for (unsigned i = 0; i < nargs; i++) {
		uint64_t h, w;
		struct fxt_cursor a;
		if (!fxt_cursor_u64(c, &h))
			return fail(r, "argument %u runs past the record end", i);
		uint64_t size = fxt_field_get(FXT_ARG_SIZE, h);
		if (size == 0)
			return fail(r, "argument %u has size 0", i);
		if (!fxt_cursor_sub(c, size - 1, &a))
			return fail(r, "argument %u of %llu words runs past the record end", i,
					(unsigned long long)size);
		struct fxt_arg *arg = &rec->args[rec->nargs];
		arg->type = (unsigned)fxt_field_get(FXT_ARG_TYPE, h);
		if (read_sref(r, &a, (unsigned)fxt_field_get(FXT_ARG_NAME_REF, h), &arg->name))
			return -1;
		uint64_t used = FXT_BITS(0, 31);
		switch (arg->type) {
		case FXT_AT_NULL:
			break;
		case FXT_AT_INT32:
			arg->v.i64 = (int32_t)fxt_field_get(FXT_ARG_VALUE32, h);
			used = ~0ULL;
			break;
		case FXT_AT_UINT32:
			arg->v.u64 = fxt_field_get(FXT_ARG_VALUE32, h);
			used = ~0ULL;
			break;
		case FXT_AT_INT64:
		case FXT_AT_UINT64:
		case FXT_AT_DOUBLE:
		case FXT_AT_POINTER:
		case FXT_AT_KOID:
			if (!fxt_cursor_u64(&a, &w))
				return fail(r, "argument %u value runs past its size", i);
			if (arg->type == FXT_AT_DOUBLE)
				memcpy(&arg->v.dbl, &w, sizeof(w));
			else
				arg->v.u64 = w;
			break;
		case FXT_AT_STRING:
			used = FXT_BITS(0, 47);
			if (read_sref(r, &a, (unsigned)fxt_field_get(FXT_ARG_STRING_REF, h), &arg->v.str))
				return -1;
			break;
		case FXT_AT_BOOL:
			used = FXT_BITS(0, 32);
			arg->v.boolean = (int)fxt_field_get(FXT_ARG_BOOL, h);
			break;
		default:
			if (r->flags & FXT_READER_RESERVED)
				return fail(r, "argument %u: argument type %u is reserved", i,
						arg->type);
			r->stats.unknown_skipped++;
			continue;
		}
		if (check_reserved(r, h, used))
			return -1;
		if (fxt_cursor_left(&a) &&
		    violation(r, "argument %u of %llu words is larger than its type needs", i,
			      (unsigned long long)size))
			return -1;
		rec->nargs++;
	}
	return 0;
}

COLD int read_metadata(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c,
		       struct fxt_record *rec)
{
	unsigned mt = (unsigned)fxt_field_get(FXT_META_TYPE, h);
	uint32_t id = (uint32_t)fxt_field_get(FXT_META_PROVIDER_ID, h);
	rec->u.meta.meta_type = mt;
	rec->u.meta.provider_id = id;
	switch (mt) {
	case FXT_MT_PROVIDER_INFO:
		if (read_text(r, c, (uint32_t)fxt_field_get(FXT_META_NAME_LEN, h), "a provider name",
			      &rec->u.meta.name) ||
		    check_reserved(r, h, FXT_BITS(0, 59)))
			return -1;
		if (fxt_provider_switch(r, id, 1) < 0)
			return fail(r, "out of memory for provider tables");
		r->cur->name = rec->u.meta.name;
		break;
	case FXT_MT_PROVIDER_SECTION:
		if (check_reserved(r, h, FXT_BITS(0, 51)))
			return -1;
		if (fxt_provider_switch(r, id, 0) < 0)
			return fail(r, "out of memory for provider tables");
		break;
	case FXT_MT_PROVIDER_EVENT:
		rec->u.meta.event_id = (unsigned)fxt_field_get(FXT_META_EVENT_ID, h);
		if (check_reserved(r, h, FXT_BITS(0, 55)))
			return -1;
		break;
	case FXT_MT_TRACE_INFO:
		rec->u.meta.provider_id = 0;
		rec->u.meta.trace_info_type = (unsigned)fxt_field_get(FXT_META_TRACE_INFO_TYPE, h);
		if (rec->u.meta.trace_info_type != FXT_TI_MAGIC)
			return undefined(r, "undefined trace info type %u", rec->u.meta.trace_info_type);
		rec->u.meta.magic = (uint32_t)fxt_field_get(FXT_META_MAGIC, h);
		if (rec->u.meta.magic != FXT_MAGIC && violation(r, "bad magic number 0x%x", rec->u.meta.magic))
			return -1;
		if (check_reserved(r, h, FXT_BITS(0, 55)))
			return -1;
		break;
	default:
		return undefined(r, "undefined metadata type %u", mt);
	}
	rec->provider_id = r->cur->id;
	return 1;
}

COLD int read_init(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	if (!fxt_cursor_u64(c, &rec->u.init.ticks_per_second))
		return fail(r, "initialization record without its ticks-per-second word");
	if (check_reserved(r, h, FXT_BITS(0, 15)))
		return -1;
	if (rec->u.init.ticks_per_second == 0 && violation(r, "zero ticks per second"))
		return -1;
	r->cur->ticks_per_second = rec->u.init.ticks_per_second;
	return 1;
}

COLD int read_string(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	uint16_t idx = (uint16_t)fxt_field_get(FXT_STRING_INDEX, h);
	struct fxt_sv *s = &rec->u.string.str;
	if (read_text(r, c, (uint32_t)fxt_field_get(FXT_STRING_LEN, h), "a string record", s) ||
	    check_reserved(r, h, FXT_BITS(0, 30) | FXT_STRING_LEN))
		return -1;
	rec->u.string.index = idx;
	if (idx == 0) /* the spec: such records must be ignored */
		return violation(r, "string record for index 0") ? -1 : 0;
	if (fxt_string_set(r, idx, *s) < 0)
		return fail(r, "out of memory for the string table");
	return 1;
}

COLD int read_thread(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	uint8_t idx = (uint8_t)fxt_field_get(FXT_THREAD_INDEX, h);
	if (!fxt_cursor_u64(c, &rec->u.thread.koids.pid) || !fxt_cursor_u64(c, &rec->u.thread.koids.tid))
		return fail(r, "thread record shorter than 3 words");
	if (check_reserved(r, h, FXT_BITS(0, 23)))
		return -1;
	rec->u.thread.index = idx;
	if (idx == 0) /* the spec: such records must be ignored */
		return violation(r, "thread record for index 0") ? -1 : 0;
	if (fxt_thread_set(r, idx, rec->u.thread.koids) < 0)
		return fail(r, "out of memory for the thread table");
	return 1;
}

HOT int read_event(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	unsigned et = (unsigned)fxt_field_get(FXT_EVENT_TYPE, h);
	if (et > FXT_ET_FLOW_END)
		return undefined(r, "undefined event type %u", et);
	rec->u.event.event_type = et;
	unsigned nargs = (unsigned)fxt_field_get(FXT_EVENT_ARG_CNT, h); /* rec->nargs is 0 already */
	if (!fxt_cursor_u64(c, &rec->u.event.ts))
		return fail(r, "event without a timestamp");
	if (read_tref(r, c, (unsigned)fxt_field_get(FXT_EVENT_THREAD_REF, h), &rec->u.event.thread) ||
	    read_sref(r, c, (unsigned)fxt_field_get(FXT_EVENT_CATEGORY_REF, h), &rec->u.event.category) ||
	    read_sref(r, c, (unsigned)fxt_field_get(FXT_EVENT_NAME_REF, h), &rec->u.event.name) ||
	    (nargs && read_args(r, c, nargs, rec)))
		return -1;
	rec->u.event.end_ts = 0;
	rec->u.event.id = 0;
	switch (et) {
	case FXT_ET_INSTANT:
	case FXT_ET_DURATION_BEGIN:
	case FXT_ET_DURATION_END:
		break;
	case FXT_ET_DURATION_COMPLETE:
		if (!fxt_cursor_u64(c, &rec->u.event.end_ts))
			return fail(r, "complete event without its end timestamp");
		break;
	default:
		if (!fxt_cursor_u64(c, &rec->u.event.id))
			return fail(r, "event without its id word");
	}
	return 1;
}

COLD int read_blob(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	const char *data;
	rec->u.blob.size = (uint32_t)fxt_field_get(FXT_BLOB_SIZE, h);
	rec->u.blob.blob_type = (unsigned)fxt_field_get(FXT_BLOB_TYPE, h);
	if (read_sref(r, c, (unsigned)fxt_field_get(FXT_BLOB_NAME_REF, h), &rec->u.blob.name))
		return -1;
	if (!fxt_cursor_bytes(c, rec->u.blob.size, &data))
		return fail(r, "blob payload of %u bytes runs past the record end", rec->u.blob.size);
	rec->u.blob.data = data;
	if (check_padding(r, data, rec->u.blob.size, "a blob payload") ||
	    check_reserved(r, h, FXT_BITS(0, 46) | FXT_BLOB_TYPE))
		return -1;
	/* fxtauto's clock record: the provider's clock from now on */
	struct fxt_sv name = rec->u.blob.name;
	if (name.len != sizeof(FXT_CLOCK_NAME) - 1 || memcmp(name.s, FXT_CLOCK_NAME, name.len))
		return 1;
	if (!fxt_record_clock(rec, &r->cur->clock))
		return violation(r, "clock record of %u bytes, blob type %u (32 bytes of type 1 expected)",
				 rec->u.blob.size, rec->u.blob.blob_type) ? -1 : 1;
	r->cur->has_clock = 1;
	return 1;
}

int fxt_record_clock(const struct fxt_record *rec, struct fxt_clock *clock)
{
	if (rec->type != FXT_RT_BLOB || rec->u.blob.blob_type != FXT_BT_DATA ||
	    rec->u.blob.size != FXT_CLOCK_BYTES || rec->u.blob.name.len != sizeof(FXT_CLOCK_NAME) - 1 ||
	    memcmp(rec->u.blob.name.s, FXT_CLOCK_NAME, sizeof(FXT_CLOCK_NAME) - 1))
		return 0;
	uint64_t w[4];
	memcpy(w, rec->u.blob.data, sizeof(w));	/* little-endian, as every FXT word */
	*clock = (struct fxt_clock){ w[0], w[1], w[2], w[3] };
	return 1;
}

COLD int read_uobj(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	unsigned tref = (unsigned)fxt_field_get(FXT_UOBJ_THREAD_REF, h);
	if (!fxt_cursor_u64(c, &rec->u.uobj.pointer))
		return fail(r, "userspace object without its pointer word");
	if (tref == 0) {
		if (!fxt_cursor_u64(c, &rec->u.uobj.process_koid))
			return fail(r, "userspace object without its process koid");
	} else {
		struct fxt_koids k;
		if (read_tref(r, c, tref, &k))
			return -1;
		rec->u.uobj.process_koid = k.pid;
	}
	if (read_sref(r, c, (unsigned)fxt_field_get(FXT_UOBJ_NAME_REF, h), &rec->u.uobj.name) ||
	    read_args(r, c, (unsigned)fxt_field_get(FXT_UOBJ_ARG_CNT, h), rec))
		return -1;
	return check_reserved(r, h, FXT_BITS(0, 43)) ? -1 : 1;
}

COLD int read_kobj(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	rec->u.kobj.obj_type = (unsigned)fxt_field_get(FXT_KOBJ_TYPE, h);
	if (!fxt_cursor_u64(c, &rec->u.kobj.koid))
		return fail(r, "kernel object without its koid word");
	if (read_sref(r, c, (unsigned)fxt_field_get(FXT_KOBJ_NAME_REF, h), &rec->u.kobj.name) ||
	    read_args(r, c, (unsigned)fxt_field_get(FXT_KOBJ_ARG_CNT, h), rec))
		return -1;
	return check_reserved(r, h, FXT_BITS(0, 43)) ? -1 : 1;
}

COLD int read_sched(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	unsigned st = (unsigned)fxt_field_get(FXT_SCHED_TYPE, h);
	typeof(rec->u.sched) *s = &rec->u.sched;
	memset(s, 0, sizeof(*s));
	s->sched_type = st;
	if (st > FXT_ST_THREAD_WAKEUP)
		return undefined(r, "undefined scheduling record type %u", st);
	if (!fxt_cursor_u64(c, &s->ts))
		return fail(r, "scheduling record without a timestamp");
	if (st == FXT_ST_LEGACY_CONTEXT_SWITCH) {
		s->cpu = (unsigned)fxt_field_get(FXT_LEGACY_CS_CPU, h);
		s->out_state = (unsigned)fxt_field_get(FXT_LEGACY_CS_OUT_STATE, h);
		s->out_prio = (unsigned)fxt_field_get(FXT_LEGACY_CS_OUT_PRIO, h);
		s->in_prio = (unsigned)fxt_field_get(FXT_LEGACY_CS_IN_PRIO, h);
		if (read_tref(r, c, (unsigned)fxt_field_get(FXT_LEGACY_CS_OUT_THREAD, h), &s->out_thread) ||
		    read_tref(r, c, (unsigned)fxt_field_get(FXT_LEGACY_CS_IN_THREAD, h), &s->in_thread))
			return -1;
		rec->nargs = 0;
		return 1;
	}
	s->cpu = (unsigned)fxt_field_get(FXT_SCHED_CPU, h);
	uint64_t used = FXT_BITS(0, 35) | FXT_SCHED_TYPE;
	if (st == FXT_ST_CONTEXT_SWITCH) {
		s->out_state = (unsigned)fxt_field_get(FXT_SCHED_OUT_STATE, h);
		used |= FXT_SCHED_OUT_STATE;
		if (!fxt_cursor_u64(c, &s->out_thread.tid) || !fxt_cursor_u64(c, &s->in_thread.tid))
			return fail(r, "context switch without its thread words");
	} else if (!fxt_cursor_u64(c, &s->waking_tid)) {
		return fail(r, "thread wakeup without its thread word");
	}
	if (read_args(r, c, (unsigned)fxt_field_get(FXT_SCHED_ARG_CNT, h), rec))
		return -1;
	return check_reserved(r, h, used) ? -1 : 1;
}

COLD int read_log(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	if (!fxt_cursor_u64(c, &rec->u.log.ts))
		return fail(r, "log record without a timestamp");
	if (read_tref(r, c, (unsigned)fxt_field_get(FXT_LOG_THREAD_REF, h), &rec->u.log.thread) ||
	    read_text(r, c, (uint32_t)fxt_field_get(FXT_LOG_MSG_LEN, h), "a log message",
		      &rec->u.log.msg) ||
	    check_reserved(r, h, FXT_BITS(0, 30) | FXT_LOG_THREAD_REF))
		return -1;
	return 1;
}

COLD int read_large(struct fxt_reader *r, uint64_t h, struct fxt_cursor *c, struct fxt_record *rec)
{
	typeof(rec->u.large) *l = &rec->u.large;
	uint64_t w;
	const char *data;
	l->large_type = (unsigned)fxt_field_get(FXT_LARGE_RECORD_TYPE, h);
	l->format = (unsigned)fxt_field_get(FXT_LARGE_BLOB_FORMAT, h);
	if (l->large_type != FXT_LT_BLOB)
		return undefined(r, "undefined large record type %u", l->large_type);
	if (l->format > FXT_LBF_NO_METADATA)
		return undefined(r, "undefined large blob format %u", l->format);
	if (check_reserved(r, h, FXT_BITS(0, 43)))
		return -1;
	if (!fxt_cursor_u64(c, &w))
		return fail(r, "large blob without its format header word");
	if (read_sref(r, c, (unsigned)fxt_field_get(FXT_LBLOB_CATEGORY_REF, w), &l->category) ||
	    read_sref(r, c, (unsigned)fxt_field_get(FXT_LBLOB_NAME_REF, w), &l->name))
		return -1;
	l->ts = 0;
	l->thread.pid = l->thread.tid = 0;
	if (l->format == FXT_LBF_METADATA) {
		if (!fxt_cursor_u64(c, &l->ts))
			return fail(r, "large blob without a timestamp");
		if (read_tref(r, c, (unsigned)fxt_field_get(FXT_LBLOB_THREAD_REF, w), &l->thread) ||
		    read_args(r, c, (unsigned)fxt_field_get(FXT_LBLOB_ARG_CNT, w), rec) ||
		    check_reserved(r, w, FXT_BITS(0, 43)))
			return -1;
	} else if (check_reserved(r, w, FXT_BITS(0, 31))) {
		return -1;
	}
	if (!fxt_cursor_u64(c, &l->size))
		return fail(r, "large blob without its size word");
	if (!fxt_cursor_bytes(c, l->size, &data))
		return fail(r, "large blob payload of %llu bytes runs past the record end",
				(unsigned long long)l->size);
	l->data = data;
	return check_padding(r, data, l->size, "a large blob payload") ? -1 : 1;
}

/* Decodes the record at pos (left words available) as the record at rec_offset: 1 decoded, 0
 * skipped (unknown type), FXT_READ_TRUNCATED or FXT_READ_CORRUPT (r->err set); *words its size. */
static int decode(struct fxt_reader *r, const uint64_t *pos, size_t left, struct fxt_record *rec,
		  uint64_t *words_out)
{
	uint64_t h = *pos;
	unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, h);
	uint64_t words = type == FXT_RT_LARGE ? fxt_field_get(FXT_LARGE_RECORD_SIZE, h)
					       : fxt_field_get(FXT_RECORD_SIZE, h);
	*words_out = words;
	if (words == 0) {
		fail(r, "record of type %u with size 0", type);
		return FXT_READ_CORRUPT;
	}
	if (words > left) {
		fail(r, "record of %llu words runs past the end (%zu words left)",
			 (unsigned long long)words, left);
		return FXT_READ_TRUNCATED;
	}
	struct fxt_cursor c = { pos + 1, pos + words };
	rec->offset = r->rec_offset;
	rec->words = words;
	rec->type = type;
	rec->provider_id = r->cur->id;
	rec->nargs = 0;
	int got;
	switch (type) {
	case FXT_RT_METADATA: got = read_metadata(r, h, &c, rec); break;
	case FXT_RT_INITIALIZATION: got = read_init(r, h, &c, rec); break;
	case FXT_RT_STRING: got = read_string(r, h, &c, rec); break;
	case FXT_RT_THREAD: got = read_thread(r, h, &c, rec); break;
	case FXT_RT_EVENT: got = read_event(r, h, &c, rec); break;
	case FXT_RT_BLOB: got = read_blob(r, h, &c, rec); break;
	case FXT_RT_USERSPACE_OBJECT: got = read_uobj(r, h, &c, rec); break;
	case FXT_RT_KERNEL_OBJECT: got = read_kobj(r, h, &c, rec); break;
	case FXT_RT_SCHEDULING: got = read_sched(r, h, &c, rec); break;
	case FXT_RT_LOG: got = read_log(r, h, &c, rec); break;
	case FXT_RT_LARGE: got = read_large(r, h, &c, rec); break;
	default:
		got = r->flags & FXT_READER_RESERVED ? fail(r, "record type %u is reserved",
								     (unsigned)type)
						     : 0;
		r->stats.unknown_skipped += got == 0;
	}
	if (got < 0)
		return FXT_READ_CORRUPT;
	if (got > 0 && fxt_cursor_left(&c) &&
	    violation(r, "record of %llu words is larger than its fields", (unsigned long long)words))
		return FXT_READ_CORRUPT;
	r->stats.records++;
	r->stats.bytes += words * 8;
	return got > 0;
}

/* A mapped archive is read in bounded memory: every DROP_WORDS read, all pages behind the
 * record being decoded leave the process (a private read-only file mapping: a string the tables
 * point to, or an event a reader keeps a view into, that is read again faults back in from the
 * page cache), so the reader's RSS is the last window and what was read again since, not the
 * archive. From the start each time, not from the last drop: pages faulted back in behind it
 * (a replay's events waiting to be printed) would otherwise stay. */
#define DROP_WORDS ((16u << 20) / 8)

static void drop_behind(struct fxt_reader *r)
{
	uintptr_t from = (uintptr_t)r->base & ~(uintptr_t)4095;
	uintptr_t to = (uintptr_t)r->pos & ~(uintptr_t)4095;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	r->kept = r->pos;
}

int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec)
{
	for (;;) {
		if (r->state != FXT_READ_RECORD)
			return r->state;
		r->rec_offset = (uint64_t)((const char *)r->pos - (const char *)r->base);
		size_t left = (size_t)(r->end - r->pos);
		if (left == 0) {
			if (r->tail_bytes) {
				fail(r, "archive ends with %u stray bytes", r->tail_bytes);
				return r->state = FXT_READ_TRUNCATED;
			}
			return r->state = FXT_READ_END;
		}
		uint64_t words;
		if (r->map && r->pos - r->kept >= DROP_WORDS)
			drop_behind(r);
		int got = decode(r, r->pos, left, rec, &words);
		if (got < 0)
			return r->state = got;
		r->pos += words;
		if (got > 0)
			return FXT_READ_RECORD;
	}
}

int fxt_reader_decode(struct fxt_reader *r, const uint64_t *p, size_t words, uint64_t offset,
		      struct fxt_record *rec)
{
	if (!words) {
		r->rec_offset = offset;
		fail(r, "no record");
		return FXT_READ_TRUNCATED;
	}
	uint64_t n;
	r->rec_offset = offset;
	int got = decode(r, p, words, rec, &n);
	return got > 0 ? FXT_READ_RECORD : got;
}

static int reader_new(struct fxt_reader **out, const void *data, size_t len, unsigned flags)
{
	struct fxt_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base = data;
	r->pos = data;
	r->kept = data;
	r->end = r->pos + len / 8;
	r->tail_bytes = (unsigned)(len % 8);
	r->flags = flags;
	r->state = FXT_READ_RECORD;
	if (fxt_provider_switch(r, 0, 0) < 0) {
		free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

int fxt_reader_open_mem(struct fxt_reader **out, const void *data, size_t len, unsigned flags)
{
	if (((uintptr_t)data & 7) != 0)
		return -EINVAL;
	return reader_new(out, data, len, flags);
}

/* Reads all of fd (a pipe, FIFO, terminal, socket: input that cannot be mapped) into a
 * malloc'd buffer (8-byte aligned: malloc's alignment), growing it by doubling. The total is
 * bounded by the memory available when reading starts: past it, -EFBIG. Returns 0 (*data NULL
 * for no bytes), -EFBIG, -ENOMEM or the read's -errno. */
static int slurp(int fd, void **data, size_t *len)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	size_t limit = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : SIZE_MAX / 2;
	size_t cap = 0, n = 0;
	char *buf = NULL;
	for (;;) {
		if (n == cap) {
			if (cap >= limit) {
				free(buf);
				return -EFBIG;
			}
			/* fxt_grow()'s sizes from 1 MiB, but never past limit */
			size_t ncap = fxt_grow_cap(cap, n < 1u << 20 ? 1u << 20 : n + 1);
			if (!ncap || ncap > limit)
				ncap = limit;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				return -EFBIG;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;
			free(buf);
			return e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (!n) {
		free(buf);
		buf = NULL;
	}
	*data = buf;
	*len = n;
	return 0;
}

int fxt_reader_open(struct fxt_reader **out, const char *path, unsigned flags)
{
	struct stat st;
	void *map = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		void *data = NULL;
		size_t len = 0;
		int ret = slurp(fd, &data, &len);
		close(fd);
		if (ret < 0)
			return ret;
		static const uint64_t none;
		ret = reader_new(out, data ? data : &none, len, flags);
		if (ret < 0) {
			free(data);
			return ret;
		}
		(*out)->owned = data;
		return 0;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int e = -errno;
			close(fd);
			return e;
		}
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	static const uint64_t empty;
	int ret = reader_new(out, map ? map : &empty, (size_t)st.st_size, flags);
	if (ret < 0) {
		if (map)
			munmap(map, (size_t)st.st_size);
		return ret;
	}
	(*out)->map = map;
	(*out)->map_len = (size_t)st.st_size;
	return 0;
}

void fxt_reader_close(struct fxt_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->owned);
	fxt_providers_free(r);
	free(r);
}

int fxt_reader_rewind(struct fxt_reader *r)
{
	fxt_providers_free(r);
	r->providers = NULL;
	r->nproviders = r->capproviders = 0;
	r->cur = NULL;
	r->pos = r->base;
	r->kept = r->base;
	r->state = FXT_READ_RECORD;
	r->rec_offset = 0;
	memset(&r->err, 0, sizeof(r->err));
	memset(&r->stats, 0, sizeof(r->stats));
	if (fxt_provider_switch(r, 0, 0) < 0) {
		r->state = FXT_READ_CORRUPT;
		fail(r, "out of memory for provider tables");
		return -ENOMEM;
	}
	return 0;
}

const struct fxt_read_error *fxt_reader_error(const struct fxt_reader *r)
{
	return &r->err;
}

const struct fxt_reader_stats *fxt_reader_stats(const struct fxt_reader *r)
{
	return &r->stats;
}
