/* <fxt/trace.h>: hand instrumentation for C and C++, the fxtauto counterpart of Fuchsia's libtrace
 * (TRACE_DURATION, TRACE_INSTANT, ...). Events go into the buffers of libfxtauto.so when the
 * program runs under fxtrun or LD_PRELOAD=libfxtauto.so; without the tracer a macro costs one
 * predictable branch (a weak reference resolved at load time, never a dlsym). With NTRACE defined
 * before the include every macro compiles to nothing, evaluates nothing, references nothing.
 * Thread-safe and async-signal-unsafe (TRACE_LOG formats with vsnprintf). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_TRACE_H
#define FXT_TRACE_H

/*
 * Usage (C):   TRACE_DURATION("net", "send", "bytes", TA_UINT64(n), "peer", TA_STRING(host));
 * Usage (C++): TRACE_DURATION("net", "send", "bytes", n, "peer", host);  // types inferred
 *
 * Macros (arguments are up to 15 "name", value pairs after the fixed parameters):
 *   TRACE_DURATION(cat, name, args...)         scoped: a complete event when the block ends
 *   TRACE_DURATION_BEGIN(cat, name, args...)   duration begin event
 *   TRACE_DURATION_END(cat, name, args...)     duration end event
 *   TRACE_INSTANT(cat, name, scope, args...)   scope: TRACE_SCOPE_THREAD, _PROCESS or _GLOBAL
 *   TRACE_COUNTER(cat, name, counter_id, args...)   each argument is one series
 *   TRACE_ASYNC_BEGIN/INSTANT/END(cat, name, async_id, args...)
 *   TRACE_FLOW_BEGIN/STEP/END(cat, name, flow_id, args...)
 *   TRACE_BLOB(type, name, data, size)          blob record(s), TRACE_BLOB_TYPE_*; no category
 *   TRACE_LOG(fmt, ...)                         printf-style, one log record; no category
 *   TRACE_ENABLED()                             non-zero while a tracer records this process
 *   TRACE_CATEGORY_ENABLED(cat)                 ... and cat is enabled (one call: cache it)
 * C argument helpers: TA_NULL() TA_BOOL(b) TA_INT32(i) TA_UINT32(u) TA_INT64(i) TA_UINT64(u)
 * TA_DOUBLE(d) TA_STRING(s) TA_POINTER(p) TA_KOID(k). C++ accepts them too, or plain values:
 * bool, integers (by size and sign), enums, floating point, const char *, std::string(_view)
 * and anything with data()/size() of char, nullptr, other pointers.
 *
 * Contract:
 * - Category, name and argument names are string literals (constant per call site): each
 *   call site interns them once into the string table and caches the indices in a static
 *   array keyed by the tracer's generation number (which changes after fork or when the
 *   string table is recycled). String argument values are copied into the record (inline).
 * - Arguments are evaluated only when the event is recorded (tracer loaded, tracing on and
 *   the category enabled); under NTRACE never. TRACE_DURATION evaluates them at scope entry.
 * - Categories: FXT_CATEGORIES=a,b (what `fxtrun --categories a,b` sets) enables only those
 *   categories ("net*" enables every category starting with "net"); unset or empty, every
 *   category is enabled. Read once when tracing starts. Blobs and logs have no category.
 * - Instant scope: the format has no scope field, so a process or global instant carries one
 *   more argument, "scope" (string "process" or "global"); a thread instant carries none.
 * - TRACE_DURATION declares variables: use it as a statement inside a block, not as the lone
 *   body of an if/for. C uses __attribute__((cleanup)) (gcc, clang), C++ a destructor.
 * - The code that uses the macros must be position independent (-fPIE/-fPIC, the default of
 *   Debian's gcc and clang): in a -fno-pie executable the linker fixes the weak address to 0.
 */

#define TRACE_SCOPE_THREAD 0
#define TRACE_SCOPE_PROCESS 1
#define TRACE_SCOPE_GLOBAL 2

#define TRACE_BLOB_TYPE_DATA 1
#define TRACE_BLOB_TYPE_LAST_BRANCH 2
#define TRACE_BLOB_TYPE_PERFETTO 3

#ifdef NTRACE

