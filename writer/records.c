/* Out-of-line FXT record builders: for each record shape, one size function (words, or -EINVAL
 * for a field out of range) shared by fxt_X_words() and fxt_X_write(), so the size a caller
 * reserves is exactly what the writer writes. Fields are packed only through fields.h; words go
 * out only through reserve.h, header committed last. No malloc, no I/O: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/records.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Record sizes in words: small records (12-bit size field) and large ones (32-bit, capped so
 * the word count still fits the int the writers return). */
#define SMALL_MAX FXT_RECORD_MAX_WORDS
#define LARGE_MAX ((uint64_t)INT32_MAX)

uint32_t fxt_utf8_cut(const char *s, uint32_t len, uint32_t max)
{
	if (len <= max)
		return len;
	/* s[n] is the first byte left out: while it continues a sequence, leave out the bytes of
	 * that sequence before it too (at most 3: longer runs are not UTF-8 anyway). */
	uint32_t n = max;
	for (int i = 0; i < 3 && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; i++)
		n--;
	if (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n = max; /* not UTF-8: a plain byte cut */
	return n;
}

void fxt_utf8_repair(void *mem, uint32_t len)
{
	unsigned char *p = mem;

	for (uint32_t i = 0; i < len;) {
		unsigned c = p[i], n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			     : (c & 0xf8) == 0xf0 ? 4 : 0;
		int valid = n && i + n <= len && (n != 2 || c >= 0xc2) && (n != 4 || c <= 0xf4);
		for (unsigned k = 1; valid && k < n; k++)
			valid = (p[i + k] & 0xc0) == 0x80;
		if (valid && n == 3)	/* no overlong forms, no surrogates */
			valid = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] >= 0xa0);
		if (valid && n == 4)	/* no overlong forms, nothing past U+10FFFF */
			valid = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] >= 0x90);
		if (!valid)
			p[i++] = '?';
		else
			i += n;
	}
}

static int fits(uint64_t mask, uint64_t v)
{
	return v <= FXT_FIELD_MAX(mask);
}

static int str_ok(const struct fxt_str *s)
{
	return s->index <= FXT_STRING_MAX_INDEX && (s->index || !s->len || s->s);
}

static inline __attribute__((always_inline)) void put_str(struct fxt_res *r,
							   const struct fxt_str *s)
{
	uint32_t n = fxt_str_len(s);
	if (!n)
		return;
	void *d = r->p;
	fxt_res_bytes(r, s->s, n);
	if (s->repair)
		fxt_utf8_repair(d, n);
}

static uint32_t thread_words(const struct fxt_thread *t)
{
	return t->index ? 0 : 2;
}

static void put_thread(struct fxt_res *r, const struct fxt_thread *t)
{
	if (!t->index) {
		fxt_res_word(r, t->pid);
		fxt_res_word(r, t->tid);
	}
}

/* Size of a complete record: 0 when it cannot be encoded (words helpers). */
static uint32_t words_of(int64_t n, uint64_t max)
{
	return n > 0 && (uint64_t)n <= max ? (uint32_t)n : 0;
}

/* Error of a record size for the writers: 0, -EINVAL or -E2BIG. */
static int size_err(int64_t n, uint64_t max)
{
	return n < 0 ? (int)n : (uint64_t)n > max ? -E2BIG : 0;
}

/* ---- arguments ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#argument-types */

static int has_value_word(unsigned type)
{
	return type == FXT_AT_INT64 || type == FXT_AT_UINT64 || type == FXT_AT_DOUBLE ||
	       type == FXT_AT_POINTER || type == FXT_AT_KOID;
}

static inline __attribute__((always_inline)) int64_t arg_size(const struct fxt_warg *a)
{
	if (a->type > FXT_AT_BOOL || !str_ok(&a->name))
		return -EINVAL;
	int64_t n = 1 + fxt_str_words(&a->name) + has_value_word(a->type);
	if (a->type == FXT_AT_STRING) {
		if (!str_ok(&a->v.str))
			return -EINVAL;
		n += fxt_str_words(&a->v.str);
	}
	/* Its own 12-bit size field: only a large blob's arguments can get past it. */
	return (uint64_t)n > FXT_FIELD_MAX(FXT_ARG_SIZE) ? -E2BIG : n;
}

uint32_t fxt_arg_words(const struct fxt_warg *a)
{
	return words_of(arg_size(a), FXT_FIELD_MAX(FXT_ARG_SIZE));
}

