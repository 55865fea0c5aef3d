/* The functions behind <fxt/trace.h>'s macros, inside libfxtauto.so: per-call-site caches of
 * string indices (category, name, argument names interned once by content, keyed by the
 * generation fxt_api_gen), the FXT_CATEGORIES filter, and the records of hand instrumentation
 * (events of every type with up to 15 arguments, blobs, log messages) written into the calling
 * thread's chunk, sized first and committed header last. Every entry point takes the
 * reentrancy guard and does nothing unless tracing runs. Not async-signal-safe (interning and
 * TRACE_LOG take locks or may allocate). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#define FXT_API_IMPL
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/trace.h"
#include "preload/fxtp.h"
#include "writer/fields.h"

#define SAME_TYPE(x) ((int)FXT_TV_##x == (int)FXT_AT_##x)
_Static_assert(SAME_TYPE(NULL) && SAME_TYPE(INT32) && SAME_TYPE(UINT32) && SAME_TYPE(INT64) &&
		       SAME_TYPE(UINT64) && SAME_TYPE(DOUBLE) && SAME_TYPE(STRING) &&
		       SAME_TYPE(POINTER) && SAME_TYPE(KOID) && SAME_TYPE(BOOL),
	       "trace.h value types are the spec's argument types");

/* Per-site cache words (layout documented in trace.h). */
#define SITE_GEN FXT_BITS(0, 31)
#define SITE_CAT FXT_BITS(32, 46)
#define SITE_NAME FXT_BITS(47, 61)
#define SITE_ON FXT_BITS(63, 63)
#define ARG_INDEX FXT_BITS(32, 46)

#define INLINE_NAME_MAX 255u	/* names written inline (string table full) are cut here */
#define LOG_STACK_BUF 1024u
#define LOG_HEAP_BUF (FXT_STRING_MAX_LEN + 8)

/* 0 while the API records nothing; bumped (never to 0) in a fork child. Written by the
 * constructor and the fork child handler only; read relaxed by every macro. */
uint32_t fxt_api_gen;

/* FXT_CATEGORIES as given (comma-separated, "x*" matches a prefix); empty: all enabled. */
static char categories[4096];

/* Content -> string index, so that every site naming "net" shares one string record.
 * Open addressing over copies of the strings (a dlclose'd library takes its literals away).
 * A full map or pool stores nothing more: later strings get fresh indices. intern_lock orders
 * before P's intern lock (fxtp_name_index takes it inside). */