#define TRACE_ENABLED() 0
#define TRACE_CATEGORY_ENABLED(cat) 0
#define TRACE_DURATION(cat, ...)
#define TRACE_DURATION_BEGIN(cat, ...) do { } while (0)
#define TRACE_DURATION_END(cat, ...) do { } while (0)
#define TRACE_INSTANT(cat, ...) do { } while (0)
#define TRACE_COUNTER(cat, ...) do { } while (0)
#define TRACE_ASYNC_BEGIN(cat, ...) do { } while (0)
#define TRACE_ASYNC_INSTANT(cat, ...) do { } while (0)
#define TRACE_ASYNC_END(cat, ...) do { } while (0)
#define TRACE_FLOW_BEGIN(cat, ...) do { } while (0)
#define TRACE_FLOW_STEP(cat, ...) do { } while (0)
#define TRACE_FLOW_END(cat, ...) do { } while (0)
#define TRACE_BLOB(type, name, data, size) do { } while (0)
#define TRACE_LOG(...) do { } while (0)

#else /* !NTRACE */

#include <stddef.h>
#include <stdint.h>

/* Argument value types: the numbers of the spec's argument types.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#argument-types */
enum fxt_tv_type {
	FXT_TV_NULL = 0,
	FXT_TV_INT32 = 1,
	FXT_TV_UINT32 = 2,
	FXT_TV_INT64 = 3,
	FXT_TV_UINT64 = 4,
	FXT_TV_DOUBLE = 5,
	FXT_TV_STRING = 6,
	FXT_TV_POINTER = 7,
	FXT_TV_KOID = 8,
	FXT_TV_BOOL = 9,
};
#define FXT_TV_CSTR 0xffffffffu /* fxt_tval.len of a NUL-terminated string */

/* One typed value; strings are not copied until the event is written. */
struct fxt_tval {
	uint32_t type;	/* enum fxt_tv_type */
	uint32_t len;	/* strings: byte length or FXT_TV_CSTR; else 0 */
	union {
		int64_t i;	/* int32, int64 */
		uint64_t u;	/* uint32, uint64, pointer, koid, bool */
		double d;
		const char *s;
	} v;
};

struct fxt_targ {
	const char *name;
	struct fxt_tval val;
};

/* A TRACE_DURATION in progress; site is NULL when the scope records nothing. */
struct fxt_scope {
	uint64_t *site;
	const char *cat, *name;
	const struct fxt_targ *args;
	uint64_t start;
	unsigned nargs;
};

/* The interface of libfxtauto.so (preload/events/api.c). The per-site cache is uint64_t[1 + nargs]:
 * word 0 = generation [0,31] | category index [32,46] | name index [47,61] | enabled bit 63;
 * word 1+i = generation [0,31] | argument i's name index [32,46]. fxt_api_gen is 0 while
 * nothing records, else the generation the cached indices must carry. fxt_api_event's last
 * parameter is event type | nargs << 8. Weak here, so that a program runs without the tracer. */
#ifdef FXT_API_IMPL
#define FXT_API_ __attribute__((visibility("default")))
#else
#define FXT_API_ __attribute__((weak, visibility("default")))
#endif
#ifdef __cplusplus
extern "C" {
#endif
extern uint32_t fxt_api_gen FXT_API_;
FXT_API_ int fxt_api_site_refresh(uint64_t *site, const char *cat, const char *name);
FXT_API_ uint64_t fxt_api_now(void);
FXT_API_ void fxt_api_event(uint64_t *site, const char *cat, const char *name, uint64_t id,
			    const struct fxt_targ *args, unsigned type_nargs);
FXT_API_ void fxt_api_complete(const struct fxt_scope *s);
FXT_API_ void fxt_api_blob(uint64_t *site, const char *name, unsigned type, const void *data,
			   size_t size);
FXT_API_ void fxt_api_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FXT_API_ int fxt_api_category_enabled(const char *cat);
#ifdef __cplusplus
}
#endif

/* Helpers are never instrumented: -finstrument-functions would trace them even inlined. */
#define FXT_INLINE_ static inline __attribute__((always_inline, no_instrument_function))
#define FXT_CXX_INLINE_ inline __attribute__((always_inline, no_instrument_function))

#ifndef FXT_API_IMPL /* the tracer itself needs only the types and declarations */
/* Is a tracer loaded and recording? The first test is the one branch a program without the
 * tracer pays (the weak address is NULL). */