static int64_t args_size(const struct fxt_warg *args, unsigned nargs)
{
	if (nargs > FXT_MAX_ARGS || (nargs && !args))
		return -EINVAL;
	int64_t n = 0;
	for (unsigned i = 0; i < nargs; i++) {
		int64_t a = arg_size(&args[i]);
		if (a < 0)
			return a;
		n += a;
	}
	return n;
}

/* a was checked by arg_size(): its size is plain arithmetic here. */
static inline __attribute__((always_inline)) void put_arg(struct fxt_res *r,
							   const struct fxt_warg *a)
{
	uint32_t words = 1 + fxt_str_words(&a->name) + (uint32_t)has_value_word(a->type) +
			 (a->type == FXT_AT_STRING ? fxt_str_words(&a->v.str) : 0);
	uint64_t h = fxt_field_prep(FXT_ARG_TYPE, a->type) | fxt_field_prep(FXT_ARG_SIZE, words) |
		     fxt_field_prep(FXT_ARG_NAME_REF, fxt_str_ref(&a->name));
	switch (a->type) {
	case FXT_AT_INT32: h |= fxt_field_prep(FXT_ARG_VALUE32, (uint32_t)a->v.i32); break;
	case FXT_AT_UINT32: h |= fxt_field_prep(FXT_ARG_VALUE32, a->v.u32); break;
	case FXT_AT_STRING: h |= fxt_field_prep(FXT_ARG_STRING_REF, fxt_str_ref(&a->v.str)); break;
	case FXT_AT_BOOL: h |= fxt_field_prep(FXT_ARG_BOOL, a->v.b != 0); break;
	default: break;
	}
	fxt_res_word(r, h);
	put_str(r, &a->name);
	if (a->type == FXT_AT_STRING) {
		put_str(r, &a->v.str);
	} else if (has_value_word(a->type)) {
		uint64_t v;
		if (a->type == FXT_AT_DOUBLE)
			memcpy(&v, &a->v.d, sizeof(v));
		else
			v = a->v.u64;
		fxt_res_word(r, v);
	}
}

static void put_args(struct fxt_res *r, const struct fxt_warg *args, unsigned nargs)
{
	for (unsigned i = 0; i < nargs; i++)
		put_arg(r, &args[i]);
}

/* ---- metadata ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#metadata-record */

static uint64_t meta_hdr(uint32_t words, unsigned meta_type, uint32_t provider_id)
{
	return fxt_record_hdr(FXT_RT_METADATA, words) | fxt_field_prep(FXT_META_TYPE, meta_type) |
	       fxt_field_prep(FXT_META_PROVIDER_ID, provider_id);
}

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#magic-number-record */
int fxt_magic_write(uint64_t *dst)
{
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_METADATA, 1) |
				   fxt_field_prep(FXT_META_TYPE, FXT_MT_TRACE_INFO) |
				   fxt_field_prep(FXT_META_TRACE_INFO_TYPE, FXT_TI_MAGIC) |
				   fxt_field_prep(FXT_META_MAGIC, FXT_MAGIC));
	return 1;
}

static uint32_t provider_name_len(const char *name, uint32_t len)
{
	return name ? fxt_utf8_cut(name, len, FXT_FIELD_MAX(FXT_META_NAME_LEN)) : 0;
}

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-info-metadata */
uint32_t fxt_provider_info_words(const char *name, uint32_t len)
{
	return 1 + fxt_pad_words(provider_name_len(name, len));
}

int fxt_provider_info_write(uint64_t *dst, uint32_t provider_id, const char *name, uint32_t len)
{
	struct fxt_res r;
	uint32_t n = provider_name_len(name, len);
	fxt_res_begin(&r, dst);
	fxt_res_bytes(&r, name, n);
	fxt_res_commit(&r, meta_hdr(fxt_res_words(&r), FXT_MT_PROVIDER_INFO, provider_id) |
				   fxt_field_prep(FXT_META_NAME_LEN, n));
	return (int)fxt_res_words(&r);
}

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-section-metadata */
int fxt_provider_section_write(uint64_t *dst, uint32_t provider_id)
{
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_commit(&r, meta_hdr(1, FXT_MT_PROVIDER_SECTION, provider_id));
	return 1;
}

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#provider-event-metadata */
int fxt_provider_event_write(uint64_t *dst, uint32_t provider_id, unsigned event_id)
{
	struct fxt_res r;
	if (!fits(FXT_META_EVENT_ID, event_id))
		return -EINVAL;
	fxt_res_begin(&r, dst);
	fxt_res_commit(&r, meta_hdr(1, FXT_MT_PROVIDER_EVENT, provider_id) |
				   fxt_field_prep(FXT_META_EVENT_ID, event_id));
	return 1;
}

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#initialization-record */
int fxt_init_write(uint64_t *dst, uint64_t ticks_per_second)
{
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, ticks_per_second);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_INITIALIZATION, 2));
	return 2;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#string-record ---- */

