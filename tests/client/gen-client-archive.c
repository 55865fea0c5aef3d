/* Writes an FXT archive with known content for the client command tests: two providers (tick
 * rates 1 GHz and 100 MHz), nested complete events, begin/end pairs, instants with scopes,
 * counters, async, flows, log records, process/thread kernel objects, a userspace object named
 * by a pointer argument, every argument type, inline and indexed strings, lock waits, sample
 * slices, a buffer-full report and a record of unknown type. Usage: gen-client-archive OUT;
 * --dups adds a log record's mirrored `log` instant (after a chunk boundary: a thread record)
 * and a repeated process name record.
 * `gen-client-archive --fanout N OUT`: one frame (main) with N + 3000 direct callees and
 * every report section, in chunks of 1000 events each opening with a thread record, written
 * in shuffled order (see fanout()). `--late OUT`: calls written out of the order of their ends
 * (see late()). `--deep N OUT`: N calls nested in each other and in the innermost one a
 * call whose name needs escaping (see deep()). `--migrate OUT`: a thread's context switches
 * on two CPUs, written CPU by CPU out of time order (see migrate()). Encodes with
 * writer/records.h (one helper per shape). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer/records.h"

static uint64_t buf[4096];
static unsigned nw;

/* Accounts for a record a records.h builder wrote at buf + nw (n words, or a negative errno). */
static void put(int n)
{
	if (n <= 0 || nw + (unsigned)n > sizeof(buf) / sizeof(buf[0])) {
		fprintf(stderr, "gen-client-archive: record %u not encodable (%d)\n", nw, n);
		exit(1);
	}
	nw += (unsigned)n;
}

/* An inline string ref of a C string. */
static struct fxt_str N(const char *s)
{
	return fxt_str_inl(s, (uint32_t)strlen(s));
}

static void provider(uint32_t id, const char *name, uint64_t ticks_per_second)
{
	put(fxt_provider_info_write(buf + nw, id, name, (uint32_t)strlen(name)));
	put(fxt_provider_section_write(buf + nw, id));
	put(fxt_init_write(buf + nw, ticks_per_second));
}

static void string_rec(uint16_t index, const char *s)
{
	put(fxt_string_write(buf + nw, index, s, (uint32_t)strlen(s)));
}

static void thread_rec(uint8_t index, uint64_t pid, uint64_t tid)
{
	put(fxt_thread_write(buf + nw, index, pid, tid));
}

/* An event on an indexed thread (thread != 0) or inline koids (thread == 0: pid/tid), with an
 * indexed category and name (ref < 0x8000) or an inline name (name_s != NULL). extra: the
 * event-type word (end time, counter/async/flow id), unused for instant/begin/end. */
static void event(unsigned et, uint8_t thread, uint64_t pid, uint64_t tid, uint16_t cat,
		  uint16_t name, const char *name_s, uint64_t ts, const struct fxt_warg *a,
		  unsigned na, uint64_t extra)
{
	struct fxt_event e = {
		.type = et,
		.thread = thread ? fxt_thread_idx(thread) : fxt_thread_inl(pid, tid),
		.category = fxt_str_idx(cat),
		.name = name_s ? N(name_s) : fxt_str_idx(name),
		.ts = ts,
		.args = a,
		.nargs = na,
		.extra = extra,
	};
	put(fxt_event_write(buf + nw, &e));
}

#define X(thread, name, s, e) event(FXT_ET_DURATION_COMPLETE, thread, 0, 0, S_FN, name, NULL, s, NULL, 0, e)
#define ARGS(...) (struct fxt_warg[]){ __VA_ARGS__ }

static void kobj(unsigned type, uint64_t koid, const char *name, const struct fxt_warg *a,
		 unsigned na)
{
	struct fxt_kobj o = { .obj_type = type, .koid = koid, .name = N(name), .args = a,
			      .nargs = na };
	put(fxt_kobj_write(buf + nw, &o));
}

static void log_rec(uint8_t thread, uint64_t ts, const char *msg)
{
	struct fxt_log l = { .thread = fxt_thread_idx(thread), .ts = ts, .msg = msg,
			     .len = (uint32_t)strlen(msg) };
	put(fxt_log_write(buf + nw, &l));
}

static void uobj(uint8_t thread, uint64_t ptr, const char *name)
{
	struct fxt_uobj o = { .pointer = ptr, .process = fxt_thread_idx(thread), .name = N(name) };
	put(fxt_uobj_write(buf + nw, &o));
}