FXT_INLINE_ int fxt_on_(void)
{
	return __builtin_expect(&fxt_api_gen != 0, 0) &&
	       __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED) != 0;
}

/* Does this call site record now? Refreshes the site's cache once per generation. */
FXT_INLINE_ int fxt_site_on_(uint64_t *site, const char *cat,
							      const char *name)
{
	uint32_t gen;
	uint64_t w;

	if (__builtin_expect(&fxt_api_gen == 0, 1))
		return 0;
	gen = __atomic_load_n(&fxt_api_gen, __ATOMIC_RELAXED);
	if (gen == 0)
		return 0;
	w = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (__builtin_expect((uint32_t)w == gen, 1))
		return (int)(w >> 63);
	return fxt_api_site_refresh(site, cat, name);
}

FXT_INLINE_ void
fxt_scope_begin_(struct fxt_scope *s, uint64_t *site, const char *cat, const char *name,
		 const struct fxt_targ *args, unsigned nargs)
{
	s->cat = cat;
	s->name = name;
	s->args = args;
	s->nargs = nargs;
	s->start = fxt_api_now();
	s->site = site;
}

FXT_INLINE_ void fxt_scope_end_(struct fxt_scope *s)
{
	if (__builtin_expect(s->site != 0, 0))
		fxt_api_complete(s);
}
#endif

/* ---- argument lists: a head parameter then up to 15 (name, value) pairs ---- */
#define FXT_CAT_(a, b) a##b
#define FXT_CAT(a, b) FXT_CAT_(a, b)
#define FXT_HEAD(...) FXT_HEAD_(__VA_ARGS__, ~)
#define FXT_HEAD_(h, ...) h
/* An undefined FXT_NP_<n> or FXT_E_<n> in an error means a name without a value or more
 * than 15 arguments. */
#define FXT_NPAIRS(...) FXT_CAT(FXT_NP_, FXT_NARGS(__VA_ARGS__))
#define FXT_EACH(M, a, ...) FXT_CAT(FXT_E_, FXT_NARGS(__VA_ARGS__))(M, a, __VA_ARGS__)
#define FXT_ARGS_DECL(v, ...) \
	FXT_CAT(FXT_AD_, FXT_CAT(FXT_ANY_, FXT_NARGS(__VA_ARGS__)))(v, __VA_ARGS__)
#define FXT_AD_NONE(v, ...) const struct fxt_targ *v = 0;
#define FXT_AD_SOME(v, ...) const struct fxt_targ v[] = { FXT_EACH(FXT_INIT_, _, __VA_ARGS__) };
#define FXT_INIT_(a, i, n, v) FXT_TARG_(n, v),
#define FXT_SET_(a, i, n, v) a[i] = FXT_TARG_(n, v);
#define FXT_ANY_1 NONE
#define FXT_ANY_3 SOME
#define FXT_ANY_5 SOME
#define FXT_ANY_7 SOME
#define FXT_ANY_9 SOME
#define FXT_ANY_11 SOME
#define FXT_ANY_13 SOME
#define FXT_ANY_15 SOME
#define FXT_ANY_17 SOME
#define FXT_ANY_19 SOME
#define FXT_ANY_21 SOME
#define FXT_ANY_23 SOME
#define FXT_ANY_25 SOME
#define FXT_ANY_27 SOME
#define FXT_ANY_29 SOME
#define FXT_ANY_31 SOME
#define FXT_NARGS(...) FXT_NARGS_(__VA_ARGS__, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, \
	22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define FXT_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
	_17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, \
	n, ...) n
#define FXT_NP_1 0
#define FXT_NP_3 1
#define FXT_NP_5 2
#define FXT_NP_7 3
#define FXT_NP_9 4
#define FXT_NP_11 5
#define FXT_NP_13 6
#define FXT_NP_15 7
#define FXT_NP_17 8
#define FXT_NP_19 9
#define FXT_NP_21 10
#define FXT_NP_23 11
#define FXT_NP_25 12
#define FXT_NP_27 13
#define FXT_NP_29 14
#define FXT_NP_31 15
#define FXT_E_1(M, a, h)
#define FXT_E_3(M, a, h, n0, v0) \
	M(a, 0, n0, v0)
#define FXT_E_5(M, a, h, n0, v0, n1, v1) \
	M(a, 0, n0, v0) M(a, 1, n1, v1)