static uint32_t string_len(const char *s, uint32_t len)
{
	return s ? fxt_utf8_cut(s, len, FXT_STRING_MAX_LEN) : 0;
}

uint32_t fxt_string_words(const char *s, uint32_t len)
{
	return 1 + fxt_pad_words(string_len(s, len));
}

int fxt_string_write(uint64_t *dst, uint16_t index, const char *s, uint32_t len)
{
	struct fxt_res r;
	uint32_t n = string_len(s, len);
	if (!index || index > FXT_STRING_MAX_INDEX)
		return -EINVAL;
	fxt_res_begin(&r, dst);
	fxt_res_bytes(&r, s, n);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_STRING, fxt_res_words(&r)) |
				   fxt_field_prep(FXT_STRING_INDEX, index) |
				   fxt_field_prep(FXT_STRING_LEN, n));
	return (int)fxt_res_words(&r);
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#thread-record ---- */
int fxt_thread_write(uint64_t *dst, uint8_t index, uint64_t pid, uint64_t tid)
{
	struct fxt_res r;
	if (!index)
		return -EINVAL;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, pid);
	fxt_res_word(&r, tid);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_THREAD, FXT_THREAD_WORDS) |
				   fxt_field_prep(FXT_THREAD_INDEX, index));
	return FXT_THREAD_WORDS;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record ---- */

/* Instant, duration begin and duration end carry no event-type specific word. */
static int event_has_extra(unsigned type)
{
	return type != FXT_ET_INSTANT && type != FXT_ET_DURATION_BEGIN &&
	       type != FXT_ET_DURATION_END;
}

static int64_t event_size(const struct fxt_event *e)
{
	if (e->type > FXT_ET_FLOW_END || !str_ok(&e->category) || !str_ok(&e->name))
		return -EINVAL;
	int64_t a = args_size(e->args, e->nargs);
	if (a < 0)
		return a;
	return 2 + thread_words(&e->thread) + fxt_str_words(&e->category) +
	       fxt_str_words(&e->name) + a + event_has_extra(e->type);
}

uint32_t fxt_event_words(const struct fxt_event *e)
{
	return words_of(event_size(e), SMALL_MAX);
}

int fxt_event_write(uint64_t *dst, const struct fxt_event *e)
{
	int64_t n = event_size(e);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	return fxt_event_write_sized(dst, e, (uint32_t)n);
}

int fxt_event_write_sized(uint64_t *dst, const struct fxt_event *e, uint32_t n)
{
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, e->ts);
	put_thread(&r, &e->thread);
	put_str(&r, &e->category);
	put_str(&r, &e->name);
	put_args(&r, e->args, e->nargs);
	if (event_has_extra(e->type))
		fxt_res_word(&r, e->extra);
	fxt_res_commit(&r, fxt_event_hdr(e->type, e->nargs, e->thread.index,
					 fxt_str_ref(&e->category), fxt_str_ref(&e->name), n));
	return (int)n;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#blob-record ---- */

static int64_t blob_size(const struct fxt_blob *b)
{
	if (!str_ok(&b->name) || !fits(FXT_BLOB_SIZE, b->size) || !fits(FXT_BLOB_TYPE, b->type) ||
	    (b->size && !b->data))
		return -EINVAL;
	return 1 + fxt_str_words(&b->name) + fxt_pad_words(b->size);
}

uint32_t fxt_blob_words(const struct fxt_blob *b)
{
	return words_of(blob_size(b), SMALL_MAX);
}

