/* The functions behind <fxt/trace.h>'s macros, inside libfxtauto.so: per-call-site caches of
 * string indices (category, name, argument names interned once by content, keyed by the
 * generation fxt_api_gen), the FXT_CATEGORIES filter, and the records of hand instrumentation
 * (events of every type with up to 15 arguments, blobs, log messages) written into the calling
 * thread's chunk through the writer's builders (writer/records.h: sized first, committed header
 * last; program strings repaired to UTF-8 there). Every entry point takes the reentrancy guard and does nothing unless tracing runs. Not async-signal-safe (interning and
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
#include "preload/base/fxtp.h"
#include "preload/events/api.h"
#include "preload/hot/names.h"
#include "preload/events/record.h"
#include "preload/events/log.h"
#include "writer/fields.h"
#include "writer/records.h"

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

/* 0 while the API records nothing; a new one (never 0) at each start of tracing (with its
 * categories) and in a fork child. Written by the constructor, the provider thread
 * (manager-link.c) and the fork child handler only; read relaxed by every macro. */
uint32_t fxt_api_gen;

/* FXT_CATEGORIES as given, or a START's categories (comma-separated, "x*" matches a prefix);
 * empty: all enabled. Changed only while fxt_api_gen is 0 (no site refreshes then). */
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

/* The string index of s (interned once per content), or 0: write it inline. Guard held. */
static uint32_t intern(const char *s)
{
	uint32_t len = fxt_utf8_cut(s, (uint32_t)strnlen(s, FXT_STRING_MAX_LEN + 1), FXT_STRING_MAX_LEN);
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

	if (!gen || !(t = fxtp_rec_enter()))
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

/* ---- records: events, arguments, blobs, logs, through writer/records.h ---- */

/* A name as the record holds it: its index, else inline (cut to INLINE_NAME_MAX bytes at a
 * UTF-8 boundary, repaired), else the empty string. */
static inline __attribute__((always_inline)) struct fxt_str name_ref(uint32_t index,
								      const char *s)
{
	if (index)
		return fxt_str_idx((uint16_t)index);
	if (!s || !*s)
		return fxt_str_inl(NULL, 0);
	uint32_t n = 0;	/* strnlen, whose bound gcc compares with a constant string's size */
	while (n <= INLINE_NAME_MAX && s[n])
		n++;
	return fxt_str_repair(s, fxt_utf8_cut(s, n, INLINE_NAME_MAX));
}

/* The writer's argument for a trace.h value (a string value is filled in later, by what the
 * record has room for). An unknown type stays unknown: the writer then refuses the record. */
static inline __attribute__((always_inline)) struct fxt_warg warg_of(const struct fxt_tval *v,
								      struct fxt_str name)
{
	switch (v->type) {
	case FXT_AT_NULL: return fxt_arg_null(name);
	case FXT_AT_INT32: return fxt_arg_int32(name, (int32_t)v->v.i);
	case FXT_AT_UINT32: return fxt_arg_uint32(name, (uint32_t)v->v.u);
	case FXT_AT_INT64: return fxt_arg_int64(name, v->v.i);
	case FXT_AT_UINT64: return fxt_arg_uint64(name, v->v.u);
	case FXT_AT_DOUBLE: return fxt_arg_double(name, v->v.d);
	case FXT_AT_STRING: return fxt_arg_string(name, fxt_str_inl(NULL, 0));
	case FXT_AT_POINTER: return fxt_arg_pointer(name, v->v.u);
	case FXT_AT_KOID: return fxt_arg_koid(name, v->v.u);
	case FXT_AT_BOOL: return fxt_arg_bool(name, v->v.u != 0);
	default: return (struct fxt_warg){ .type = v->type, .name = name };
	}
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
 * async/flow id, end time) for the types that have one. scope: TRACE_SCOPE_* for instants.
 * Guard held. */
static void write_event(struct fxtp_thread *t, uint64_t *site, const char *cat, const char *name,
			unsigned type, uint64_t ts, uint64_t extra, const struct fxt_targ *args,
			unsigned nargs, unsigned scope)
{
	static const struct fxt_tval scope_vals[] = {
		{ FXT_AT_STRING, FXT_TV_CSTR, { .s = "process" } },
		{ FXT_AT_STRING, FXT_TV_CSTR, { .s = "global" } },
	};
	static uint64_t scope_name_cache;
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	uint64_t w = __atomic_load_n(site, __ATOMIC_RELAXED);
	struct fxt_warg enc[FXT_MAX_ARGS];
	const struct fxt_tval *val[FXT_MAX_ARGS];
	unsigned n = 0, strings = 0;

	if (fxt_field_get(SITE_GEN, w) != gen)
		w = refresh(site, cat, name, gen);
	if (!fxt_field_get(SITE_ON, w))
		return;
	uint32_t cat_index = (uint32_t)fxt_field_get(SITE_CAT, w);
	uint32_t name_index = (uint32_t)fxt_field_get(SITE_NAME, w);
	/* TRACE_DURATION without arguments, names indexed: the hooks' 3-word builder. */
	if (type == FXT_ET_DURATION_COMPLETE && !nargs && t->thread_index &&
	    (cat_index || !cat || !*cat) && (name_index || !name || !*name)) {
		uint64_t *r = fxt_chunk_reserve(&t->w, FXT_COMPLETE3_WORDS);
		if (r)
			fxt_complete3_write(r, fxt_complete3_hdr(t->thread_index, cat_index,
								 name_index), ts, extra);
		return;
	}
	for (unsigned i = 0; i < nargs && n < FXT_MAX_ARGS; i++, n++) {
		val[n] = &args[i].val;
		strings += val[n]->type == FXT_AT_STRING;
		enc[n] = warg_of(val[n], name_ref(arg_index(&site[1 + i], args[i].name, gen),
						  args[i].name));
	}
	if (type == FXT_ET_INSTANT && (scope == TRACE_SCOPE_PROCESS || scope == TRACE_SCOPE_GLOBAL)
	    && n < FXT_MAX_ARGS) {
		val[n] = &scope_vals[scope - 1];
		strings++;
		enc[n] = warg_of(val[n], name_ref(arg_index(&scope_name_cache, "scope", gen),
						  "scope"));
		n++;
	}
	struct fxt_event e = FXT_EVENT_INIT(type, fxtp_thread_ref(t),
					    name_ref(cat_index, cat), name_ref(name_index, name),
					    ts, extra);
	e.args = enc;
	e.nargs = n;
	uint32_t words = fxt_event_words(&e);	/* string values still empty */
	if (!words)
		return;
	/* String values share what the record has left, in argument order. */
	uint32_t limit = fxtp_rec_max_words();
	for (unsigned i = 0; strings && i < n; i++) {
		const struct fxt_tval *v = val[i];
		if (v->type != FXT_AT_STRING || !v->v.s)
			continue;
		uint32_t len = v->len == FXT_TV_CSTR
				       ? (uint32_t)strnlen(v->v.s, FXT_STRING_MAX_LEN + 1) : v->len;
		uint32_t room = words < limit ? (limit - words) * 8 : 0;
		len = fxt_utf8_cut(v->v.s, len, room < FXT_STRING_MAX_LEN ? room
									   : FXT_STRING_MAX_LEN);
		enc[i].v.str = fxt_str_repair(v->v.s, len);
		words += fxt_pad_words(len);
	}
	if (words > limit)
		return;
	uint64_t *r = fxt_chunk_reserve(&t->w, words);
	if (r)
		fxt_event_write_sized(r, &e, words);
}

FXTP_EXPORT void fxt_api_event(uint64_t *site, const char *cat, const char *name, uint64_t id,
			       const struct fxt_targ *args, unsigned type_nargs)
{
	uint64_t now = fxtp_now();
	unsigned type = type_nargs & 0xff;
	struct fxtp_thread *t = fxtp_rec_enter();

	if (!t)
		return;
	if (type <= FXT_ET_FLOW_END && type != FXT_ET_DURATION_COMPLETE)
		write_event(t, site, cat, name, type, now, id, args, type_nargs >> 8,
			    type == FXT_ET_INSTANT ? (unsigned)id : 0);
	fxtp_leave(t);
}

FXTP_EXPORT void fxt_api_complete(const struct fxt_scope *s)
{
	uint64_t now = fxtp_now();
	struct fxtp_thread *t = fxtp_rec_enter();

	if (!t)
		return;
	write_event(t, s->site, s->cat, s->name, FXT_ET_DURATION_COMPLETE, s->start, now, s->args,
		    s->nargs, 0);
	fxtp_leave(t);
}

/* Blob records of at most what one record holds; a larger blob becomes several records with
 * the same name, which the spec defines as appending to it. */
FXTP_EXPORT void fxt_api_blob(uint64_t *site, const char *name, unsigned type, const void *data,
			      size_t size)
{
	struct fxtp_thread *t = fxtp_rec_enter();
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	const char *bytes = data;

	if (!t)
		return;
	uint64_t w = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (fxt_field_get(SITE_GEN, w) != gen)
		w = refresh(site, NULL, name, gen);
	struct fxt_str nm = name_ref((uint32_t)fxt_field_get(SITE_NAME, w), name);
	uint32_t room = (fxtp_rec_max_words() - 1 - fxt_str_words(&nm)) * 8;
	uint32_t piece_max = room < FXT_FIELD_MAX(FXT_BLOB_SIZE) ? room
								 : FXT_FIELD_MAX(FXT_BLOB_SIZE) & ~7u;
	do {
		uint32_t piece = size < piece_max ? (uint32_t)size : piece_max;
		struct fxt_blob b = { .name = nm, .type = type, .data = bytes, .size = piece };
		uint32_t words = fxt_blob_words(&b);
		uint64_t *r = words ? fxt_chunk_reserve(&t->w, words) : NULL;
		if (!r)
			break;
		fxt_blob_write(r, &b);
		bytes += piece;
		size -= piece;
	} while (size > 0);
	fxtp_leave(t);
}

/* The string ref of s: indexed through intern(), else inline. Guard held. */
static struct fxt_str ref(const char *s)
{
	uint32_t index = intern(s);
	return index ? fxt_str_idx((uint16_t)index) : fxt_str_inl(s, (uint32_t)strlen(s));
}

/* One log record and its mirror, an instant `log`/`api` (log.c); messages longer than the
 * format or a chunk allows are cut. */
FXTP_EXPORT void fxt_api_log(const char *fmt, ...)
{
	uint64_t now = fxtp_now();
	struct fxtp_thread *t = fxtp_rec_enter();
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
		struct fxtp_log_names names = { ref("log"), ref("api"), ref("message") };
		fxtp_log_line(t, &names, msg, fxt_utf8_cut(msg, (uint32_t)n, FXT_STRING_MAX_LEN),
			      NULL, 0, now);
	}
	if (msg != small)
		free(msg);
	fxtp_leave(t);
}