enum { S_FN = 1, S_MAIN, S_A, S_B, S_C, S_LOCK, S_WAIT, S_SAMPLE, S_HOT, S_COLD, S_EV, S_REQ,
       S_OUTER, S_INNER, S_CNT, S_LOGCAT, S_STDERR };

/* Appends one complete event of thread index 1 to the fanout stream. */
static uint64_t *fo_words;
static size_t fo_n, fo_cap;
static uint32_t *fo_chunks, fo_nchunks, fo_in_chunk;

static void fo_event(uint16_t cat, uint16_t name, uint64_t s, uint64_t e,
		     const struct fxt_warg *a, unsigned na)
{
	struct fxt_event ev = {
		.type = FXT_ET_DURATION_COMPLETE, .thread = fxt_thread_idx(1),
		.category = fxt_str_idx(cat), .name = fxt_str_idx(name), .ts = s, .args = a,
		.nargs = na, .extra = e,
	};
	if (fo_n + 64 > fo_cap) { /* chunks: at most one per 3 words */
		fo_cap = fo_cap ? fo_cap * 2 : 1 << 20;
		fo_words = realloc(fo_words, fo_cap * 8);
		fo_chunks = realloc(fo_chunks, (fo_cap / 4 + 1024) * 4);
		if (!fo_words || !fo_chunks)
			exit(1);
	}
	if (!fo_in_chunk++) { /* a chunk opens with its thread's record */
		fo_chunks[fo_nchunks++] = (uint32_t)fo_n;
		fo_n += (size_t)fxt_thread_write(fo_words + fo_n, 1, 3000, 3001);
	}
	fo_in_chunk %= 1000;
	int w = fxt_event_write(fo_words + fo_n, &ev);
	if (w <= 0)
		exit(1);
	fo_n += (size_t)w;
}

/* Process 3000, thread 3001: main[0, 10n+200] calls leaf i at [100+10i, 105+10i] (each
 * 1000th calls inner), G around leaves n/2 .. n/2+2999, and in the gaps after leaf n/4 a
 * pthread_create span, after n/3 a tracer stall, after 2n/3 two join waits on threads both
 * named zstd. Chunks are written even ones first, then odd ones. */
static int fanout(uint64_t n, const char *out)
{
	enum { F_FN = 1, F_MAIN, F_LEAF, F_INNER, F_G, F_LOCK, F_JOIN, F_FXT, F_POP, F_PT,
	       F_CREATE, F_LABEL, F_OBJ, F_ZSTD };
	static const char *const strs[] = { NULL, "fn", "main", "leaf", "inner", "G", "lock",
		"join", "fxtauto", "populate", "pthread", "pthread_create", "label", "object",
		"zstd" };
	const uint64_t g0 = n / 2, g1 = n / 2 + 3000;
	FILE *f = fopen(out, "wb");

	nw = 0;
	put(fxt_magic_write(buf + nw));
	provider(3, "fanout", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]); i++)
		string_rec(i, strs[i]);
	kobj(FXT_OBJ_TYPE_PROCESS, 3000, "fanout", NULL, 0);
	if (!f || fwrite(buf, 8, nw, f) != nw)
		return 1;
	for (uint64_t i = 0; i < n + 3000; i++) {
		uint64_t t = 100 + 10 * i;
		if (i % 1000 == 0)
			fo_event(F_FN, F_INNER, t + 1, t + 3, NULL, 0);
		fo_event(F_FN, F_LEAF, t, t + 5, NULL, 0);
		if (i == n / 4)
			fo_event(F_PT, F_CREATE, t + 6, t + 8, NULL, 0);
		if (i == n / 3)
			fo_event(F_FXT, F_POP, t + 6, t + 8, NULL, 0);
		if (i == 2 * n / 3) {
			fo_event(F_LOCK, F_JOIN, t + 6, t + 7, ARGS(fxt_arg_string(fxt_str_idx(F_LABEL),
				 fxt_str_idx(F_ZSTD)), fxt_arg_pointer(fxt_str_idx(F_OBJ), 0x7f00)), 2);
			fo_event(F_LOCK, F_JOIN, t + 7, t + 9, ARGS(fxt_arg_string(fxt_str_idx(F_LABEL),
				 fxt_str_idx(F_ZSTD)), fxt_arg_pointer(fxt_str_idx(F_OBJ), 0x7e00)), 2);
		}
		if (i + 1 == g1)
			fo_event(F_FN, F_G, 10 * g0 + 97, t + 7, NULL, 0);
	}
	fo_event(F_FN, F_MAIN, 0, 10 * n + 30200, NULL, 0);
	for (int odd = 0; odd < 2; odd++)
		for (uint32_t c = (uint32_t)odd; c < fo_nchunks; c += 2) {
			size_t end = c + 1 < fo_nchunks ? fo_chunks[c + 1] : fo_n;
			if (fwrite(fo_words + fo_chunks[c], 8, end - fo_chunks[c], f) !=
			    end - fo_chunks[c])
				return 1;
		}
	free(fo_words);
	free(fo_chunks);
	return fclose(f) ? 1 : 0;
}