int fxt_blob_write(uint64_t *dst, const struct fxt_blob *b)
{
	int64_t n = blob_size(b);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	put_str(&r, &b->name);
	fxt_res_bytes(&r, b->data, b->size);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_BLOB, (uint32_t)n) |
				   fxt_field_prep(FXT_BLOB_NAME_REF, fxt_str_ref(&b->name)) |
				   fxt_field_prep(FXT_BLOB_SIZE, b->size) |
				   fxt_field_prep(FXT_BLOB_TYPE, b->type));
	return (int)n;
}

int fxt_clock_write(uint64_t *dst, struct fxt_clock_pair start, struct fxt_clock_pair end)
{
	uint64_t pairs[4] = { start.ticks, start.ns, end.ticks, end.ns };
	struct fxt_blob b = { .name = fxt_str_inl(FXT_CLOCK_NAME, sizeof(FXT_CLOCK_NAME) - 1),
			      .type = FXT_BT_DATA, .data = pairs, .size = sizeof(pairs) };
	_Static_assert(sizeof(pairs) == FXT_CLOCK_BYTES &&
			       1 + (sizeof(FXT_CLOCK_NAME) - 1 + 7) / 8 + 4 == FXT_CLOCK_WORDS &&
			       FXT_CLOCK_END_WORD == FXT_CLOCK_WORDS - 2,
		       "the clock record's size and the place of its end pair");
	return fxt_blob_write(dst, &b);
}

/* ---- userspace object record ----
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#userspace-object-record */

static int64_t uobj_size(const struct fxt_uobj *o)
{
	if (!str_ok(&o->name))
		return -EINVAL;
	int64_t a = args_size(o->args, o->nargs);
	if (a < 0)
		return a;
	return 2 + (o->process.index ? 0 : 1) + fxt_str_words(&o->name) + a;
}

uint32_t fxt_uobj_words(const struct fxt_uobj *o)
{
	return words_of(uobj_size(o), SMALL_MAX);
}

int fxt_uobj_write(uint64_t *dst, const struct fxt_uobj *o)
{
	int64_t n = uobj_size(o);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, o->pointer);
	if (!o->process.index)
		fxt_res_word(&r, o->process.pid);
	put_str(&r, &o->name);
	put_args(&r, o->args, o->nargs);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_USERSPACE_OBJECT, (uint32_t)n) |
				   fxt_field_prep(FXT_UOBJ_THREAD_REF, o->process.index) |
				   fxt_field_prep(FXT_UOBJ_NAME_REF, fxt_str_ref(&o->name)) |
				   fxt_field_prep(FXT_UOBJ_ARG_CNT, o->nargs));
	return (int)n;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#kernel-object-record ---- */

static int64_t kobj_size(const struct fxt_kobj *o)
{
	if (!str_ok(&o->name) || !fits(FXT_KOBJ_TYPE, o->obj_type))
		return -EINVAL;
	int64_t a = args_size(o->args, o->nargs);
	if (a < 0)
		return a;
	return 2 + fxt_str_words(&o->name) + a;
}

uint32_t fxt_kobj_words(const struct fxt_kobj *o)
{
	return words_of(kobj_size(o), SMALL_MAX);
}

int fxt_kobj_write(uint64_t *dst, const struct fxt_kobj *o)
{
	int64_t n = kobj_size(o);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, o->koid);
	put_str(&r, &o->name);
	put_args(&r, o->args, o->nargs);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_KERNEL_OBJECT, (uint32_t)n) |
				   fxt_field_prep(FXT_KOBJ_TYPE, o->obj_type) |
				   fxt_field_prep(FXT_KOBJ_NAME_REF, fxt_str_ref(&o->name)) |
				   fxt_field_prep(FXT_KOBJ_ARG_CNT, o->nargs));
	return (int)n;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#scheduling-record ---- */

static uint64_t sched_hdr(uint32_t words, unsigned sched_type)
{
	return fxt_record_hdr(FXT_RT_SCHEDULING, words) | fxt_field_prep(FXT_SCHED_TYPE, sched_type);
}

/* Context switch (scheduling record type 1). */
static int64_t cswitch_size(const struct fxt_cswitch *s)
{
	if (!fits(FXT_SCHED_CPU, s->cpu) || !fits(FXT_SCHED_OUT_STATE, s->out_state))
		return -EINVAL;
	int64_t a = args_size(s->args, s->nargs);
	return a < 0 ? a : 4 + a;
}

uint32_t fxt_cswitch_words(const struct fxt_cswitch *s)
{
	return words_of(cswitch_size(s), SMALL_MAX);
}

