/* Writes an FXT archive with known content for the client command tests: two providers (tick
 * rates 1 GHz and 100 MHz), nested complete events, begin/end pairs, instants with scopes,
 * counters, async, flows, log records, process/thread kernel objects, a userspace object named
 * by a pointer argument, every argument type, inline and indexed strings, lock waits, sample
 * slices, a buffer-full report and a record of unknown type. Usage: gen-client-archive OUT.
 * Encodes with writer/fields.h only (one helper per record shape). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "writer/fields.h"

static uint64_t buf[4096];
static unsigned nw;

static void w64(uint64_t v)
{
	buf[nw++] = v;
}

/* Appends a zero-padded byte stream. */
static void wbytes(const char *s, size_t n)
{
	memset(&buf[nw], 0, fxt_pad_words((uint32_t)n) * 8);
	memcpy(&buf[nw], s, n);
	nw += fxt_pad_words((uint32_t)n);
}

/* Finishes the record that started at word `at`: size and type into its header. */
static void close_rec(unsigned at, unsigned type)
{
	buf[at] |= fxt_field_prep(FXT_RECORD_TYPE, type) | fxt_field_prep(FXT_RECORD_SIZE, nw - at);
}

static void meta(unsigned mtype, uint64_t fields, const char *name)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_META_TYPE, mtype) | fields);
	if (name)
		wbytes(name, strlen(name));
	close_rec(at, FXT_RT_METADATA);
}

static void provider(uint32_t id, const char *name, uint64_t ticks_per_second)
{
	unsigned at;
	meta(FXT_MT_PROVIDER_INFO, fxt_field_prep(FXT_META_PROVIDER_ID, id) |
		fxt_field_prep(FXT_META_NAME_LEN, strlen(name)), name);
	meta(FXT_MT_PROVIDER_SECTION, fxt_field_prep(FXT_META_PROVIDER_ID, id), NULL);
	at = nw;
	w64(0);
	w64(ticks_per_second);
	close_rec(at, FXT_RT_INITIALIZATION);
}

static void string_rec(unsigned index, const char *s)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_STRING_INDEX, index) | fxt_field_prep(FXT_STRING_LEN, strlen(s)));
	wbytes(s, strlen(s));
	close_rec(at, FXT_RT_STRING);
}

static void thread_rec(unsigned index, uint64_t pid, uint64_t tid)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_THREAD_INDEX, index));
	w64(pid);
	w64(tid);
	close_rec(at, FXT_RT_THREAD);
}

/* An argument with an inline name: (type, name, value). Strings are inline too. */
struct arg {
	unsigned type;
	const char *name;
	uint64_t v;
	const char *s;
};

static void args(const struct arg *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned at = nw;
		size_t nl = strlen(a[i].name), sl = a[i].s ? strlen(a[i].s) : 0;
		uint64_t hi = 0;
		if (a[i].type == FXT_AT_INT32 || a[i].type == FXT_AT_UINT32)
			hi = fxt_field_prep(FXT_ARG_VALUE32, a[i].v);
		else if (a[i].type == FXT_AT_BOOL)
			hi = fxt_field_prep(FXT_ARG_BOOL, a[i].v);
		else if (a[i].type == FXT_AT_STRING)
			hi = fxt_field_prep(FXT_ARG_STRING_REF, FXT_STRREF_INLINE | sl);
		w64(fxt_field_prep(FXT_ARG_TYPE, a[i].type) |
		    fxt_field_prep(FXT_ARG_NAME_REF, FXT_STRREF_INLINE | nl) | hi);
		wbytes(a[i].name, nl);
		if (a[i].type >= FXT_AT_INT64 && a[i].type <= FXT_AT_DOUBLE)
			w64(a[i].v);
		if (a[i].type == FXT_AT_POINTER || a[i].type == FXT_AT_KOID)
			w64(a[i].v);
		if (a[i].type == FXT_AT_STRING)
			wbytes(a[i].s, sl);
		buf[at] |= fxt_field_prep(FXT_ARG_SIZE, nw - at);
	}
}

/* An event on an indexed thread (thread != 0) or inline koids (thread == 0: pid/tid), with an
 * indexed category and name (ref < 0x8000) or an inline name (name_s != NULL). extra: the
 * event-type word (end time, counter/async/flow id) or none for instant/begin/end. */