#define MAP_SIZE 4096u
#define POOL_BYTES (256u << 10)
struct istr {
	uint32_t off, len, index;
};
static struct istr imap[MAP_SIZE];
static char pool[POOL_BYTES];
static uint32_t pool_used = 1; /* offset 0 marks an empty slot */
static uint32_t nimap;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t hash_bytes(const char *s, uint32_t len)
{
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Length of s cut to at most max bytes without splitting a UTF-8 sequence. */
static uint32_t cut_len(const char *s, size_t len, uint32_t max)
{
	if (len <= max)
		return (uint32_t)len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* The string index of s (interned once per content), or 0: write it inline. Guard held. */
static uint32_t intern(const char *s)
{
	uint32_t len = cut_len(s, strnlen(s, FXT_STRING_MAX_LEN + 1), FXT_STRING_MAX_LEN);
	uint32_t index = 0;

	if (len == 0)
		return 0;
	uint32_t h = hash_bytes(s, len);
	pthread_mutex_lock(&intern_lock);
	for (uint32_t n = 0, i = h & (MAP_SIZE - 1); n < MAP_SIZE; n++, i = (i + 1) & (MAP_SIZE - 1)) {
		struct istr *e = &imap[i];
		if (e->off == 0) {
			index = fxtp_name_index(s, len);
			if (index && nimap < MAP_SIZE / 2 && pool_used + len <= POOL_BYTES) {
				memcpy(pool + pool_used, s, len);
				*e = (struct istr){ pool_used, len, index };
				pool_used += len;
				nimap++;
			}
			break;
		}
		if (e->len == len && memcmp(pool + e->off, s, len) == 0) {
			index = e->index;
			break;
		}
	}
	pthread_mutex_unlock(&intern_lock);
	return index;
}

static int category_enabled(const char *cat)
{
	const char *p = categories;

	if (!*p)
		return 1;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n && p[n - 1] == '*' ? strncmp(p, cat, n - 1) == 0
					 : strlen(cat) == n && strncmp(p, cat, n) == 0)
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* The calling thread with the guard held, set up if needed; NULL when nothing may record. */
static struct fxtp_thread *api_enter(void)
{
	struct fxtp_thread *t = &fxtp_self;

	if (!fxtp_running() || !fxtp_enter(t))
		return NULL;
	if (!t->dead && (t->base || fxtp_stack_grow(t)))
		return t;
	fxtp_leave(t);
	return NULL;
}

/* Interns the site's category and name for generation gen: the new site word. Guard held. */
static uint64_t refresh(uint64_t *site, const char *cat, const char *name, uint32_t gen)
{
	int on = !cat || category_enabled(cat);
	uint64_t w = fxt_field_prep(SITE_GEN, gen) | fxt_field_prep(SITE_ON, (uint64_t)on);

	if (on)
		w |= fxt_field_prep(SITE_CAT, cat ? intern(cat) : 0) |
		     fxt_field_prep(SITE_NAME, intern(name));
	__atomic_store_n(site, w, __ATOMIC_RELAXED);
	return w;
}

FXTP_EXPORT int fxt_api_site_refresh(uint64_t *site, const char *cat, const char *name)
{
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	struct fxtp_thread *t;
	uint64_t w;

	if (!gen || !(t = api_enter()))
		return 0;
	w = refresh(site, cat, name, gen);
	fxtp_leave(t);
	return (int)fxt_field_get(SITE_ON, w);
}

FXTP_EXPORT uint64_t fxt_api_now(void)
{
	return fxtp_now();
}

FXTP_EXPORT int fxt_api_category_enabled(const char *cat)
{
	return fxtp_running() && category_enabled(cat);
}

/* ---- record encoding (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record, #arguments, #blob-record, #log-record) */

/* A string as the record will hold it: an index, or inline bytes (len in the ref). */
struct sref {
	uint16_t ref;
	const char *s;
	uint32_t len; /* inline bytes; 0 when indexed or empty */
};

static struct sref sref_of(uint32_t index, const char *s, uint32_t max)
{
	struct sref r = { (uint16_t)index, NULL, 0 };

	if (!index && s && *s) {
		r.s = s;
		r.len = cut_len(s, strnlen(s, max + 1), max);
		r.ref = (uint16_t)(FXT_STRREF_INLINE | r.len);
	}
	return r;
}

static uint32_t sref_words(const struct sref *r)
{
	return fxt_pad_words(r->len);
}

/* Copies len bytes zero-padded to 8, replacing bytes that are not valid UTF-8 by '?'. */
static uint64_t *put_stream(uint64_t *dst, const char *s, uint32_t len)
{
	uint32_t nw = fxt_pad_words(len);
	unsigned char *d = (unsigned char *)dst;
	const unsigned char *p = (const unsigned char *)s;

	if (!nw)
		return dst;
	dst[nw - 1] = 0;
	for (uint32_t i = 0; i < len;) {
		unsigned c = p[i], n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			     : (c & 0xf8) == 0xf0 ? 4 : 0;
		int valid = n && i + n <= len && (n != 2 || c >= 0xc2) && (n != 4 || c <= 0xf4);
		for (unsigned k = 1; valid && k < n; k++)
			valid = (p[i + k] & 0xc0) == 0x80;
		if (valid && n == 3)	/* no overlong forms, no surrogates */
			valid = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] >= 0xa0);
		if (valid && n == 4)
			valid = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] >= 0x90);
		if (!valid) {
			d[i++] = '?';
			continue;
		}
		memcpy(d + i, p + i, n);
		i += n;
	}
	return dst + nw;
}

static uint64_t *put_sref(uint64_t *p, const struct sref *r)
{
	return r->len ? put_stream(p, r->s, r->len) : p;
}

/* One argument ready to write. */
struct enc_arg {
	const struct fxt_tval *val;
	struct sref name;
	struct sref str;	/* string values: always inline */
	uint32_t words;
};

static uint32_t value_words(const struct fxt_tval *v)
{
	switch (v->type) {
	case FXT_AT_INT64:
	case FXT_AT_UINT64:
	case FXT_AT_DOUBLE:
	case FXT_AT_POINTER:
	case FXT_AT_KOID:
		return 1;
	default:
		return 0;
	}
}