int fxt_cswitch_write(uint64_t *dst, const struct fxt_cswitch *s)
{
	int64_t n = cswitch_size(s);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, s->ts);
	fxt_res_word(&r, s->out_tid);
	fxt_res_word(&r, s->in_tid);
	put_args(&r, s->args, s->nargs);
	fxt_res_commit(&r, sched_hdr((uint32_t)n, FXT_ST_CONTEXT_SWITCH) |
				   fxt_field_prep(FXT_SCHED_ARG_CNT, s->nargs) |
				   fxt_field_prep(FXT_SCHED_CPU, s->cpu) |
				   fxt_field_prep(FXT_SCHED_OUT_STATE, s->out_state));
	return (int)n;
}

/* Thread wakeup (scheduling record type 2). */
static int64_t wakeup_size(const struct fxt_wakeup *s)
{
	if (!fits(FXT_SCHED_CPU, s->cpu))
		return -EINVAL;
	int64_t a = args_size(s->args, s->nargs);
	return a < 0 ? a : 3 + a;
}

uint32_t fxt_wakeup_words(const struct fxt_wakeup *s)
{
	return words_of(wakeup_size(s), SMALL_MAX);
}

int fxt_wakeup_write(uint64_t *dst, const struct fxt_wakeup *s)
{
	int64_t n = wakeup_size(s);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, s->ts);
	fxt_res_word(&r, s->waking_tid);
	put_args(&r, s->args, s->nargs);
	fxt_res_commit(&r, sched_hdr((uint32_t)n, FXT_ST_THREAD_WAKEUP) |
				   fxt_field_prep(FXT_SCHED_ARG_CNT, s->nargs) |
				   fxt_field_prep(FXT_SCHED_CPU, s->cpu));
	return (int)n;
}

/* Legacy context switch (scheduling record type 0). */
static int64_t legacy_cswitch_size(const struct fxt_legacy_cswitch *s)
{
	if (!fits(FXT_LEGACY_CS_CPU, s->cpu) || !fits(FXT_LEGACY_CS_OUT_STATE, s->out_state) ||
	    !fits(FXT_LEGACY_CS_OUT_PRIO, s->out_prio) || !fits(FXT_LEGACY_CS_IN_PRIO, s->in_prio))
		return -EINVAL;
	return 2 + thread_words(&s->out) + thread_words(&s->in);
}

uint32_t fxt_legacy_cswitch_words(const struct fxt_legacy_cswitch *s)
{
	return words_of(legacy_cswitch_size(s), SMALL_MAX);
}

int fxt_legacy_cswitch_write(uint64_t *dst, const struct fxt_legacy_cswitch *s)
{
	int64_t n = legacy_cswitch_size(s);
	int err = size_err(n, SMALL_MAX);
	if (err)
		return err;
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, s->ts);
	put_thread(&r, &s->out);
	put_thread(&r, &s->in);
	fxt_res_commit(&r, sched_hdr((uint32_t)n, FXT_ST_LEGACY_CONTEXT_SWITCH) |
				   fxt_field_prep(FXT_LEGACY_CS_CPU, s->cpu) |
				   fxt_field_prep(FXT_LEGACY_CS_OUT_STATE, s->out_state) |
				   fxt_field_prep(FXT_LEGACY_CS_OUT_THREAD, s->out.index) |
				   fxt_field_prep(FXT_LEGACY_CS_IN_THREAD, s->in.index) |
				   fxt_field_prep(FXT_LEGACY_CS_OUT_PRIO, s->out_prio) |
				   fxt_field_prep(FXT_LEGACY_CS_IN_PRIO, s->in_prio));
	return (int)n;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#log-record ---- */

static uint32_t log_len(const struct fxt_log *l)
{
	return l->msg ? fxt_utf8_cut(l->msg, l->len, FXT_STRING_MAX_LEN) : 0;
}

static int64_t log_size(const struct fxt_log *l)
{
	return 2 + thread_words(&l->thread) + fxt_pad_words(log_len(l));
}

uint32_t fxt_log_words(const struct fxt_log *l)
{
	return words_of(log_size(l), SMALL_MAX);
}

int fxt_log_write(uint64_t *dst, const struct fxt_log *l)
{
	int64_t n = log_size(l);
	uint32_t len = log_len(l);
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, l->ts);
	put_thread(&r, &l->thread);
	fxt_res_bytes(&r, l->msg, len);
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_LOG, (uint32_t)n) |
				   fxt_field_prep(FXT_LOG_MSG_LEN, len) |
				   fxt_field_prep(FXT_LOG_THREAD_REF, l->thread.index));
	return (int)n;
}