static void event(unsigned et, unsigned thread, uint64_t pid, uint64_t tid, unsigned cat,
		  unsigned name, const char *name_s, uint64_t ts, const struct arg *a, unsigned na,
		  uint64_t extra)
{
	unsigned at = nw;
	unsigned nref = name_s ? (FXT_STRREF_INLINE | (unsigned)strlen(name_s)) : name;
	w64(fxt_field_prep(FXT_EVENT_TYPE, et) | fxt_field_prep(FXT_EVENT_ARG_CNT, na) |
	    fxt_field_prep(FXT_EVENT_THREAD_REF, thread) | fxt_field_prep(FXT_EVENT_CATEGORY_REF, cat) |
	    fxt_field_prep(FXT_EVENT_NAME_REF, nref));
	w64(ts);
	if (!thread) {
		w64(pid);
		w64(tid);
	}
	if (name_s)
		wbytes(name_s, strlen(name_s));
	args(a, na);
	if (et == FXT_ET_COUNTER || et >= FXT_ET_DURATION_COMPLETE)
		w64(extra);
	close_rec(at, FXT_RT_EVENT);
}

#define X(thread, name, s, e) event(FXT_ET_DURATION_COMPLETE, thread, 0, 0, S_FN, name, NULL, s, NULL, 0, e)

static void kobj(unsigned type, uint64_t koid, const char *name, const struct arg *a, unsigned na)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_KOBJ_TYPE, type) |
	    fxt_field_prep(FXT_KOBJ_NAME_REF, FXT_STRREF_INLINE | strlen(name)) |
	    fxt_field_prep(FXT_KOBJ_ARG_CNT, na));
	w64(koid);
	wbytes(name, strlen(name));
	args(a, na);
	close_rec(at, FXT_RT_KERNEL_OBJECT);
}

static void log_rec(unsigned thread, uint64_t ts, const char *msg)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_LOG_MSG_LEN, strlen(msg)) | fxt_field_prep(FXT_LOG_THREAD_REF, thread));
	w64(ts);
	wbytes(msg, strlen(msg));
	close_rec(at, FXT_RT_LOG);
}

static void uobj(unsigned thread, uint64_t ptr, const char *name)
{
	unsigned at = nw;
	w64(fxt_field_prep(FXT_UOBJ_THREAD_REF, thread) |
	    fxt_field_prep(FXT_UOBJ_NAME_REF, FXT_STRREF_INLINE | strlen(name)));
	w64(ptr);
	wbytes(name, strlen(name));
	close_rec(at, FXT_RT_USERSPACE_OBJECT);
}

enum { S_FN = 1, S_MAIN, S_A, S_B, S_C, S_LOCK, S_WAIT, S_SAMPLE, S_HOT, S_COLD, S_EV, S_REQ,
       S_OUTER, S_INNER, S_CNT };