/* Process 4000, thread 4001, calls written out of their order of ends, as the preload writes
 * them at times: a tracer stall taken by the exit of f, written before f's event; calls of a
 * signal handler whose names were deferred, written after the call they interrupted (g, whose
 * event comes before theirs though it encloses them). By time: main{f [stall] g{h h}}. */
static int late(const char *out)
{
	static const char *const strs[] = { NULL, "fn", "main", "f", "g", "h", "fxtauto",
					    "take chunk" };
	enum { L_FN = 1, L_MAIN, L_F, L_G, L_H, L_FXT, L_TAKE };
	FILE *f;

	put(fxt_magic_write(buf + nw));
	provider(1, "gen-late", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]); i++)
		string_rec((uint16_t)i, strs[i]);
	kobj(FXT_OBJ_TYPE_PROCESS, 4000, "late", NULL, 0);
	thread_rec(1, 4000, 4001);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FXT, L_TAKE, NULL, 210, NULL, 0, 300);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FN, L_F, NULL, 100, NULL, 0, 200);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FN, L_G, NULL, 400, NULL, 0, 800);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FN, L_H, NULL, 500, NULL, 0, 550);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FN, L_H, NULL, 600, NULL, 0, 650);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, L_FN, L_MAIN, NULL, 0, NULL, 0, 1000);
	if (!(f = fopen(out, "wb")) || fwrite(buf, 8, nw, f) != nw || fclose(f)) {
		fprintf(stderr, "gen-client-archive: cannot write %s\n", out);
		return 1;
	}
	return 0;
}

/* Process 5000 "deep", thread 5001: calls r nested n deep (call i from i to 2n + 1 - i ns),
 * and in the innermost one a call from n to n + 1 named "semi;colon <&> \xff" (a separator,
 * XML's specials and a byte that is not UTF-8). Written innermost first (in order of ends),
 * the buffer emptied into the file as it fills. */
static int deep(uint64_t n, const char *out)
{
	static const char *const strs[] = { NULL, "fn", "r" };
	FILE *f = fopen(out, "wb");

	if (!f) {
		fprintf(stderr, "gen-client-archive: cannot write %s\n", out);
		return 1;
	}
	put(fxt_magic_write(buf + nw));
	provider(1, "gen-deep", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]); i++)
		string_rec((uint16_t)i, strs[i]);
	kobj(FXT_OBJ_TYPE_PROCESS, 5000, "deep", NULL, 0);
	thread_rec(1, 5000, 5001);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, 1, 0, "semi;colon <&> \xff", n, NULL, 0, n + 1);
	for (uint64_t i = n; i-- > 0;) {
		if (nw > sizeof(buf) / sizeof(buf[0]) - 64) {
			if (fwrite(buf, 8, nw, f) != nw)
				break;
			nw = 0;
		}
		event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, 1, 2, NULL, i, NULL, 0, 2 * n + 1 - i);
	}
	if ((fwrite(buf, 8, nw, f) != nw) | fclose(f)) {
		fprintf(stderr, "gen-client-archive: cannot write %s\n", out);
		return 1;
	}
	return 0;
}

/* A context switch on cpu at ts: thread out leaves in state (1 preempted, 3 blocked), in takes
 * the CPU (0: none). */
static void cswitch(unsigned cpu, uint64_t ts, uint64_t out, unsigned state, uint64_t in)
{
	struct fxt_cswitch s = { .cpu = cpu, .out_state = state, .ts = ts, .out_tid = out,
				 .in_tid = in };
	put(fxt_cswitch_write(buf + nw, &s));
}

/* Process 5000, thread 5001: main{f g} at 1000..2000 ns, off CPU [1300, 1400) (preempted, on
 * CPU 1 both times) and [1700, 1800) (blocked on CPU 1, back on CPU 0), the switches written
 * as a tracer drains per-CPU buffers: CPU 1 up to 1300, then CPU 0, then CPU 1's rest. Taking
 * switches in the order read pairs the switch out at 1300 with the switch in at 1800 (an
 * off-CPU stretch over g, which ran then). */