static uint64_t *put_arg(uint64_t *p, const struct enc_arg *a)
{
	const struct fxt_tval *v = a->val;
	uint64_t hdr = fxt_field_prep(FXT_ARG_TYPE, v->type) |
		       fxt_field_prep(FXT_ARG_SIZE, a->words) |
		       fxt_field_prep(FXT_ARG_NAME_REF, a->name.ref);
	uint64_t *q;

	switch (v->type) {
	case FXT_AT_INT32: hdr |= fxt_field_prep(FXT_ARG_VALUE32, (uint32_t)(int32_t)v->v.i); break;
	case FXT_AT_UINT32: hdr |= fxt_field_prep(FXT_ARG_VALUE32, (uint32_t)v->v.u); break;
	case FXT_AT_BOOL: hdr |= fxt_field_prep(FXT_ARG_BOOL, v->v.u != 0); break;
	case FXT_AT_STRING: hdr |= fxt_field_prep(FXT_ARG_STRING_REF, a->str.ref); break;
	default: break;
	}
	p[0] = hdr;
	q = put_sref(p + 1, &a->name);
	if (v->type == FXT_AT_STRING)
		return put_sref(q, &a->str);
	if (value_words(v))
		memcpy(q++, &v->v, 8);
	return q;
}

/* Largest record that fits a chunk (chunk word 0 and the opening thread record excluded) and
 * the format (4095 words). */
static uint32_t max_words(void)
{
	uint32_t chunk = fxtp.buf.hdr->chunk_size / 8 - 4;
	return chunk < FXT_RECORD_MAX_WORDS ? chunk : FXT_RECORD_MAX_WORDS;
}

/* The name index of argument i at a site, interned once per generation. Guard held. */
static uint32_t arg_index(uint64_t *cache, const char *name, uint32_t gen)
{
	uint64_t w = __atomic_load_n(cache, __ATOMIC_RELAXED);

	if (fxt_field_get(SITE_GEN, w) != gen) {
		w = fxt_field_prep(SITE_GEN, gen) | fxt_field_prep(ARG_INDEX, intern(name));
		__atomic_store_n(cache, w, __ATOMIC_RELAXED);
	}
	return (uint32_t)fxt_field_get(ARG_INDEX, w);
}

/* Writes one event record into t's chunk. extra: the word after the arguments (counter id,
 * async/flow id, end time) when has_extra. scope: TRACE_SCOPE_* for instants. Guard held. */