#define FXT_E_7(M, a, h, n0, v0, n1, v1, n2, v2) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2)
#define FXT_E_9(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3)
#define FXT_E_11(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4)
#define FXT_E_13(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5)
#define FXT_E_15(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6)
#define FXT_E_17(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7)
#define FXT_E_19(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8)
#define FXT_E_21(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9)
#define FXT_E_23(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9, n10, v10) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9) \
	M(a, 10, n10, v10)
#define FXT_E_25(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9, n10, v10, n11, v11) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9) \
	M(a, 10, n10, v10) M(a, 11, n11, v11)
#define FXT_E_27(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9, n10, v10, n11, v11, n12, v12) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9) \
	M(a, 10, n10, v10) M(a, 11, n11, v11) M(a, 12, n12, v12)
#define FXT_E_29(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9, n10, v10, n11, v11, n12, v12, n13, v13) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9) \
	M(a, 10, n10, v10) M(a, 11, n11, v11) M(a, 12, n12, v12) M(a, 13, n13, v13)
#define FXT_E_31(M, a, h, n0, v0, n1, v1, n2, v2, n3, v3, n4, v4, n5, v5, n6, v6, n7, v7, n8, \
	v8, n9, v9, n10, v10, n11, v11, n12, v12, n13, v13, n14, v14) \
	M(a, 0, n0, v0) M(a, 1, n1, v1) M(a, 2, n2, v2) M(a, 3, n3, v3) M(a, 4, n4, v4) \
	M(a, 5, n5, v5) M(a, 6, n6, v6) M(a, 7, n7, v7) M(a, 8, n8, v8) M(a, 9, n9, v9) \
	M(a, 10, n10, v10) M(a, 11, n11, v11) M(a, 12, n12, v12) M(a, 13, n13, v13) \
	M(a, 14, n14, v14)

/* ---- typed values ---- */
#ifndef __cplusplus

#define FXT_TV_(t, m, x) ((struct fxt_tval){ (t), 0, { .m = (x) } })
#define TA_NULL() FXT_TV_(FXT_TV_NULL, u, 0)
#define TA_BOOL(x) FXT_TV_(FXT_TV_BOOL, u, (x) ? 1u : 0u)
#define TA_INT32(x) FXT_TV_(FXT_TV_INT32, i, (int32_t)(x))
#define TA_UINT32(x) FXT_TV_(FXT_TV_UINT32, u, (uint32_t)(x))
#define TA_INT64(x) FXT_TV_(FXT_TV_INT64, i, (int64_t)(x))
#define TA_UINT64(x) FXT_TV_(FXT_TV_UINT64, u, (uint64_t)(x))
#define TA_DOUBLE(x) FXT_TV_(FXT_TV_DOUBLE, d, (double)(x))
#define TA_STRING(x) ((struct fxt_tval){ FXT_TV_STRING, FXT_TV_CSTR, { .s = (x) } })
#define TA_POINTER(x) FXT_TV_(FXT_TV_POINTER, u, (uint64_t)(uintptr_t)(x))
#define TA_KOID(x) FXT_TV_(FXT_TV_KOID, u, (uint64_t)(x))
#define FXT_TARG_(n, v) ((struct fxt_targ){ (n), v })

#else /* __cplusplus */

#include <cstddef>
#include <type_traits>