static int migrate(const char *out)
{
	static const char *const strs[] = { NULL, "fn", "main", "f", "g" };
	enum { M_FN = 1, M_MAIN, M_F, M_G };
	FILE *f;

	put(fxt_magic_write(buf + nw));
	provider(1, "gen-migrate", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]); i++)
		string_rec((uint16_t)i, strs[i]);
	kobj(FXT_OBJ_TYPE_PROCESS, 5000, "migrate", NULL, 0);
	kobj(FXT_OBJ_TYPE_THREAD, 5001, "mover", ARGS(fxt_arg_koid(N("process"), 5000)), 1);
	thread_rec(1, 5000, 5001);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, M_FN, M_F, NULL, 1100, NULL, 0, 1200);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, M_FN, M_G, NULL, 1500, NULL, 0, 1600);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, M_FN, M_MAIN, NULL, 1000, NULL, 0, 2000);
	cswitch(1, 900, 0, 0, 5001);
	cswitch(1, 1300, 5001, 1, 0);
	cswitch(0, 1800, 0, 0, 5001);
	cswitch(0, 2100, 5001, 3, 0);
	cswitch(1, 1400, 0, 0, 5001);
	cswitch(1, 1700, 5001, 3, 0);
	if (!(f = fopen(out, "wb")) || fwrite(buf, 8, nw, f) != nw || fclose(f)) {
		fprintf(stderr, "gen-client-archive: cannot write %s\n", out);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const strs[] = { NULL, "fn", "main", "a", "b", "c", "lock",
		"pthread_mutex_lock", "sample", "hot", "cold", "ev", "request", "outer", "inner",
		"memory", "log", "stderr" };
	const uint64_t T = 1000000; /* provider 1 times start at 1 ms */
	FILE *f;

	int dups = argc == 3 && !strcmp(argv[1], "--dups");

	if (argc == 4 && !strcmp(argv[1], "--fanout"))
		return fanout(strtoull(argv[2], NULL, 10), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--late"))
		return late(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--deep"))
		return deep(strtoull(argv[2], NULL, 10), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--migrate"))
		return migrate(argv[2]);
	if (dups)
		argv++;
	else if (argc != 2) {
		fprintf(stderr, "usage: gen-client-archive [--dups | --fanout N | --late | --deep N | "
			"--migrate] OUT\n");
		return 2;
	}
	put(fxt_magic_write(buf + nw));
	/* ---- provider 1 "gen-a": pid 1000, threads 1001, 1002 (indexed), 1003 (inline) ---- */
	provider(1, "gen-a", 1000000000);
	for (unsigned i = 1; i < sizeof(strs) / sizeof(strs[0]) - (dups ? 0 : 2); i++)
		string_rec(i, strs[i]);
	thread_rec(1, 1000, 1001);
	thread_rec(2, 1000, 1002);
	kobj(FXT_OBJ_TYPE_PROCESS, 1000, "gen-proc", NULL, 0);
	kobj(FXT_OBJ_TYPE_THREAD, 1001, "main-thread", ARGS(fxt_arg_koid(N("process"), 1000)), 1);
	kobj(FXT_OBJ_TYPE_THREAD, 1002, "worker \"2\"", ARGS(fxt_arg_koid(N("process"), 1000)), 1);
	uobj(1, 0x1000, "queue_lock");
	/* thread 1001, post-order: main{ a{b b} a c{a} wait } */
	X(1, S_B, T + 20, T + 50);
	X(1, S_B, T + 60, T + 100);
	X(1, S_A, T + 10, T + 200);
	X(1, S_A, T + 300, T + 400);
	event(FXT_ET_FLOW_BEGIN, 1, 0, 0, S_FN, S_REQ, NULL, T + 520, NULL, 0, 9);
	X(1, S_A, T + 510, T + 520);
	X(1, S_C, T + 500, T + 900);
	event(FXT_ET_DURATION_COMPLETE, 1, 0, 0, S_LOCK, S_WAIT, NULL, T + 910, ARGS(fxt_arg_pointer(N("mutex"), 0x1000)), 1, T + 960);
	X(1, S_MAIN, T, T + 1000);
	/* instants, counters, async, log, every argument type */
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, S_EV, NULL, T + 1100, ARGS(fxt_arg_string(N("scope"), N("global"))), 1, 0);
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, S_EV, NULL, T + 1101, ARGS(fxt_arg_string(N("scope"), N("process"))), 1, 0);
	event(FXT_ET_INSTANT, 1, 0, 0, S_FN, 0, "tab\there \"q\" \x01 bad\xff\xfe utf8 \xc3\xa9", T + 1102, ARGS(
		fxt_arg_null(N("nothing")),
		fxt_arg_int32(N("i32"), -5),
		fxt_arg_uint32(N("u32"), 4000000000u),
		fxt_arg_int64(N("i64"), -9000000000LL),
		fxt_arg_uint64(N("u64"), 18000000000000000000ULL),
		fxt_arg_double(N("dbl"), 3.5),
		fxt_arg_string(N("str"), N("line\nbreak \\ back")),
		fxt_arg_pointer(N("obj"), 0x1000),
		fxt_arg_pointer(N("raw"), 0xdead),
		fxt_arg_koid(N("koid"), 1001),
		fxt_arg_bool(N("flag"), 1)), 11, 0);
	event(FXT_ET_COUNTER, 1, 0, 0, S_FN, S_CNT, NULL, T + 1200, ARGS(
		fxt_arg_int64(N("used"), 4096), fxt_arg_double(N("ratio"), 0.5),
		fxt_arg_string(N("note"), N("not a series"))), 3, 0);
	event(FXT_ET_COUNTER, 1, 0, 0, S_FN, S_CNT, NULL, T + 1300, ARGS(fxt_arg_int64(N("used"), 8192)), 1, 5);
	event(FXT_ET_ASYNC_BEGIN, 1, 0, 0, S_FN, S_REQ, NULL, T + 1400, NULL, 0, 7);
	event(FXT_ET_ASYNC_INSTANT, 2, 0, 0, S_FN, S_REQ, NULL, T + 1450, NULL, 0, 7);
	event(FXT_ET_ASYNC_END, 2, 0, 0, S_FN, S_REQ, NULL, T + 1500, NULL, 0, 7);
	log_rec(1, T + 1600, "hello from main");
	if (dups) {
		/* the instant a writer adds after each log record for Perfetto (JSON leaves it
		 * out), here at the start of the thread's next chunk, and the process named again
		 * (as the manager and the process both do) */
		thread_rec(1, 1000, 1001);
		event(FXT_ET_INSTANT, 1, 0, 0, S_LOGCAT, S_STDERR, NULL, T + 1600, ARGS(
			fxt_arg_string(N("message"), N("hello from main"))), 1, 0);
		kobj(FXT_OBJ_TYPE_PROCESS, 1000, "gen-proc", NULL, 0);
	}
	log_rec(2, T + 1700, "worker says \"hi\"");
	/* thread 1002: begin/end pairs with a flow step and end inside, and a lock wait */
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_FN, S_OUTER, NULL, T + 100, NULL, 0, 0);
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_FN, S_INNER, NULL, T + 150, NULL, 0, 0);
	event(FXT_ET_FLOW_STEP, 2, 0, 0, S_FN, S_REQ, NULL, T + 160, NULL, 0, 9);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_FN, S_INNER, NULL, T + 250, NULL, 0, 0);
	event(FXT_ET_DURATION_BEGIN, 2, 0, 0, S_LOCK, S_WAIT, NULL, T + 260, ARGS(fxt_arg_string(N("object"), N("queue_lock"))), 1, 0);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_LOCK, S_WAIT, NULL, T + 300, NULL, 0, 0);
	event(FXT_ET_FLOW_END, 2, 0, 0, S_FN, S_REQ, NULL, T + 310, NULL, 0, 9);
	event(FXT_ET_DURATION_END, 2, 0, 0, S_FN, S_OUTER, NULL, T + 400, NULL, 0, 0);
	/* thread 1003 inline: an inline-named call and sampled slices */
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_FN, 0, "inline_fn", T + 50, NULL, 0, T + 80);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_HOT, NULL, T + 100, NULL, 0, T + 300);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_MAIN, NULL, T + 100, NULL, 0, T + 400);
	event(FXT_ET_DURATION_COMPLETE, 0, 1000, 1003, S_SAMPLE, S_COLD, NULL, T + 400, NULL, 0, T + 500);
	put(fxt_provider_event_write(buf + nw, 1, FXT_PE_BUFFER_OVERFLOW));
	/* a record of unknown type 10 (2 words): readers skip it */
	buf[nw] = fxt_record_hdr(10, 2);
	buf[nw + 1] = 0x1234;
	nw += 2;
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