/* ---- start and fork ---- */

void fxtp_api_fork_prepare(void)
{
	pthread_mutex_lock(&intern_lock);
}

void fxtp_api_fork_parent(void)
{
	pthread_mutex_unlock(&intern_lock);
}

/* The child's buffer holds copies of the parent's string records, so the indices stay valid;
 * the new generation still makes every site look again (at the child's state). */
void fxtp_api_fork_child(void)
{
	pthread_mutex_unlock(&intern_lock);
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	if (gen)
		__atomic_store_n(&fxt_api_gen, gen + 1 ? gen + 1 : 1, __ATOMIC_RELAXED);
}

/* The latest generation published (a fork child's included), so a new one is never reused. */
static uint32_t last_gen;

static void note_gen(void)
{
	uint32_t gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	if (gen > last_gen)
		last_gen = gen;
}

void fxtp_api_start(const char *cats)
{
	note_gen();
	snprintf(categories, sizeof(categories), "%s", cats ? cats : "");
	last_gen = last_gen + 1 ? last_gen + 1 : 1;
	__atomic_store_n(&fxt_api_gen, last_gen, __ATOMIC_RELEASE);
}

void fxtp_api_stop(void)
{
	note_gen();
	__atomic_store_n(&fxt_api_gen, 0, __ATOMIC_RELEASE);
}

/* Called by fxtp_init after RUNNING (api.h); the fork handlers are fork.c's. */
void fxtp_api_init(void)
{
	_Static_assert(sizeof categories > FXT_CATEGORIES_MAX, "FXT_CATEGORIES fits");
	if (fxtp_running())
		fxtp_api_start(fxtp_settings.categories);	/* checked by fxtp_init */
}