namespace fxt {

FXT_CXX_INLINE_ fxt_tval tv_i(uint32_t type, int64_t i)
{
	fxt_tval r = {};
	r.type = type;
	r.v.i = i;
	return r;
}

FXT_CXX_INLINE_ fxt_tval tv_u(uint32_t type, uint64_t u)
{
	fxt_tval r = {};
	r.type = type;
	r.v.u = u;
	return r;
}

FXT_CXX_INLINE_ fxt_tval tv_d(double d)
{
	fxt_tval r = {};
	r.type = FXT_TV_DOUBLE;
	r.v.d = d;
	return r;
}

FXT_CXX_INLINE_ fxt_tval tv_s(const char *s, uint32_t len)
{
	fxt_tval r = {};
	r.type = FXT_TV_STRING;
	r.len = len;
	r.v.s = s;
	return r;
}

FXT_CXX_INLINE_ fxt_targ arg(const char *n, fxt_tval v)
{
	fxt_targ a;
	a.name = n;
	a.val = v;
	return a;
}

FXT_CXX_INLINE_ fxt_targ arg(const char *n, bool b)
{
	return arg(n, tv_u(FXT_TV_BOOL, b ? 1 : 0));
}

FXT_CXX_INLINE_ fxt_targ arg(const char *n, std::nullptr_t)
{
	return arg(n, tv_u(FXT_TV_NULL, 0));
}

FXT_CXX_INLINE_ fxt_targ arg(const char *n, const char *s)
{
	return arg(n, tv_s(s, FXT_TV_CSTR));
}

template <class T>
FXT_CXX_INLINE_
	typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value,
				fxt_targ>::type
arg(const char *n, T x)
{
	static_assert(sizeof(T) <= 8, "integer arguments are at most 64 bits");
	if (std::is_signed<T>::value)
		return arg(n, tv_i(sizeof(T) <= 4 ? FXT_TV_INT32 : FXT_TV_INT64, (int64_t)x));
	return arg(n, tv_u(sizeof(T) <= 4 ? FXT_TV_UINT32 : FXT_TV_UINT64, (uint64_t)x));
}

template <class T>
FXT_CXX_INLINE_ typename std::enable_if<std::is_enum<T>::value, fxt_targ>::type
arg(const char *n, T x)
{
	return arg(n, static_cast<typename std::underlying_type<T>::type>(x));
}

template <class T>
FXT_CXX_INLINE_ typename std::enable_if<std::is_floating_point<T>::value, fxt_targ>::type
arg(const char *n, T x)
{
	return arg(n, tv_d((double)x));
}

template <class T>
FXT_CXX_INLINE_
	typename std::enable_if<!std::is_same<typename std::remove_cv<T>::type, char>::value,
				fxt_targ>::type
arg(const char *n, T *p)
{
	return arg(n, tv_u(FXT_TV_POINTER, (uint64_t)(uintptr_t)p));
}

/* std::string, std::string_view and the like: bytes and length, no NUL needed. */
template <class S>
FXT_CXX_INLINE_ auto arg(const char *n, const S &s) -> typename std::enable_if<
	std::is_same<typename std::remove_cv<typename std::remove_pointer<decltype(s.data())>::type>::type,
		     char>::value && std::is_integral<decltype(s.size())>::value,
	fxt_targ>::type
{
	size_t len = (size_t)s.size();
	return arg(n, tv_s(s.data(), len < FXT_TV_CSTR ? (uint32_t)len : FXT_TV_CSTR - 1));
}

/* TRACE_DURATION's storage: the scope and its arguments, closed by the destructor. */
template <unsigned N> struct scope_ {
	fxt_scope s;
	fxt_targ a[N + 1];
	FXT_CXX_INLINE_ scope_()
	{
		s.site = nullptr;
	}
	scope_(const scope_ &) = delete;
	scope_ &operator=(const scope_ &) = delete;
	FXT_CXX_INLINE_ ~scope_()
	{
		fxt_scope_end_(&s);
	}
};

} /* namespace fxt */

#define TA_NULL() (::fxt::tv_u(FXT_TV_NULL, 0))
#define TA_BOOL(x) (::fxt::tv_u(FXT_TV_BOOL, (x) ? 1u : 0u))
#define TA_INT32(x) (::fxt::tv_i(FXT_TV_INT32, (int32_t)(x)))
#define TA_UINT32(x) (::fxt::tv_u(FXT_TV_UINT32, (uint32_t)(x)))
#define TA_INT64(x) (::fxt::tv_i(FXT_TV_INT64, (int64_t)(x)))
#define TA_UINT64(x) (::fxt::tv_u(FXT_TV_UINT64, (uint64_t)(x)))
#define TA_DOUBLE(x) (::fxt::tv_d((double)(x)))
#define TA_STRING(x) (::fxt::tv_s((x), FXT_TV_CSTR))
#define TA_POINTER(x) (::fxt::tv_u(FXT_TV_POINTER, (uint64_t)(uintptr_t)(x)))
#define TA_KOID(x) (::fxt::tv_u(FXT_TV_KOID, (uint64_t)(x)))
#define FXT_TARG_(n, v) (::fxt::arg((n), v))

#endif /* __cplusplus */

/* ---- the macros ---- */