int main(int argc, char **argv)
{
	static const char *const strs[] = { NULL, "fn", "main", "a", "b", "c", "lock",
		"pthread_mutex_lock", "sample", "hot", "cold", "ev", "request", "outer", "inner",
		"memory" };
	const uint64_t T = 1000000; /* provider 1 times start at 1 ms */
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-client-archive OUT\n");
		return 2;
	}
	w64(FXT_MAGIC_RECORD);
	/* ---- provider 1 "gen-a": pid 1000, threads 1001, 1002 (indexed), 1003 (inline) ---- */
	provider(1, "gen-a", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]); i++)
		string_rec(i, strs[i]);
	thread_rec(1, 1000, 1001);
	thread_rec(2, 1000, 1002);
	kobj(FXT_OBJ_TYPE_PROCESS, 1000, "gen-proc", NULL, 0);
	kobj(FXT_OBJ_TYPE_THREAD, 1001, "main-thread", (struct arg[]){ { FXT_AT_KOID, "process", 1000, NULL } }, 1);
	kobj(FXT_OBJ_TYPE_THREAD, 1002, "worker \"2\"", (struct arg[]){ { FXT_AT_KOID, "process", 1000, NULL } }, 1);
	uobj(1, 0x1000, "queue_lock");
	/* thread 1001, post-order: main{ a{b b} a c{a} wait } */
	X(1, S_B, T + 20, T + 50);
	X(1, S_B, T + 60, T + 100);
	X(1, S_A, T + 10, T + 200);
	X(1, S_A, T + 300, T + 400);
	event(FXT_ET_FLOW_BEGIN, 1, 0, 0, S_FN, S_REQ, NULL, T + 520, NULL, 0, 9);
	X(1, S_A, T + 510, T + 520);
	X(1, S_C, T + 500, T + 900);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, S_LOCK, S_WAIT, NULL, T + 910, (struct arg[]){
		{ FXT_AT_POINTER, "mutex", 0x1000, NULL } }, 1, T + 960);
	X(1, S_MAIN, T, T + 1000);
	/* instants, counters, async, log, every argument type */
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, S_EV, NULL, T + 1100, (struct arg[]){
		{ FXT_AT_STRING, "scope", 0, "global" } }, 1, 0);
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, S_EV, NULL, T + 1101, (struct arg[]){
		{ FXT_AT_STRING, "scope", 0, "process" } }, 1, 0);
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, 0, "tab\there \"q\" \x01 bad\xff\xfe utf8 \xc3\xa9", T + 1102, (struct arg[]){
		{ FXT_AT_NULL, "nothing", 0, NULL },
		{ FXT_AT_INT32, "i32", (uint32_t)-5, NULL },
		{ FXT_AT_UINT32, "u32", 4000000000u, NULL },
		{ FXT_AT_INT64, "i64", (uint64_t)-9000000000LL, NULL },
		{ FXT_AT_UINT64, "u64", 18000000000000000000ULL, NULL },
		{ FXT_AT_DOUBLE, "dbl", 0x400c000000000000ULL /* 3.5 */, NULL },
		{ FXT_AT_STRING, "str", 0, "line\nbreak \\ back" },
		{ FXT_AT_POINTER, "obj", 0x1000, NULL },
		{ FXT_AT_POINTER, "raw", 0xdead, NULL },
		{ FXT_AT_KOID, "koid", 1001, NULL },
		{ FXT_AT_BOOL, "flag", 1, NULL } }, 11, 0);
	event(FXT_ET_COUNTER, 1, 0, 0, S_FN, S_CNT, NULL, T + 1200, (struct arg[]){
		{ FXT_AT_INT64, "used", 4096, NULL }, { FXT_AT_DOUBLE, "ratio", 0x3fe0000000000000ULL, NULL },
		{ FXT_AT_STRING, "note", 0, "not a series" } }, 3, 0);
	event(FXT_ET_COUNTER, 1, 0, 0, S_FN, S_CNT, NULL, T + 1300, (struct arg[]){
		{ FXT_AT_INT64, "used", 8192, NULL } }, 1, 5);
	event(FXT_ET_ASYNC_BEGIN, 1, 0, 0, S_FN, S_REQ, NULL, T + 1400, NULL, 0, 7);
	event(FXT_ET_ASYNC_INSTANT, 2, 0, 0, S_FN, S_REQ, NULL, T + 1450, NULL, 0, 7);
	event(FXT_ET_ASYNC_END, 2, 0, 0, S_FN, S_REQ, NULL, T + 1500, NULL, 0, 7);
	log_rec(1, T + 1600, "hello from main");
	log_rec(2, T + 1700, "worker says \"hi\"");
	/* thread 1002: begin/end pairs with a flow step and end inside, and a lock wait */
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_FN, S_OUTER, NULL, T + 100, NULL, 0, 0);
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_FN, S_INNER, NULL, T + 150, NULL, 0, 0);
	event(FXT_ET_FLOW_STEP, 2, 0, 0, S_FN, S_REQ, NULL, T + 160, NULL, 0, 9);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_FN, S_INNER, NULL, T + 250, NULL, 0, 0);
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_LOCK, S_WAIT, NULL, T + 260, (struct arg[]){
		{ FXT_AT_STRING, "object", 0, "queue_lock" } }, 1, 0);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_LOCK, S_WAIT, NULL, T + 300, NULL, 0, 0);
	event(FXT_ET_FLOW_END, 2, 0, 0, S_FN, S_REQ, NULL, T + 310, NULL, 0, 9);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_FN, S_OUTER, NULL, T + 400, NULL, 0, 0);
	/* thread 1003 inline: an inline-named call and sampled slices */
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_FN, 0, "inline_fn", T + 50, NULL, 0, T + 80);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_HOT, NULL, T + 100, NULL, 0, T + 300);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_MAIN, NULL, T + 100, NULL, 0, T + 400);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_COLD, NULL, T + 400, NULL, 0, T + 500);
	meta(FXT_MT_PROVIDER_EVENT, fxt_field_prep(FXT_META_PROVIDER_ID, 1) |
	     fxt_field_prep(FXT_META_EVENT_ID, FXT_PE_BUFFER_OVERFLOW), NULL);
	w64(fxt_field_prep(FXT_RECORD_TYPE, 10) | fxt_field_prep(FXT_RECORD_SIZE, 2));
	w64(0x1234);
	/* ---- provider 2 "gen-b": pid 2000, 100 MHz ticks (10 ns each), from 2 ms ---- */
	provider(2, "gen-b", 100000000);
	string_rec(1, "fn");
	string_rec(2, "main");
	string_rec(3, "a");
	thread_rec(1, 2000, 2001);
	kobj(FXT_OBJ_TYPE_PROCESS, 2000, "second", NULL, 0);
	X(1, 3, 200010, 200030);
	X(1, 3, 200040, 200041);
	X(1, 2, 200000, 200100);
	if (!(f = fopen(argv[1], "wb")) || fwrite(buf, 8, nw, f) != nw || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