static void write_event(struct fxtp_thread *t, uint64_t *site, const char *cat, const char *name,
			unsigned type, uint64_t ts, int has_extra, uint64_t extra,
			const struct fxt_targ *args, unsigned nargs, unsigned scope)
{
	static const struct fxt_tval scope_vals[] = {
		{ FXT_AT_STRING, FXT_TV_CSTR, { .s = "process" } },
		{ FXT_AT_STRING, FXT_TV_CSTR, { .s = "global" } },
	};
	static uint64_t scope_name_cache;
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	uint64_t w = __atomic_load_n(site, __ATOMIC_RELAXED);
	struct enc_arg enc[FXT_MAX_ARGS];
	unsigned n = 0;

	if (fxt_field_get(SITE_GEN, w) != gen)
		w = refresh(site, cat, name, gen);
	if (!fxt_field_get(SITE_ON, w))
		return;
	struct sref cref = sref_of((uint32_t)fxt_field_get(SITE_CAT, w), cat, INLINE_NAME_MAX);
	struct sref nref = sref_of((uint32_t)fxt_field_get(SITE_NAME, w), name, INLINE_NAME_MAX);
	uint32_t words = 2 + (t->thread_index ? 0 : 2) + sref_words(&cref) + sref_words(&nref) +
			 (has_extra ? 1 : 0);

	for (unsigned i = 0; i < nargs && n < FXT_MAX_ARGS; i++, n++) {
		enc[n].val = &args[i].val;
		enc[n].name = sref_of(arg_index(&site[1 + i], args[i].name, gen), args[i].name,
				      INLINE_NAME_MAX);
	}
	if (type == FXT_ET_INSTANT && (scope == TRACE_SCOPE_PROCESS || scope == TRACE_SCOPE_GLOBAL)
	    && n < FXT_MAX_ARGS) {
		enc[n].val = &scope_vals[scope - 1];
		enc[n].name = sref_of(arg_index(&scope_name_cache, "scope", gen), "scope", 5);
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		enc[i].str = (struct sref){ 0, NULL, 0 };
		enc[i].words = 1 + sref_words(&enc[i].name) + value_words(enc[i].val);
		words += enc[i].words;
	}
	/* String values share what the record has left, in argument order. */
	uint32_t limit = max_words();
	for (unsigned i = 0; i < n; i++) {
		const struct fxt_tval *v = enc[i].val;
		if (v->type != FXT_AT_STRING || !v->v.s)
			continue;
		size_t len = v->len == FXT_TV_CSTR ? strnlen(v->v.s, FXT_STRING_MAX_LEN + 1) : v->len;
		uint32_t room = words < limit ? (limit - words) * 8 : 0;
		uint32_t max = room < FXT_STRING_MAX_LEN ? room : FXT_STRING_MAX_LEN;
		enc[i].str.len = cut_len(v->v.s, len, max);
		enc[i].str.s = v->v.s;
		enc[i].str.ref = enc[i].str.len ? (uint16_t)(FXT_STRREF_INLINE | enc[i].str.len) : 0;
		enc[i].words += sref_words(&enc[i].str);
		words += sref_words(&enc[i].str);
	}
	if (words > limit)
		return;

	uint64_t *r = fxt_chunk_reserve(&t->w, words);
	if (!r)
		return;
	uint64_t *p = r + 1;
	*p++ = ts;
	if (!t->thread_index) {
		*p++ = (uint64_t)fxtp.pid;
		*p++ = (uint64_t)t->tid;
	}
	p = put_sref(p, &cref);
	p = put_sref(p, &nref);
	for (unsigned i = 0; i < n; i++)
		p = put_arg(p, &enc[i]);
	if (has_extra)
		*p = extra;
	fxt_chunk_commit(r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_EVENT) |
				    fxt_field_prep(FXT_RECORD_SIZE, words) |
				    fxt_field_prep(FXT_EVENT_TYPE, type) |
				    fxt_field_prep(FXT_EVENT_ARG_CNT, n) |
				    fxt_field_prep(FXT_EVENT_THREAD_REF, t->thread_index) |
				    fxt_field_prep(FXT_EVENT_CATEGORY_REF, cref.ref) |
				    fxt_field_prep(FXT_EVENT_NAME_REF, nref.ref));
}

FXTP_EXPORT void fxt_api_event(uint64_t *site, const char *cat, const char *name, uint64_t id,
			       const struct fxt_targ *args, unsigned type_nargs)
{
	uint64_t now = fxtp_now();
	unsigned type = type_nargs & 0xff;
	struct fxtp_thread *t = api_enter();

	if (!t)
		return;
	if (type <= FXT_ET_FLOW_END && type != FXT_ET_DURATION_COMPLETE)
		write_event(t, site, cat, name, type, now,
			    type == FXT_ET_COUNTER || type >= FXT_ET_ASYNC_BEGIN, id, args,
			    type_nargs >> 8, type == FXT_ET_INSTANT ? (unsigned)id : 0);
	fxtp_leave(t);
}

FXTP_EXPORT void fxt_api_complete(const struct fxt_scope *s)
{
	uint64_t now = fxtp_now();
	struct fxtp_thread *t = api_enter();

	if (!t)
		return;
	write_event(t, s->site, s->cat, s->name, FXT_ET_DURATION_COMPLETE, s->start, 1, now,
		    s->args, s->nargs, 0);
	fxtp_leave(t);
}

/* Blob records of at most what one record holds; a larger blob becomes several records with
 * the same name, which the spec defines as appending to it. */