/* One event of the given type; ... is the head parameter (ignored) then the pairs. */
#define FXT_EVENT_(type, cat, name, id, ...)                                                 \
	do {                                                                                 \
		static uint64_t fxt_site_[1 + FXT_NPAIRS(__VA_ARGS__)];                      \
		if (fxt_site_on_(fxt_site_, (cat), (name))) {                                \
			FXT_ARGS_DECL(fxt_args_, __VA_ARGS__)                                \
			fxt_api_event(fxt_site_, (cat), (name), (uint64_t)(id), fxt_args_,   \
				      (type) | FXT_NPAIRS(__VA_ARGS__) << 8);                \
		}                                                                            \
	} while (0)

/* v: a unique identifier (expanded before it reaches the pasting macro below). */
#define FXT_DURATION_(v, cat, ...) FXT_DURATION__(v, cat, __VA_ARGS__)
#ifndef __cplusplus
#define FXT_DURATION__(v, cat, ...)                                                          \
	static uint64_t v##_site[1 + FXT_NPAIRS(__VA_ARGS__)];                               \
	struct fxt_targ v##_a[1 + FXT_NPAIRS(__VA_ARGS__)];                                  \
	struct fxt_scope v __attribute__((cleanup(fxt_scope_end_)));                         \
	v.site = 0;                                                                          \
	if (fxt_site_on_(v##_site, (cat), FXT_HEAD(__VA_ARGS__))) {                          \
		FXT_EACH(FXT_SET_, v##_a, __VA_ARGS__)                                       \
		fxt_scope_begin_(&v, v##_site, (cat), FXT_HEAD(__VA_ARGS__), v##_a,          \
				 FXT_NPAIRS(__VA_ARGS__));                                   \
	}
#else
#define FXT_DURATION__(v, cat, ...)                                                          \
	static uint64_t v##_site[1 + FXT_NPAIRS(__VA_ARGS__)];                               \
	::fxt::scope_<FXT_NPAIRS(__VA_ARGS__)> v;                                            \
	if (fxt_site_on_(v##_site, (cat), FXT_HEAD(__VA_ARGS__))) {                          \
		FXT_EACH(FXT_SET_, v.a, __VA_ARGS__)                                         \
		fxt_scope_begin_(&v.s, v##_site, (cat), FXT_HEAD(__VA_ARGS__), v.a,          \
				 FXT_NPAIRS(__VA_ARGS__));                                   \
	}
#endif

#define TRACE_ENABLED() (fxt_on_())
#define TRACE_CATEGORY_ENABLED(cat) (fxt_on_() && fxt_api_category_enabled(cat))

#define TRACE_DURATION(cat, ...) FXT_DURATION_(FXT_CAT(fxt_scope_, __COUNTER__), cat, __VA_ARGS__)
#define TRACE_DURATION_BEGIN(cat, ...) FXT_EVENT_(2, cat, FXT_HEAD(__VA_ARGS__), 0, __VA_ARGS__)
#define TRACE_DURATION_END(cat, ...) FXT_EVENT_(3, cat, FXT_HEAD(__VA_ARGS__), 0, __VA_ARGS__)
#define TRACE_INSTANT(cat, name, ...) \
	FXT_EVENT_(0, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_COUNTER(cat, name, ...) \
	FXT_EVENT_(1, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_ASYNC_BEGIN(cat, name, ...) \
	FXT_EVENT_(5, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_ASYNC_INSTANT(cat, name, ...) \
	FXT_EVENT_(6, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_ASYNC_END(cat, name, ...) \
	FXT_EVENT_(7, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_FLOW_BEGIN(cat, name, ...) \
	FXT_EVENT_(8, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_FLOW_STEP(cat, name, ...) \
	FXT_EVENT_(9, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)
#define TRACE_FLOW_END(cat, name, ...) \
	FXT_EVENT_(10, cat, name, FXT_HEAD(__VA_ARGS__), __VA_ARGS__)

#define TRACE_BLOB(type, name, data, size)                                                   \
	do {                                                                                 \
		static uint64_t fxt_site_[1];                                                \
		if (fxt_site_on_(fxt_site_, 0, (name)))                                      \
			fxt_api_blob(fxt_site_, (name), (type), (data), (size));             \
	} while (0)

#define TRACE_LOG(...)                                                                       \
	do {                                                                                 \
		if (fxt_on_())                                                               \
			fxt_api_log(__VA_ARGS__);                                            \
	} while (0)

#endif /* NTRACE */
#endif /* FXT_TRACE_H */