/* Log records of program output: two parts joined, repaired, never cut here. */
static int64_t log_text_size(const struct fxt_log *l, uint32_t tail_len)
{
	uint64_t len = (uint64_t)l->len + tail_len;
	if (len > FXT_STRING_MAX_LEN || (l->len && !l->msg))
		return -EINVAL;
	return 2 + thread_words(&l->thread) + fxt_pad_words((uint32_t)len);
}

uint32_t fxt_log_text_words(const struct fxt_log *l, uint32_t tail_len)
{
	return words_of(log_text_size(l, tail_len), SMALL_MAX);
}

int fxt_log_text_write(uint64_t *dst, const struct fxt_log *l, const char *tail,
		       uint32_t tail_len)
{
	int64_t n = log_text_size(l, tail_len);
	if (n < 0 || (tail_len && !tail))
		return n < 0 ? (int)n : -EINVAL;
	uint32_t len = l->len + tail_len, nw = fxt_pad_words(len);
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, l->ts);
	put_thread(&r, &l->thread);
	if (nw) {	/* one stream of two parts: padded once, after both */
		char *msg = (char *)r.p;
		r.p[nw - 1] = 0;
		if (l->len)
			memcpy(msg, l->msg, l->len);
		if (tail_len)
			memcpy(msg + l->len, tail, tail_len);
		fxt_utf8_repair(msg, len);
		r.p += nw;
	}
	fxt_res_commit(&r, fxt_record_hdr(FXT_RT_LOG, (uint32_t)n) |
				   fxt_field_prep(FXT_LOG_MSG_LEN, len) |
				   fxt_field_prep(FXT_LOG_THREAD_REF, l->thread.index));
	return (int)n;
}

/* ---- https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#large-blob-record ---- */

static int64_t large_blob_size(const struct fxt_large_blob *b)
{
	if (b->format > FXT_LBF_NO_METADATA || !str_ok(&b->category) || !str_ok(&b->name) ||
	    (b->size && !b->data) || b->size > LARGE_MAX * 8)
		return -EINVAL;
	int64_t n = 3 + fxt_str_words(&b->category) + fxt_str_words(&b->name) +
		    (int64_t)((b->size + 7) / 8);
	if (b->format == FXT_LBF_METADATA) {
		int64_t a = args_size(b->args, b->nargs);
		if (a < 0)
			return a;
		n += 1 + thread_words(&b->thread) + a;
	}
	return n;
}

uint32_t fxt_large_blob_words(const struct fxt_large_blob *b)
{
	return words_of(large_blob_size(b), LARGE_MAX);
}

int fxt_large_blob_write(uint64_t *dst, const struct fxt_large_blob *b)
{
	int64_t n = large_blob_size(b);
	int err = size_err(n, LARGE_MAX);
	if (err)
		return err;
	int meta = b->format == FXT_LBF_METADATA;
	uint64_t fmt = fxt_field_prep(FXT_LBLOB_CATEGORY_REF, fxt_str_ref(&b->category)) |
		       fxt_field_prep(FXT_LBLOB_NAME_REF, fxt_str_ref(&b->name));
	if (meta)
		fmt |= fxt_field_prep(FXT_LBLOB_ARG_CNT, b->nargs) |
		       fxt_field_prep(FXT_LBLOB_THREAD_REF, b->thread.index);
	struct fxt_res r;
	fxt_res_begin(&r, dst);
	fxt_res_word(&r, fmt);
	put_str(&r, &b->category);
	put_str(&r, &b->name);
	if (meta) {
		fxt_res_word(&r, b->ts);
		put_thread(&r, &b->thread);
		put_args(&r, b->args, b->nargs);
	}
	fxt_res_word(&r, b->size);
	fxt_res_bytes(&r, b->data, (size_t)b->size);
	fxt_res_commit(&r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_LARGE) |
				   fxt_field_prep(FXT_LARGE_RECORD_SIZE, (uint64_t)n) |
				   fxt_field_prep(FXT_LARGE_RECORD_TYPE, FXT_LT_BLOB) |
				   fxt_field_prep(FXT_LARGE_BLOB_FORMAT, b->format));
	return (int)n;
}