FXTP_EXPORT void fxt_api_blob(uint64_t *site, const char *name, unsigned type, const void *data,
			      size_t size)
{
	struct fxtp_thread *t = api_enter();
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	const char *bytes = data;

	if (!t)
		return;
	uint64_t w = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (fxt_field_get(SITE_GEN, w) != gen)
		w = refresh(site, NULL, name, gen);
	struct sref nref = sref_of((uint32_t)fxt_field_get(SITE_NAME, w), name, INLINE_NAME_MAX);
	uint32_t room = (max_words() - 1 - sref_words(&nref)) * 8;
	uint32_t piece_max = room < FXT_FIELD_MAX(FXT_BLOB_SIZE) ? room
								 : FXT_FIELD_MAX(FXT_BLOB_SIZE) & ~7u;
	do {
		uint32_t piece = size < piece_max ? (uint32_t)size : piece_max;
		uint32_t words = 1 + sref_words(&nref) + fxt_pad_words(piece);
		uint64_t *r = fxt_chunk_reserve(&t->w, words);
		if (!r)
			break;
		uint64_t *p = put_sref(r + 1, &nref);
		if (piece) {
			p[fxt_pad_words(piece) - 1] = 0;
			memcpy(p, bytes, piece);
		}
		fxt_chunk_commit(r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_BLOB) |
					    fxt_field_prep(FXT_RECORD_SIZE, words) |
					    fxt_field_prep(FXT_BLOB_NAME_REF, nref.ref) |
					    fxt_field_prep(FXT_BLOB_SIZE, piece) |
					    fxt_field_prep(FXT_BLOB_TYPE, type));
		bytes += piece;
		size -= piece;
	} while (size > 0);
	fxtp_leave(t);
}

/* One log record; messages longer than the format or a chunk allows are cut. */
FXTP_EXPORT void fxt_api_log(const char *fmt, ...)
{
	uint64_t now = fxtp_now();
	struct fxtp_thread *t = api_enter();
	char small[LOG_STACK_BUF], *msg = small;
	va_list ap;
	int n;

	if (!t)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	/* A few bytes past the longest message let the cut see where the next character starts. */
	if (n >= (int)sizeof small && (msg = malloc(LOG_HEAP_BUF))) {
		va_start(ap, fmt);
		vsnprintf(msg, LOG_HEAP_BUF, fmt, ap);
		va_end(ap);
		if (n >= (int)LOG_HEAP_BUF)
			n = (int)LOG_HEAP_BUF - 1;
	}
	if (!msg) {
		msg = small;
		n = sizeof small - 1;
	}
	if (n >= 0) {
		uint32_t fixed = 2 + (t->thread_index ? 0 : 2);
		uint32_t room = (max_words() - fixed) * 8;
		uint32_t len = cut_len(msg, (size_t)n, room < FXT_STRING_MAX_LEN ? room
										: FXT_STRING_MAX_LEN);
		uint32_t words = fixed + fxt_pad_words(len);
		uint64_t *r = fxt_chunk_reserve(&t->w, words);
		if (r) {
			uint64_t *p = r + 1;
			*p++ = now;
			if (!t->thread_index) {
				*p++ = (uint64_t)fxtp.pid;
				*p++ = (uint64_t)t->tid;
			}
			put_stream(p, msg, len);
			fxt_chunk_commit(r, fxt_field_prep(FXT_RECORD_TYPE, FXT_RT_LOG) |
						    fxt_field_prep(FXT_RECORD_SIZE, words) |
						    fxt_field_prep(FXT_LOG_MSG_LEN, len) |
						    fxt_field_prep(FXT_LOG_THREAD_REF, t->thread_index));
		}
	}
	if (msg != small)
		free(msg);
	fxtp_leave(t);
}

/* ---- start and fork ---- */

static void prepare(void)
{
	pthread_mutex_lock(&intern_lock);
}

static void parent(void)
{
	pthread_mutex_unlock(&intern_lock);
}

/* The child's buffer holds copies of the parent's string records, so the indices stay valid;
 * the new generation still makes every site look again (at the child's state). */
static void child(void)
{
	pthread_mutex_unlock(&intern_lock);
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	if (gen)
		__atomic_store_n(&fxt_api_gen, gen + 1 ? gen + 1 : 1, __ATOMIC_RELAXED);
}

/* After fxtp_init (priority 101): takes FXT_CATEGORIES, then lets the macros record. */
__attribute__((constructor(102), no_instrument_function)) static void api_init(void)
{
	const char *cats = fxtp_settings.categories;	/* checked by fxtp_init */

	if (!fxtp_running())
		return;
	_Static_assert(sizeof categories > FXT_CATEGORIES_MAX, "FXT_CATEGORIES fits");
	if (cats)
		strcpy(categories, cats);
	if (pthread_atfork(prepare, parent, child) != 0) {
		fxtp_warn("pthread_atfork failed; trace.h events off", NULL);
		return;
	}
	__atomic_store_n(&fxt_api_gen, 1, __ATOMIC_RELEASE);
}
