/* Unit tests of the FXT reader (reader/) and validator: hand-made words from the spec's bit
 * layouts for every record and argument type (F(bit, value) below, not writer/fields.h),
 * writer -> reader round trips, malformed inputs with their documented results, per-provider
 * tables, the semantic rules of fxt_validator, and the canonical text of reader/print.h. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fxt/reader.h"
#include "writer/records.h"

/* A value placed at bit `lo` of a word, as the spec's layouts say. */
#define F(lo, v) ((uint64_t)(v) << (lo))
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAGIC 0x0016547846040010ULL
#define MAXREC 64

static int sv_is(struct fxt_sv sv, const char *s)
{
	return sv.len == strlen(s) && memcmp(sv.s, s, sv.len) == 0;
}

/* Everything one read of an archive gave. */
struct run {
	struct fxt_record rec[MAXREC];
	int n;
	int result;	/* the final fxt_reader_next() result */
	int again;	/* the result of one more call after it */
	struct fxt_read_error err;
	struct fxt_reader_stats stats;
};

static struct run *read_words(const uint64_t *w, size_t bytes, unsigned flags)
{
	static struct run run;
	struct fxt_reader *r;
	memset(&run, 0, sizeof(run));
	if (fxt_reader_open_mem(&r, w, bytes, flags) < 0) {
		run.result = 99;
		return &run;
	}
	while ((run.result = fxt_reader_next(r, &run.rec[run.n < MAXREC - 1 ? run.n : MAXREC - 1])) ==
	       FXT_READ_RECORD)
		run.n++;
	run.again = fxt_reader_next(r, &run.rec[MAXREC - 1]);
	run.err = *fxt_reader_error(r);
	run.stats = *fxt_reader_stats(r);
	fxt_reader_close(r);
	return &run;
}

/* A prefix every hand-made archive starts with: magic, provider 7 "ab", its section, ticks,
 * string 1 = "name", thread 1 = 100/101. */
#define PROLOGUE                                                                                  \
	MAGIC, F(4, 2) | F(16, 1) | F(20, 7) | F(52, 2), 0x6261, F(4, 1) | F(16, 2) | F(20, 7),    \
		F(0, 1) | F(4, 2), 2000000000, F(0, 2) | F(4, 2) | F(16, 1) | F(32, 4), 0x656d616e, \
		F(0, 3) | F(4, 3) | F(16, 1), 100, 101
#define PROLOGUE_RECORDS 6

static void test_magic_bytes(void)
{
	static const unsigned char bytes[8] __attribute__((aligned(8))) = { 0x10, 0x00, 0x04, 0x46,
									    0x78, 0x54, 0x16, 0x00 };
	struct run *run = read_words((const uint64_t *)bytes, 8, FXT_READER_STRICT);
	ok(run->n == 1 && run->result == FXT_READ_END, "the 8 bytes 10 00 04 46 78 54 16 00 are one record, then the end");
	ok(run->rec[0].type == 0 && run->rec[0].u.meta.meta_type == 4 &&
		   run->rec[0].u.meta.trace_info_type == 0 && run->rec[0].u.meta.magic == 0x16547846,
	   "they decode as the magic number record (metadata 4, trace info 0, magic 0x16547846)");
	uint64_t w[1];
	ok(fxt_magic_write(w) == 1 && memcmp(w, bytes, 8) == 0, "the writer's magic record is those bytes");
}

static void test_hand_records(void)
{
	static const uint64_t w[] = {
		PROLOGUE,
		/* 11: provider event 0 (buffer full) */
		F(4, 1) | F(16, 3) | F(20, 7) | F(52, 0),
		/* 12: complete, indexed thread 1 and name 1, empty category */
		F(0, 4) | F(4, 3) | F(16, 4) | F(24, 1) | F(48, 1), 10, 20,
		/* 15: instant, inline thread, inline category "c" and name "inst" */
		F(0, 4) | F(4, 6) | F(16, 0) | F(24, 0) | F(32, 0x8001) | F(48, 0x8004), 30, 200, 201,
		'c', 0x74736e69,
		/* 21: counter id 42 with one int32 arg "name" = -5 */
		F(0, 4) | F(4, 4) | F(16, 1) | F(20, 1) | F(24, 1) | F(48, 1), 40,
		F(0, 1) | F(4, 1) | F(16, 1) | F(32, 0xfffffffbu), 42,
		/* 25: begin, end */
		F(0, 4) | F(4, 2) | F(16, 2) | F(24, 1) | F(48, 1), 50,
		F(0, 4) | F(4, 2) | F(16, 3) | F(24, 1) | F(48, 1), 60,
		/* 29: async begin/instant/end id 5, flow begin/step/end id 6 */
		F(0, 4) | F(4, 3) | F(16, 5) | F(24, 1) | F(48, 1), 61, 5,
		F(0, 4) | F(4, 3) | F(16, 6) | F(24, 1) | F(48, 1), 62, 5,
		F(0, 4) | F(4, 3) | F(16, 7) | F(24, 1) | F(48, 1), 63, 5,
		F(0, 4) | F(4, 3) | F(16, 8) | F(24, 1) | F(48, 1), 64, 6,
		F(0, 4) | F(4, 3) | F(16, 9) | F(24, 1) | F(48, 1), 65, 6,
		F(0, 4) | F(4, 3) | F(16, 10) | F(24, 1) | F(48, 1), 66, 6,
		/* 47: blob "blb", type 1, payload "hello" */
		F(0, 5) | F(4, 3) | F(16, 0x8003) | F(32, 5) | F(48, 1), 0x626c62, 0x6f6c6c6568,
		/* 50: userspace object 0x1000 of inline process 100, name "ob" */
		F(0, 6) | F(4, 4) | F(24, 0x8002), 0x1000, 100, 0x626f,
		/* 54: kernel object thread 101 named "name", arg koid "name" = 100 */
		F(0, 7) | F(4, 4) | F(16, 2) | F(24, 1) | F(40, 1), 101, F(0, 8) | F(4, 2) | F(16, 1), 100,
		/* 58: context switch cpu 3, out state 2, out tid 5, in tid 6 */
		F(0, 8) | F(4, 4) | F(20, 3) | F(36, 2) | F(60, 1), 70, 5, 6,
		/* 62: thread wakeup cpu 1 of tid 9 */
		F(0, 8) | F(4, 3) | F(20, 1) | F(60, 2), 71, 9,
		/* 65: legacy context switch cpu 1, state 3, inline threads, prios 10/20 */
		F(0, 8) | F(4, 6) | F(16, 1) | F(24, 3) | F(44, 10) | F(52, 20) | F(60, 0), 72, 1, 2, 3, 4,
		/* 71: log "hello" on thread 1 */
		F(0, 9) | F(4, 3) | F(16, 5) | F(32, 1), 73, 0x6f6c6c6568,
		/* 74: large blob format 1, category "c", name "n", payload "xyz" */
		F(0, 15) | F(4, 6) | F(36, 0) | F(40, 1), F(0, 0x8001) | F(16, 0x8001), 'c', 'n', 3, 0x7a7978,
		/* 80: large blob format 0, name 1, thread 1, one bool arg, payload 2 bytes */
		F(0, 15) | F(4, 6) | F(40, 0), F(16, 1) | F(32, 1) | F(36, 1), 74,
		F(0, 9) | F(4, 1) | F(16, 1) | F(32, 1), 2, 0x4241,
	};
	struct run *run = read_words(w, sizeof(w), FXT_READER_STRICT);
	struct fxt_record *r = run->rec;
	ok(run->result == FXT_READ_END && run->n == 27, "27 hand-made records decode in strict mode (%d, %s)",
	   run->n, run->err.msg);
	ok(run->stats.unknown_skipped == 0 && run->stats.lenient_fixes == 0 && run->stats.bytes == sizeof(w),
	   "nothing skipped or tolerated, every byte consumed");
	ok(r[1].u.meta.meta_type == 1 && r[1].u.meta.provider_id == 7 && sv_is(r[1].u.meta.name, "ab") &&
		   r[1].offset == 8 && r[1].words == 2,
	   "provider info: id 7, name \"ab\", offset 8, 2 words");
	ok(r[2].u.meta.meta_type == 2 && r[2].provider_id == 7, "provider section 7; records now belong to provider 7");
	ok(r[3].type == 1 && r[3].u.init.ticks_per_second == 2000000000, "initialization: 2e9 ticks per second");
	ok(r[4].type == 2 && r[4].u.string.index == 1 && sv_is(r[4].u.string.str, "name"), "string record 1 = \"name\"");
	ok(r[5].type == 3 && r[5].u.thread.index == 1 && r[5].u.thread.koids.pid == 100 &&
		   r[5].u.thread.koids.tid == 101,
	   "thread record 1 = 100/101");
	ok(r[6].type == 0 && r[6].u.meta.meta_type == 3 && r[6].u.meta.event_id == 0, "provider event: buffer full");
	ok(r[7].u.event.event_type == 4 && r[7].u.event.ts == 10 && r[7].u.event.end_ts == 20 &&
		   r[7].u.event.thread.tid == 101 && sv_is(r[7].u.event.name, "name") &&
		   sv_is(r[7].u.event.category, ""),
	   "complete event: indexed thread and name resolved, empty category, end 20");
	ok(r[8].u.event.event_type == 0 && r[8].u.event.thread.pid == 200 && r[8].u.event.thread.tid == 201 &&
		   sv_is(r[8].u.event.category, "c") && sv_is(r[8].u.event.name, "inst"),
	   "instant event: inline thread 200/201, inline category and name");
	ok(r[9].u.event.event_type == 1 && r[9].u.event.id == 42 && r[9].nargs == 1 &&
		   r[9].args[0].type == 1 && r[9].args[0].v.i64 == -5 && sv_is(r[9].args[0].name, "name"),
	   "counter event: id 42, int32 argument -5 named by index");
	ok(r[10].u.event.event_type == 2 && r[11].u.event.event_type == 3 && r[11].u.event.ts == 60,
	   "duration begin and end");
	int ids = 1;
	for (int i = 0; i < 6; i++)
		ids &= r[12 + i].u.event.event_type == 5u + (unsigned)i && r[12 + i].u.event.id == (i < 3 ? 5u : 6u);
	ok(ids, "async begin/instant/end carry id 5, flow begin/step/end id 6");
	ok(r[18].type == 5 && sv_is(r[18].u.blob.name, "blb") && r[18].u.blob.blob_type == 1 &&
		   r[18].u.blob.size == 5 && memcmp(r[18].u.blob.data, "hello", 5) == 0,
	   "blob: inline name, type 1, 5 payload bytes");
	ok(r[19].type == 6 && r[19].u.uobj.pointer == 0x1000 && r[19].u.uobj.process_koid == 100 &&
		   sv_is(r[19].u.uobj.name, "ob"),
	   "userspace object: pointer, inline process koid, inline name");
	ok(r[20].type == 7 && r[20].u.kobj.obj_type == 2 && r[20].u.kobj.koid == 101 && r[20].nargs == 1 &&
		   r[20].args[0].type == 8 && r[20].args[0].v.u64 == 100,
	   "kernel object: thread 101 with a koid argument");
	ok(r[21].u.sched.sched_type == 1 && r[21].u.sched.cpu == 3 && r[21].u.sched.out_state == 2 &&
		   r[21].u.sched.out_thread.tid == 5 && r[21].u.sched.in_thread.tid == 6 && r[21].u.sched.ts == 70,
	   "context switch: cpu, outgoing state, both tids");
	ok(r[22].u.sched.sched_type == 2 && r[22].u.sched.cpu == 1 && r[22].u.sched.waking_tid == 9,
	   "thread wakeup: cpu and waking tid");
	ok(r[23].u.sched.sched_type == 0 && r[23].u.sched.cpu == 1 && r[23].u.sched.out_state == 3 &&
		   r[23].u.sched.out_thread.pid == 1 && r[23].u.sched.out_thread.tid == 2 &&
		   r[23].u.sched.in_thread.pid == 3 && r[23].u.sched.in_thread.tid == 4 &&
		   r[23].u.sched.out_prio == 10 && r[23].u.sched.in_prio == 20,
	   "legacy context switch: cpu, state, inline threads, priorities");
	ok(r[24].type == 9 && r[24].u.log.ts == 73 && r[24].u.log.thread.tid == 101 && sv_is(r[24].u.log.msg, "hello"),
	   "log record: message and thread");
	ok(r[25].type == 15 && r[25].u.large.format == 1 && sv_is(r[25].u.large.category, "c") &&
		   sv_is(r[25].u.large.name, "n") && r[25].u.large.size == 3 &&
		   memcmp(r[25].u.large.data, "xyz", 3) == 0,
	   "large blob without metadata: category, name, payload");
	ok(r[26].type == 15 && r[26].u.large.format == 0 && sv_is(r[26].u.large.name, "name") &&
		   r[26].u.large.ts == 74 && r[26].u.large.thread.tid == 101 && r[26].nargs == 1 &&
		   r[26].args[0].type == 9 && r[26].args[0].v.boolean == 1 && r[26].u.large.size == 2 &&
		   memcmp(r[26].u.large.data, "AB", 2) == 0,
	   "large blob with metadata: name, timestamp, thread, argument, payload");
	ok(r[26].offset == 80 * 8, "offsets count bytes from the start of the archive");
}

static void test_hand_args(void)
{
	static const uint64_t w[] = {
		PROLOGUE,
		F(0, 4) | F(4, 19) | F(16, 0) | F(20, 10) | F(24, 1) | F(48, 1), 5,
		F(0, 0) | F(4, 1) | F(16, 1),
		F(0, 1) | F(4, 1) | F(16, 1) | F(32, 0xfffffffbu),
		F(0, 2) | F(4, 1) | F(16, 1) | F(32, 0xfffffffbu),
		F(0, 3) | F(4, 2) | F(16, 1), (uint64_t)-7,
		F(0, 4) | F(4, 2) | F(16, 1), 1ULL << 63,
		F(0, 5) | F(4, 2) | F(16, 1), 0x3ff8000000000000ULL,
		F(0, 6) | F(4, 3) | F(16, 0x8001) | F(32, 0x8001), 'k', 'v',
		F(0, 7) | F(4, 2) | F(16, 1), 0xdeadbeef,
		F(0, 8) | F(4, 2) | F(16, 1), 77,
		F(0, 9) | F(4, 1) | F(16, 1) | F(32, 1),
	};
	struct run *run = read_words(w, sizeof(w), FXT_READER_STRICT);
	const struct fxt_record *r = &run->rec[PROLOGUE_RECORDS];
	ok(run->result == FXT_READ_END && run->n == PROLOGUE_RECORDS + 1 && r->nargs == 10,
	   "an event with one argument of each of the 10 types decodes");
	int types = 1;
	for (unsigned i = 0; i < 10; i++)
		types &= r->args[i].type == i;
	ok(types, "arguments keep their order and types 0..9");
	ok(r->args[1].v.i64 == -5 && r->args[2].v.u64 == 0xfffffffbu, "int32 is sign-extended, uint32 is not");
	ok(r->args[3].v.i64 == -7 && r->args[4].v.u64 == 1ULL << 63, "int64 and uint64 values");
	ok(r->args[5].v.dbl == 1.5, "double value 1.5");
	ok(sv_is(r->args[6].name, "k") && sv_is(r->args[6].v.str, "v"), "string argument with inline name and value");
	ok(r->args[7].v.u64 == 0xdeadbeef && r->args[8].v.u64 == 77 && r->args[9].v.boolean == 1,
	   "pointer, koid and bool values");
	ok(sv_is(r->args[0].name, "name"), "argument names resolve through the string table");
}

/* ---- writer -> reader round trips ---- */

static uint64_t arena[4096];
static size_t used;

static void put(int words)
{
	if (words > 0)
		used += (size_t)words;
	else
		ok(0, "writer accepted a record (returned %d)", words);
}

static void test_round_trip(void)
{
	const struct fxt_str nm = fxt_str_idx(1), cat = fxt_str_inl("cat", 3);
	const struct fxt_thread th = fxt_thread_idx(1), thi = fxt_thread_inl(300, 301);
	const struct fxt_warg args[10] = {
		fxt_arg_null(nm),
		fxt_arg_int32(fxt_str_inl("i32", 3), INT32_MIN),
		fxt_arg_uint32(nm, UINT32_MAX),
		fxt_arg_int64(nm, INT64_MIN),
		fxt_arg_uint64(nm, UINT64_MAX),
		fxt_arg_double(nm, -0.25),
		fxt_arg_string(nm, fxt_str_inl("value", 5)),
		fxt_arg_pointer(nm, 0xffff0000),
		fxt_arg_koid(nm, 1234),
		fxt_arg_bool(nm, 1),
	};
	memset(arena, 0, sizeof(arena));
	used = 0;
	put(fxt_magic_write(arena + used));
	put(fxt_provider_info_write(arena + used, 9, "prov", 4));
	put(fxt_provider_section_write(arena + used, 9));
	put(fxt_init_write(arena + used, 1000));
	put(fxt_string_write(arena + used, 1, "fn", 2));
	put(fxt_thread_write(arena + used, 1, 10, 11));
	struct fxt_event evs[11] = {
		fxt_ev_instant(th, cat, nm, 1),	       fxt_ev_counter(thi, cat, nm, 2, 3),
		fxt_ev_begin(th, cat, nm, 3),	       fxt_ev_end(th, cat, nm, 4),
		fxt_ev_complete(th, cat, nm, 5, 6),    fxt_ev_async_begin(th, cat, nm, 6, 8),
		fxt_ev_async_instant(th, cat, nm, 7, 8), fxt_ev_async_end(th, cat, nm, 8, 8),
		fxt_ev_flow_begin(th, cat, nm, 9, 9),  fxt_ev_flow_step(th, cat, nm, 10, 9),
		fxt_ev_flow_end(th, cat, nm, 11, 9),
	};
	evs[0].args = args;
	evs[0].nargs = 10;
	for (int i = 0; i < 11; i++)
		put(fxt_event_write(arena + used, &evs[i]));
	struct fxt_blob blob = { fxt_str_inl("b", 1), FXT_BT_DATA, "payload!", 8 };
	put(fxt_blob_write(arena + used, &blob));
	struct fxt_uobj uobj = { 0xabc, fxt_thread_idx(1), nm, args + 1, 1 };
	put(fxt_uobj_write(arena + used, &uobj));
	struct fxt_kobj kobj = { FXT_OBJ_TYPE_PROCESS, 10, fxt_str_inl("proc", 4), args + 8, 1 };
	put(fxt_kobj_write(arena + used, &kobj));
	struct fxt_cswitch cs = { 7, 3, 100, 11, 12, args + 1, 1 };
	put(fxt_cswitch_write(arena + used, &cs));
	struct fxt_wakeup wk = { 8, 101, 13, NULL, 0 };
	put(fxt_wakeup_write(arena + used, &wk));
	struct fxt_legacy_cswitch lcs = { 2, 4, th, thi, 5, 6, 102 };
	put(fxt_legacy_cswitch_write(arena + used, &lcs));
	struct fxt_log lg = { thi, 103, "a log line", 10 };
	put(fxt_log_write(arena + used, &lg));
	struct fxt_large_blob lb0 = { FXT_LBF_METADATA, cat, nm, th, 104, args + 9, 1, "0123456789", 10 };
	put(fxt_large_blob_write(arena + used, &lb0));
	struct fxt_large_blob lb1 = { FXT_LBF_NO_METADATA, cat, nm, { 0 }, 0, NULL, 0, "abc", 3 };
	put(fxt_large_blob_write(arena + used, &lb1));
	put(fxt_provider_event_write(arena + used, 9, FXT_PE_BUFFER_OVERFLOW));

	struct run *run = read_words(arena, used * 8, FXT_READER_STRICT);
	const struct fxt_record *r = run->rec;
	ok(run->result == FXT_READ_END && run->n == 27, "27 written records read back in strict mode (%d: %s)",
	   run->n, run->err.msg);
	ok(r[1].u.meta.provider_id == 9 && sv_is(r[1].u.meta.name, "prov") && r[3].u.init.ticks_per_second == 1000,
	   "provider info and initialization round-trip");
	ok(sv_is(r[4].u.string.str, "fn") && r[5].u.thread.koids.tid == 11, "string and thread records round-trip");
	const struct fxt_record *e = &r[6];
	int fields = e->nargs == 10;
	for (unsigned i = 0; i < 10 && fields; i++)
		fields &= e->args[i].type == i;
	ok(fields && e->args[1].v.i64 == INT32_MIN && e->args[2].v.u64 == UINT32_MAX &&
		   e->args[3].v.i64 == INT64_MIN && e->args[4].v.u64 == UINT64_MAX && e->args[5].v.dbl == -0.25 &&
		   sv_is(e->args[6].v.str, "value") && e->args[7].v.u64 == 0xffff0000 &&
		   e->args[8].v.u64 == 1234 && e->args[9].v.boolean == 1 && sv_is(e->args[1].name, "i32") &&
		   sv_is(e->args[0].name, "fn"),
	   "every argument type round-trips with its extreme value");
	int evok = 1;
	for (unsigned i = 0; i < 11; i++)
		evok &= r[6 + i].type == FXT_RT_EVENT && r[6 + i].u.event.event_type == i &&
			sv_is(r[6 + i].u.event.category, "cat") && sv_is(r[6 + i].u.event.name, "fn") &&
			r[6 + i].u.event.ts == i + 1;
	ok(evok, "all 11 event types round-trip with category, name and timestamp");
	ok(r[7].u.event.thread.pid == 300 && r[7].u.event.id == 3 && r[6].u.event.thread.tid == 11,
	   "inline and indexed threads, counter id");
	ok(r[10].u.event.end_ts == 6 && r[11].u.event.id == 8 && r[16].u.event.id == 9,
	   "complete end time, async and flow ids");
	ok(r[17].u.blob.size == 8 && memcmp(r[17].u.blob.data, "payload!", 8) == 0, "blob round-trips");
	ok(r[18].u.uobj.pointer == 0xabc && r[18].u.uobj.process_koid == 10 && r[18].nargs == 1,
	   "userspace object round-trips (process from thread ref)");
	ok(r[19].u.kobj.obj_type == 1 && r[19].u.kobj.koid == 10 && sv_is(r[19].u.kobj.name, "proc") &&
		   r[19].args[0].v.u64 == 1234,
	   "kernel object round-trips");
	ok(r[20].u.sched.sched_type == 1 && r[20].u.sched.cpu == 7 && r[20].u.sched.out_state == 3 &&
		   r[20].u.sched.out_thread.tid == 11 && r[20].u.sched.in_thread.tid == 12 && r[20].nargs == 1,
	   "context switch round-trips");
	ok(r[21].u.sched.sched_type == 2 && r[21].u.sched.waking_tid == 13, "thread wakeup round-trips");
	ok(r[22].u.sched.sched_type == 0 && r[22].u.sched.out_thread.tid == 11 &&
		   r[22].u.sched.in_thread.pid == 300 && r[22].u.sched.in_prio == 6,
	   "legacy context switch round-trips");
	ok(sv_is(r[23].u.log.msg, "a log line") && r[23].u.log.thread.tid == 301, "log record round-trips");
	ok(r[24].u.large.format == 0 && r[24].u.large.ts == 104 && r[24].u.large.size == 10 &&
		   r[24].nargs == 1 && memcmp(r[24].u.large.data, "0123456789", 10) == 0,
	   "large blob with metadata round-trips");
	ok(r[25].u.large.format == 1 && r[25].u.large.size == 3 && sv_is(r[25].u.large.name, "fn"),
	   "large blob without metadata round-trips");
}

/* ---- malformed input ---- */

static void test_malformed(void)
{
	static const uint64_t good[] = { PROLOGUE, F(0, 4) | F(4, 3) | F(16, 4) | F(24, 1) | F(48, 1), 1, 2 };
	struct run *run = read_words(good, sizeof(good) - 8, FXT_READER_STRICT);
	ok(run->result == FXT_READ_TRUNCATED && run->n == PROLOGUE_RECORDS && run->err.offset == 11 * 8,
	   "a record cut by the end of the file is TRUNCATED at its offset, whole records before it delivered");
	ok(run->again == FXT_READ_TRUNCATED, "after TRUNCATED every call returns TRUNCATED");
	run = read_words(good, sizeof(good) - 3, FXT_READER_STRICT);
	ok(run->result == FXT_READ_TRUNCATED && run->n == PROLOGUE_RECORDS, "a torn last word is TRUNCATED");
	run = read_words(good, 0, FXT_READER_STRICT);
	ok(run->result == FXT_READ_END && run->n == 0, "an empty input is a clean end with no records");

	uint64_t w[N(good)];
	memcpy(w, good, sizeof(good));
	w[11] = F(0, 4) | F(4, 0);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 88 && run->n == PROLOGUE_RECORDS,
	   "a record of size 0 is CORRUPT at its offset, even in lenient mode (%s)", run->err.msg);
	ok(run->again == FXT_READ_CORRUPT, "after CORRUPT every call returns CORRUPT");
	w[11] = F(0, 4) | F(4, 4095) | F(16, 4) | F(24, 1) | F(48, 1);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_TRUNCATED && run->err.offset == 88, "a size past the end is TRUNCATED at its offset");
	w[11] = F(0, 15) | F(4, 0xffffffffULL);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_TRUNCATED && run->err.offset == 88, "a large record size of 2^32-1 words is checked");

	/* Refs to unregistered strings and threads. */
	memcpy(w, good, sizeof(good));
	w[11] = F(0, 4) | F(4, 3) | F(16, 4) | F(24, 1) | F(48, 2);
	run = read_words(w, sizeof(w), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 88 && strstr(run->err.msg, "string"),
	   "strict: a ref to an unregistered string is an error (%s)", run->err.msg);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_END && run->n == PROLOGUE_RECORDS + 1 && run->stats.lenient_fixes == 1 &&
		   sv_is(run->rec[PROLOGUE_RECORDS].u.event.name, ""),
	   "lenient: the ref reads as the empty string and is counted");
	w[11] = F(0, 4) | F(4, 3) | F(16, 4) | F(24, 2) | F(48, 1);
	run = read_words(w, sizeof(w), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && strstr(run->err.msg, "thread"),
	   "strict: a ref to an unregistered thread is an error (%s)", run->err.msg);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_END && run->stats.lenient_fixes == 1 &&
		   run->rec[PROLOGUE_RECORDS].u.event.thread.tid == 0,
	   "lenient: the thread reads as koids 0/0 and is counted");

	/* Bad UTF-8 in a string record. */
	memcpy(w, good, sizeof(good));
	w[7] = 0x656d61ff;
	run = read_words(w, sizeof(w), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 6 * 8 && strstr(run->err.msg, "UTF-8"),
	   "strict: a string of invalid UTF-8 is an error at its record (%s)", run->err.msg);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_END && run->stats.lenient_fixes == 1, "lenient: invalid UTF-8 is counted");

	/* Non-zero reserved bits: string record bit 63, argument bits of a null argument. */
	memcpy(w, good, sizeof(good));
	w[6] |= F(63, 1);
	run = read_words(w, sizeof(w), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && strstr(run->err.msg, "reserved"),
	   "strict: a reserved bit set is an error (%s)", run->err.msg);
	run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_END && run->stats.lenient_fixes == 1, "lenient: reserved bits are counted");

	/* Arguments: size 0, size too small, size too large, unknown type. */
	uint64_t a[] = { PROLOGUE, F(0, 4) | F(4, 4) | F(16, 0) | F(20, 1) | F(24, 1) | F(48, 1), 1, 0, 0 };
	a[13] = F(0, 3) | F(4, 0) | F(16, 1);
	run = read_words(a, sizeof(a), 0);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 88, "an argument of size 0 is CORRUPT");
	a[13] = F(0, 3) | F(4, 1) | F(16, 1);
	run = read_words(a, sizeof(a), 0);
	ok(run->result == FXT_READ_CORRUPT, "an int64 argument of 1 word (no value word) is CORRUPT");
	a[13] = F(0, 1) | F(4, 2) | F(16, 1);
	run = read_words(a, sizeof(a), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && strstr(run->err.msg, "argument"),
	   "strict: an int32 argument of 2 words is a size mismatch (%s)", run->err.msg);
	run = read_words(a, sizeof(a), 0);
	ok(run->result == FXT_READ_END && run->rec[PROLOGUE_RECORDS].nargs == 1 && run->stats.lenient_fixes == 1,
	   "lenient: the argument is read and the mismatch counted");
	a[13] = F(0, 12) | F(4, 2) | F(16, 1);
	run = read_words(a, sizeof(a), FXT_READER_STRICT);
	ok(run->result == FXT_READ_END && run->rec[PROLOGUE_RECORDS].nargs == 0 && run->stats.unknown_skipped == 1,
	   "an argument of unknown type 12 is skipped by its size and counted");
	run = read_words(a, sizeof(a), FXT_READER_STRICT | FXT_READER_RESERVED);
	ok(run->result == FXT_READ_CORRUPT && strstr(run->err.msg, "argument type 12 is reserved"),
	   "FXT_READER_RESERVED: an argument of type 12 is an error (%s)", run->err.msg);
	a[12] = F(0, 6) | F(4, 2) | F(16, 1) | F(32, 0x8000 | 100);
	a[11] = F(0, 4) | F(4, 3) | F(16, 0) | F(20, 1) | F(24, 1) | F(48, 1);
	run = read_words(a, sizeof(a) - 8, 0);
	ok(run->result == FXT_READ_CORRUPT, "an inline string longer than its argument is CORRUPT");

	/* Unknown record, event, metadata and scheduling types are skipped (lenient). */
	uint64_t u[] = { PROLOGUE, F(0, 12) | F(4, 2), 0xffffffffffffffffULL, F(0, 4) | F(4, 2) | F(16, 13) | F(24, 1), 1,
			 F(0, 0) | F(4, 1) | F(16, 9), F(0, 8) | F(4, 1) | F(60, 7),
			 F(0, 15) | F(4, 2) | F(36, 5), 0,
			 F(0, 4) | F(4, 3) | F(16, 4) | F(24, 1) | F(48, 1), 1, 2 };
	run = read_words(u, sizeof(u), 0);
	ok(run->result == FXT_READ_END && run->n == PROLOGUE_RECORDS + 1 && run->stats.unknown_skipped == 5 &&
		   run->rec[PROLOGUE_RECORDS].offset == 19 * 8 && run->stats.lenient_fixes == 0,
	   "lenient: record type 12, event type 13, metadata type 9, scheduling type 7 and large type 5 "
	   "are skipped and counted; the next record is read");
	run = read_words(u, sizeof(u), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 13 * 8 && run->stats.unknown_skipped == 1 &&
		   strstr(run->err.msg, "undefined event type 13"),
	   "strict: record type 12 is skipped (the spec extends the format with new record types), "
	   "event type 13 is an error (%s)", run->err.msg);
	run = read_words(u, sizeof(u), FXT_READER_STRICT | FXT_READER_RESERVED);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 11 * 8 && run->stats.unknown_skipped == 0 &&
		   strstr(run->err.msg, "record type 12 is reserved"),
	   "FXT_READER_RESERVED: record type 12 is an error (%s)", run->err.msg);

	/* Index 0 string and thread records are ignored. */
	uint64_t z[] = { MAGIC, F(0, 2) | F(4, 2) | F(32, 1), 'x', F(0, 3) | F(4, 3), 1, 2 };
	run = read_words(z, sizeof(z), 0);
	ok(run->result == FXT_READ_END && run->n == 1 && run->stats.lenient_fixes == 2,
	   "lenient: string and thread records for index 0 are ignored (and counted)");
	run = read_words(z, sizeof(z), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 8, "strict: a string record for index 0 is an error");

	/* A record larger than its fields. */
	uint64_t big[] = { MAGIC, F(0, 1) | F(4, 3), 1000, 0 };
	run = read_words(big, sizeof(big), FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 8, "strict: words after a record's fields are an error");
	run = read_words(big, sizeof(big), 0);
	ok(run->result == FXT_READ_END && run->n == 2 && run->stats.lenient_fixes == 1,
	   "lenient: they are skipped with the record and counted");
	ok(fxt_reader_open_mem(&(struct fxt_reader *){ NULL }, (const char *)big + 1, 8, 0) == -EINVAL,
	   "memory that is not 8-byte aligned is refused with -EINVAL");
}

/* ---- what the spec leaves undefined or forbids: STRICT reports it, lenient mode reads on ---- */

/* Reads PROLOGUE + the words of one record, strict and lenient: strict must fail at offset 88
 * with `text` in its message; lenient must read to the end with the record skipped (skipped)
 * or decoded and counted as a fix. */
static void strict_only(const uint64_t *rec, size_t words, const char *text, int skipped,
			const char *claim)
{
	static const uint64_t prologue[] = { PROLOGUE };
	uint64_t w[N(prologue) + 8];
	memcpy(w, prologue, sizeof(prologue));
	memcpy(w + N(prologue), rec, words * 8);
	size_t bytes = (N(prologue) + words) * 8;
	struct run *run = read_words(w, bytes, FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT && run->err.offset == 88 && run->n == PROLOGUE_RECORDS &&
		   strstr(run->err.msg, text),
	   "strict: %s is an error at its offset (%s)", claim, run->err.msg);
	run = read_words(w, bytes, 0);
	ok(run->result == FXT_READ_END &&
		   (skipped ? run->n == PROLOGUE_RECORDS && run->stats.unknown_skipped == 1 &&
				      run->stats.lenient_fixes == 0
			    : run->n == PROLOGUE_RECORDS + 1 && run->stats.lenient_fixes == 1 &&
				      run->stats.unknown_skipped == 0),
	   "lenient: %s is %s", claim, skipped ? "skipped and counted" : "read and counted as a fix");
}

static void test_strict_spec(void)
{
	const uint64_t ev12[] = { F(0, 4) | F(4, 2) | F(16, 12) | F(24, 1) | F(48, 1), 1 };
	strict_only(ev12, N(ev12), "undefined event type 12", 1, "event type 12");
	const uint64_t ev15[] = { F(0, 4) | F(4, 2) | F(16, 15) | F(24, 1) | F(48, 1), 1 };
	strict_only(ev15, N(ev15), "undefined event type 15", 1, "event type 15");
	const uint64_t meta9[] = { F(0, 0) | F(4, 1) | F(16, 9) };
	strict_only(meta9, N(meta9), "undefined metadata type 9", 1, "metadata type 9");
	const uint64_t meta0[] = { F(0, 0) | F(4, 1) | F(16, 0) };
	strict_only(meta0, N(meta0), "undefined metadata type 0", 1, "metadata type 0");
	const uint64_t ti1[] = { F(0, 0) | F(4, 1) | F(16, 4) | F(20, 1) };
	strict_only(ti1, N(ti1), "undefined trace info type 1", 1, "trace info type 1");
	const uint64_t sched7[] = { F(0, 8) | F(4, 1) | F(60, 7) };
	strict_only(sched7, N(sched7), "undefined scheduling record type 7", 1, "scheduling type 7");
	const uint64_t large5[] = { F(0, 15) | F(4, 2) | F(36, 5), 0 };
	strict_only(large5, N(large5), "undefined large record type 5", 1, "large record type 5");
	const uint64_t fmt2[] = { F(0, 15) | F(4, 2) | F(36, 0) | F(40, 2), 0 };
	strict_only(fmt2, N(fmt2), "undefined large blob format 2", 1, "large blob format 2");

	/* Padding after byte streams: "abc" + a stray 'z' in the padding. */
	const uint64_t inl[] = { F(0, 4) | F(4, 3) | F(16, 0) | F(24, 1) | F(48, 0x8000 | 3), 1,
				 0x636261 | F(40, 'z') };
	strict_only(inl, N(inl), "non-zero padding after the 3 bytes of an inline string", 0,
		    "non-zero padding of an inline string");
	const uint64_t inl_arg[] = { F(0, 4) | F(4, 4) | F(16, 0) | F(20, 1) | F(24, 1) | F(48, 1), 1,
				     F(0, 6) | F(4, 2) | F(16, 1) | F(32, 0x8000 | 1), 'x' | F(63, 1) };
	strict_only(inl_arg, N(inl_arg), "padding", 0, "non-zero padding of an inline string argument");
	const uint64_t str[] = { F(0, 2) | F(4, 2) | F(16, 2) | F(32, 5), 0x6f6c6c6568ULL | F(48, 1) };
	strict_only(str, N(str), "non-zero padding after the 5 bytes of a string record", 0,
		    "non-zero padding of a string record");
	const uint64_t log[] = { F(0, 9) | F(4, 3) | F(16, 2) | F(32, 1), 5, 0x6968 | F(16, 0xff) };
	strict_only(log, N(log), "of a log message", 0, "non-zero padding of a log message");
	const uint64_t prov[] = { F(0, 0) | F(4, 2) | F(16, 1) | F(20, 8) | F(52, 1), 'p' | F(8, 1) };
	strict_only(prov, N(prov), "of a provider name", 0, "non-zero padding of a provider name");
	const uint64_t blob[] = { F(0, 5) | F(4, 2) | F(16, 1) | F(32, 2) | F(48, 1), 0x0101 | F(16, 1) };
	strict_only(blob, N(blob), "of a blob payload", 0, "non-zero padding of a blob payload");

	/* Zero padding, and streams that fill their words, are fine. */
	static const uint64_t good[] = { PROLOGUE, F(0, 4) | F(4, 3) | F(16, 0) | F(24, 1) | F(48, 0x8000 | 3), 1,
					 0x636261, F(0, 4) | F(4, 3) | F(16, 0) | F(24, 1) | F(48, 0x8000 | 8), 1,
					 0x6867666564636261ULL };
	struct run *run = read_words(good, sizeof(good), FXT_READER_STRICT);
	ok(run->result == FXT_READ_END && run->n == PROLOGUE_RECORDS + 2 &&
		   sv_is(run->rec[PROLOGUE_RECORDS].u.event.name, "abc") &&
		   sv_is(run->rec[PROLOGUE_RECORDS + 1].u.event.name, "abcdefgh"),
	   "strict: inline strings of 3 bytes zero-padded and of 8 bytes (no padding) are read");
}

/* ---- providers: separate tables, switching at section records ---- */

static void test_providers(void)
{
	static const uint64_t w[] = {
		MAGIC,
		F(4, 2) | F(16, 1) | F(20, 1) | F(52, 1), 'A',		  /* provider info 1 "A" */
		F(0, 1) | F(4, 2), 1000,				  /* 1000 ticks/s */
		F(0, 2) | F(4, 2) | F(16, 1) | F(32, 1), 'a',		  /* string 1 = "a" */
		F(0, 3) | F(4, 3) | F(16, 1), 1, 11,			  /* thread 1 = 1/11 */
		F(4, 2) | F(16, 1) | F(20, 2) | F(52, 1), 'B',		  /* provider info 2 "B" */
		F(0, 2) | F(4, 2) | F(16, 1) | F(32, 1), 'b',		  /* string 1 = "b" */
		F(0, 3) | F(4, 3) | F(16, 1), 2, 22,			  /* thread 1 = 2/22 */
		F(0, 4) | F(4, 2) | F(24, 1) | F(48, 1), 5,		  /* instant in provider 2 */
		F(4, 1) | F(16, 2) | F(20, 1),				  /* section: provider 1 */
		F(0, 4) | F(4, 2) | F(24, 1) | F(48, 1), 6,		  /* instant in provider 1 */
		F(4, 2) | F(16, 1) | F(20, 1) | F(52, 1), 'A',		  /* provider 1 again: afresh */
		F(0, 4) | F(4, 2) | F(24, 1) | F(48, 1), 7,
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	ok(fxt_reader_open_mem(&r, w, sizeof(w), 0) == 0, "open a two-provider archive");
	int n = 0, res;
	struct fxt_record ev[3];
	uint64_t ns = 0;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD)
		if (rec.type == FXT_RT_EVENT && n < 3) {
			ev[n++] = rec;
			if (n == 2)
				ns = fxt_reader_ticks_to_ns(r, 3);
		}
	ok(res == FXT_READ_END && n == 3, "three events read");
	ok(ev[0].provider_id == 2 && sv_is(ev[0].u.event.name, "b") && ev[0].u.event.thread.tid == 22,
	   "provider 2's event resolves through provider 2's tables");
	ok(ev[1].provider_id == 1 && sv_is(ev[1].u.event.name, "a") && ev[1].u.event.thread.tid == 11,
	   "after a section record, provider 1's tables are current again");
	ok(ns == 3000000, "ticks convert with the current provider's 1000 ticks/s");
	ok(ev[2].provider_id == 1 && sv_is(ev[2].u.event.name, "") && fxt_reader_stats(r)->lenient_fixes == 2,
	   "a new provider info record for provider 1 starts its tables afresh");
	ok(sv_is(fxt_reader_provider_name(r, 2), "B") && sv_is(fxt_reader_provider_name(r, 5), ""),
	   "provider names by id; unknown ids give an empty name");
	ok(fxt_reader_ticks_to_ns(r, 3) == 3, "without an initialization record 1 tick is 1 ns");
	fxt_reader_close(r);
}

/* ---- fxtauto's clock record ---- */

/* mono(r, ticks): fxt_reader_mono_ns(), or UINT64_MAX - 1 when the provider has no clock. */
static uint64_t mono(const struct fxt_reader *r, uint64_t ticks)
{
	uint64_t ns;
	return fxt_reader_mono_ns(r, ticks, &ns) ? ns : UINT64_MAX - 1;
}

/* Reads up to the record at byte offset `at`, that one included. */
static void read_to(struct fxt_reader *r, uint64_t at)
{
	struct fxt_record rec;
	while (fxt_reader_next(r, &rec) == FXT_READ_RECORD && rec.offset < at)
		;
}

static void test_clock(void)
{
	const struct fxt_clock_pair none = { 0, 0 };
	uint64_t at[5];	/* where each record a check follows starts */
	memset(arena, 0, sizeof(arena));
	used = 0;
	put(fxt_magic_write(arena + used));
	put(fxt_provider_info_write(arena + used, 1, "p", 1));
	put(fxt_init_write(arena + used, 2000000000));
	at[0] = used * 8;	/* pairs 1e6 ns apart over 3e6 ticks: they win over the rate */
	put(fxt_clock_write(arena + used, (struct fxt_clock_pair){ 1000, 5000 },
			    (struct fxt_clock_pair){ 3001000, 1005000 }));
	put(fxt_provider_info_write(arena + used, 2, "q", 1));
	put(fxt_init_write(arena + used, 2000000000));
	at[1] = used * 8;
	put(fxt_clock_write(arena + used, (struct fxt_clock_pair){ 1000, 5000 }, none));
	at[2] = used * 8;	/* an end pair with ticks 0 (a killed writer's): the rate */
	put(fxt_clock_write(arena + used, (struct fxt_clock_pair){ 1000, 5000 },
			    (struct fxt_clock_pair){ 0, 99999 }));
	at[3] = used * 8;	/* 2^40 ns per tick: the results clamp */
	put(fxt_clock_write(arena + used, (struct fxt_clock_pair){ 1000, 5000 },
			    (struct fxt_clock_pair){ 1001, 5000 + (1ULL << 40) }));
	at[4] = used * 8;
	put(fxt_provider_section_write(arena + used, 1));
	put(fxt_provider_info_write(arena + used, 1, "p", 1));
	put(fxt_provider_event_write(arena + used, 1, FXT_PE_BUFFER_OVERFLOW));

	struct fxt_reader *r;
	ok(fxt_reader_open_mem(&r, arena, used * 8, FXT_READER_STRICT) == 0, "open clock archive");
	read_to(r, 0);
	ok(mono(r, 1000) == UINT64_MAX - 1, "no clock record yet: not CLOCK_MONOTONIC");
	read_to(r, at[0]);
	ok(mono(r, 1000) == 5000 && mono(r, 3001000) == 1005000 && mono(r, 1002) == 5000 &&
		   mono(r, 1003) == 5001 && mono(r, 0) == 4667 && mono(r, 6001000) == 2005000,
	   "two pairs: ticks on the line through them, before, between and after (%llu)",
	   (unsigned long long)mono(r, 0));
	read_to(r, at[1]);
	ok(mono(r, 1000) == 5000 && mono(r, 0) == 4500 && mono(r, 1000 + (1ULL << 63)) ==
								 5000 + (1ULL << 62),
	   "no end pair: from the start pair at the initialization record's rate");
	read_to(r, at[2]);
	ok(mono(r, 3000) == 6000, "an end pair with ticks 0 is not used");
	read_to(r, at[3]);
	ok(mono(r, 1001) == 5000 + (1ULL << 40) && mono(r, 1ULL << 40) == UINT64_MAX &&
		   mono(r, 0) == 0,
	   "results below 0 or past 2^64 - 1 ns clamp");
	read_to(r, at[4]);
	ok(mono(r, 1000) == 5000 && mono(r, 3001000) == 1005000,
	   "back in provider 1's section: its own clock record");
	read_to(r, UINT64_MAX);
	uint64_t ns = 0;
	ok(fxt_reader_mono_ns(r, 3, &ns) == 0 && ns == 3,
	   "a new provider info record for provider 1 drops its clock");
	ok(fxt_reader_error(r)->msg[0] == 0, "strict mode accepts every clock record");
	fxt_reader_close(r);

	/* A blob of that name that is not 32 bytes of type data */
	memset(arena, 0, sizeof(arena));
	used = 0;
	put(fxt_magic_write(arena + used));
	put(fxt_provider_info_write(arena + used, 1, "p", 1));
	uint64_t half[2] = { 1000, 5000 };
	struct fxt_blob b = { fxt_str_inl("fxt-clock", 9), FXT_BT_DATA, half, sizeof(half) };
	put(fxt_blob_write(arena + used, &b));
	struct run *run = read_words(arena, used * 8, FXT_READER_STRICT);
	ok(run->result == FXT_READ_CORRUPT &&
		   !strcmp(run->err.msg,
			   "clock record of 16 bytes, blob type 1 (32 bytes of type 1 expected)"),
	   "strict mode refuses a clock record of another size (%s)", run->err.msg);
	run = read_words(arena, used * 8, 0);
	ok(run->result == FXT_READ_END && run->stats.lenient_fixes == 1,
	   "lenient mode counts it and reads on");

	/* fxt dump's line */
	memset(arena, 0, sizeof(arena));
	used = 0;
	put(fxt_clock_write(arena + used, (struct fxt_clock_pair){ 1, 2 },
			    (struct fxt_clock_pair){ 3, 4 }));
	run = read_words(arena, used * 8, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (run->n == 1)
		fxt_record_print(f, &run->rec[0]);
	fclose(f);
	if (!ok(!strcmp(buf, "00000000 blob type=1 size=32 name=\"fxt-clock\" start_ticks=1 "
			     "start_ns=2 end_ticks=3 end_ns=4\n"),
		"fxt_record_print shows the clock record's readings"))
		printf("# got: %s", buf);
	free(buf);
}

/* ---- files ---- */

static void test_files(void)
{
	struct fxt_reader *r;
	char dir[] = "/tmp/test-reader-XXXXXX";
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	ok(fxt_reader_open(&r, dir, 0) == -EISDIR, "a directory is refused with -EISDIR");
	char path[64];
	snprintf(path, sizeof(path), "%s/missing.fxt", dir);
	ok(fxt_reader_open(&r, path, 0) == -ENOENT, "a missing file is refused with -ENOENT");
	snprintf(path, sizeof(path), "%s/empty.fxt", dir);
	FILE *f = fopen(path, "w");
	fclose(f);
	struct fxt_record rec;
	ok(fxt_reader_open(&r, path, 0) == 0 && fxt_reader_next(r, &rec) == FXT_READ_END,
	   "an empty file opens and reads as a clean end");
	fxt_reader_close(r);
	f = fopen(path, "w");
	static const uint64_t w[] = { PROLOGUE };
	fwrite(w, 1, sizeof(w), f);
	fclose(f);
	int n = 0;
	ok(fxt_reader_open(&r, path, FXT_READER_STRICT) == 0, "a file opens (mapped)");
	while (fxt_reader_next(r, &rec) == FXT_READ_RECORD)
		n++;
	ok(n == PROLOGUE_RECORDS && rec.type == FXT_RT_THREAD, "a mapped file reads like memory");
	ok(fxt_reader_rewind(r) == 0 && fxt_reader_next(r, &rec) == FXT_READ_RECORD && rec.offset == 0 &&
		   fxt_reader_stats(r)->records == 1,
	   "rewind starts over at the magic number record with fresh counters");
	for (n = 1; fxt_reader_next(r, &rec) == FXT_READ_RECORD; n++)
		;
	ok(n == PROLOGUE_RECORDS && sv_is(fxt_reader_provider_name(r, 7), "ab"),
	   "and reads the same records again, tables rebuilt");
	fxt_reader_close(r);
	unlink(path);

	/* A FIFO cannot be mapped: it is read into memory. A writer process fills it in pieces. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ok(mkfifo(path, 0600) == 0, "a FIFO");
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		for (size_t i = 0; i < sizeof(w); i += 24)
			if (write(fd, (const char *)w + i, sizeof(w) - i < 24 ? sizeof(w) - i : 24) < 0)
				_exit(1);
		_exit(0);
	}
	n = 0;
	ok(fxt_reader_open(&r, path, FXT_READER_STRICT) == 0, "a FIFO opens (read into memory)");
	while (fxt_reader_next(r, &rec) == FXT_READ_RECORD)
		n++;
	ok(n == PROLOGUE_RECORDS && fxt_reader_next(r, &rec) == FXT_READ_END &&
		   sv_is(fxt_reader_provider_name(r, 7), "ab"),
	   "a FIFO written in pieces reads like the file");
	fxt_reader_close(r);
	waitpid(pid, NULL, 0);
	unlink(path);
	rmdir(dir);
}

/* ---- validator ---- */

/* Runs the validator over hand-made words; returns its verdict, *off the problem offset. */
/* The warnings of the last validate(): their count and the latest one. */
static uint64_t last_warnings;
static struct fxt_read_error last_warning;

/* 1: validate() gives duration complete events without arguments to
 * fxt_validator_add_complete() (the vetting's way) instead of fxt_validator_add(). */
static int by_complete;

static int validate(const uint64_t *w, size_t bytes, uint64_t *off, char *msg)
{
	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	int err = 0, res;
	if (fxt_reader_open_mem(&r, w, bytes, FXT_READER_STRICT) < 0 || fxt_validator_new(&v) < 0)
		return 99;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD && !err)
		err = by_complete && rec.type == FXT_RT_EVENT && !rec.nargs &&
				      rec.u.event.event_type == FXT_ET_DURATION_COMPLETE
			      ? fxt_validator_add_complete(v, rec.provider_id, rec.u.event.thread,
							   rec.u.event.ts, rec.u.event.end_ts,
							   rec.offset)
			      : fxt_validator_add(v, &rec);
	if (!err)
		err = fxt_validator_finish(v);
	*off = fxt_validator_problem(v)->offset;
	snprintf(msg, 160, "%s", fxt_validator_problem(v)->msg);
	last_warnings = fxt_validator_summary(v)->warnings;
	const struct fxt_read_error *wr = fxt_validator_warning(v);
	last_warning = wr ? *wr : (struct fxt_read_error){ 0, "" };
	fxt_validator_free(v);
	fxt_reader_close(r);
	return res < 0 ? res : err;
}

#define CPL(s, e) F(0, 4) | F(4, 3) | F(16, 4) | F(24, 1) | F(48, 1), s, e
#define DUR(t, ts) F(0, 4) | F(4, 2) | F(16, t) | F(24, 1) | F(48, 1), ts
#define IDE(t, id) F(0, 4) | F(4, 3) | F(16, t) | F(24, 1) | F(48, 1), 1, id

static void test_validator(void)
{
	uint64_t off;
	char msg[160];
	static const uint64_t nested[] = { PROLOGUE, CPL(2, 3), CPL(4, 5), CPL(1, 6), CPL(6, 6), CPL(7, 9),
					   CPL(0, 10), DUR(2, 1), DUR(2, 2), DUR(3, 3), DUR(3, 4) };
	ok(validate(nested, sizeof(nested), &off, msg) == 0, "callees before callers, zero-length and nested "
	   "begin/end events are valid (%s)", msg);
	static const uint64_t same_start[] = { PROLOGUE, CPL(5, 6), CPL(5, 9), CPL(9, 9), CPL(5, 9) };
	ok(validate(same_start, sizeof(same_start), &off, msg) == 0,
	   "a callee starting (or ending) on its caller's tick nests in it (%s)", msg);
	static const uint64_t overlap[] = { PROLOGUE, CPL(2, 5), CPL(4, 8) };
	ok(validate(overlap, sizeof(overlap), &off, msg) == 0 && last_warnings == 1 &&
		   last_warning.offset == 14 * 8 && strstr(last_warning.msg, "overlaps"),
	   "complete events overlapping without nesting are valid (the spec has no nesting rule), "
	   "with a warning at the second one (%s)", last_warning.msg);
	static const uint64_t outer_first[] = { PROLOGUE, CPL(0, 10), CPL(2, 3), CPL(4, 12) };
	ok(validate(outer_first, sizeof(outer_first), &off, msg) == 0 && last_warnings == 1 &&
		   last_warning.offset == 17 * 8,
	   "an event crossing the end of an earlier one is warned about, whatever the order (%s)",
	   last_warning.msg);
	static const uint64_t overlap_then_bad[] = { PROLOGUE, CPL(2, 5), CPL(4, 8), CPL(3, 4),
						     CPL(9, 7) };
	ok(validate(overlap_then_bad, sizeof(overlap_then_bad), &off, msg) == -EBADMSG &&
		   off == 20 * 8 && strstr(msg, "before it starts") && last_warnings == 1,
	   "after an overlap the thread's events still nest in the first one, and a later rule "
	   "still fails (%s)", msg);
	ok(validate(nested, sizeof(nested), &off, msg) == 0 && last_warnings == 0 &&
		   !last_warning.msg[0],
	   "nested and disjoint complete events give no warning");
	static const uint64_t backwards[] = { PROLOGUE, CPL(5, 4) };
	ok(validate(backwards, sizeof(backwards), &off, msg) == -EBADMSG && off == 88 && strstr(msg, "before"),
	   "a complete event ending before its start is invalid (%s)", msg);
	static const uint64_t end_only[] = { PROLOGUE, DUR(3, 1) };
	ok(validate(end_only, sizeof(end_only), &off, msg) == -EBADMSG && off == 88,
	   "a duration end without a begin is invalid (%s)", msg);
	static const uint64_t open_begin[] = { PROLOGUE, DUR(2, 1), DUR(2, 2), DUR(3, 3) };
	ok(validate(open_begin, sizeof(open_begin), &off, msg) == -EBADMSG && off == 88,
	   "a begin never ended is invalid at the begin (%s)", msg);
	static const uint64_t dropped[] = { PROLOGUE, DUR(3, 1), IDE(5, 1), DUR(2, 2),
					    F(4, 1) | F(16, 3) | F(20, 7) };
	ok(validate(dropped, sizeof(dropped), &off, msg) == 0,
	   "a provider that reported dropped records may miss begins and ends (%s)", msg);
	static const uint64_t end_first[] = { PROLOGUE, DUR(3, 1), DUR(2, 2) };
	ok(validate(end_first, sizeof(end_first), &off, msg) == -EBADMSG && off == 88 &&
		   strstr(msg, "end without a begin"),
	   "without drops, an end without a begin is reported at its offset, before a later open begin (%s)", msg);
	static const uint64_t end_early[] = { PROLOGUE, DUR(2, 5), DUR(3, 4) };
	ok(validate(end_early, sizeof(end_early), &off, msg) == -EBADMSG && off == 13 * 8,
	   "an end stamped before its begin is invalid (%s)", msg);
	static const uint64_t ids[] = { PROLOGUE, IDE(7, 1), IDE(5, 1), IDE(5, 2), IDE(6, 2), IDE(7, 2),
					IDE(8, 3), IDE(9, 3), IDE(10, 3) };
	ok(validate(ids, sizeof(ids), &off, msg) == 0,
	   "async ids paired by count (an end may precede its begin in the file), flows paired (%s)", msg);
	static const uint64_t async_open[] = { PROLOGUE, IDE(5, 1), IDE(5, 4), IDE(7, 1) };
	ok(validate(async_open, sizeof(async_open), &off, msg) == -EBADMSG && off == 14 * 8 && strstr(msg, "async"),
	   "an async begin never ended is invalid at its first record (%s)", msg);
	static const uint64_t flow_step[] = { PROLOGUE, IDE(9, 1) };
	ok(validate(flow_step, sizeof(flow_step), &off, msg) == -EBADMSG && strstr(msg, "flow"),
	   "a flow step of an id never begun is invalid (%s)", msg);
	static const uint64_t flow_twice[] = { PROLOGUE, IDE(8, 1), IDE(8, 1), IDE(10, 1) };
	ok(validate(flow_twice, sizeof(flow_twice), &off, msg) == -EBADMSG,
	   "a flow begun twice and ended once is invalid (%s)", msg);
	static const uint64_t no_magic[] = { F(0, 1) | F(4, 2), 1000 };
	ok(validate(no_magic, sizeof(no_magic), &off, msg) == -EBADMSG && off == 0 && strstr(msg, "magic"),
	   "an archive whose first record is not the magic number is invalid (%s)", msg);

	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	fxt_reader_open_mem(&r, nested, sizeof(nested), 0);
	fxt_validator_new(&v);
	while (fxt_reader_next(r, &rec) == FXT_READ_RECORD)
		fxt_validator_add(v, &rec);
	const struct fxt_validate_summary *s = fxt_validator_summary(v);
	ok(s->events == 10 && s->by_type[FXT_RT_EVENT] == 10 && s->providers == 1 && s->threads == 1 &&
		   s->strings == 1 && s->thread_records == 1 && s->by_type[0] == 3,
	   "the summary counts records by type, events, providers, threads and strings");
	fxt_validator_free(v);
	fxt_reader_close(r);
}

/* fxt_validator_add_complete() judges complete events as fxt_validator_add() does: the same
 * verdict, problem, warnings and offsets over the complete-event cases above. */
static void test_validator_complete(void)
{
	static const uint64_t nested[] = { PROLOGUE, CPL(2, 3), CPL(4, 5), CPL(1, 6), CPL(6, 6),
					   CPL(7, 9), CPL(0, 10) };
	static const uint64_t overlap[] = { PROLOGUE, CPL(2, 5), CPL(4, 8) };
	static const uint64_t outer_first[] = { PROLOGUE, CPL(0, 10), CPL(2, 3), CPL(4, 12) };
	static const uint64_t overlap_then_bad[] = { PROLOGUE, CPL(2, 5), CPL(4, 8), CPL(3, 4),
						     CPL(9, 7) };
	static const uint64_t backwards[] = { PROLOGUE, CPL(5, 4) };
	const struct {
		const uint64_t *w;
		size_t bytes;
		const char *what;
	} cases[] = { { nested, sizeof(nested), "nested" }, { overlap, sizeof(overlap), "overlap" },
		      { outer_first, sizeof(outer_first), "outer first" },
		      { overlap_then_bad, sizeof(overlap_then_bad), "overlap, then ending early" },
		      { backwards, sizeof(backwards), "ending before it starts" }
		    };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t off[2];
		char msg[2][160];
		int rc[2];
		uint64_t warnings[2];
		struct fxt_read_error warning[2];
		for (int way = 0; way < 2; way++) {
			by_complete = way;
			rc[way] = validate(cases[i].w, cases[i].bytes, &off[way], msg[way]);
			warnings[way] = last_warnings;
			warning[way] = last_warning;
		}
		by_complete = 0;
		ok(rc[0] == rc[1] && off[0] == off[1] && !strcmp(msg[0], msg[1]) &&
			   warnings[0] == warnings[1] && warning[0].offset == warning[1].offset &&
			   !strcmp(warning[0].msg, warning[1].msg),
		   "complete events %s: fxt_validator_add_complete judges as fxt_validator_add (%d %s)",
		   cases[i].what, rc[1], rc[1] ? msg[1] : warning[1].msg);
	}
	struct fxt_validator *v;
	int rc = fxt_validator_new(&v) < 0 ? 99
		 : fxt_validator_add_complete(v, 1, (struct fxt_koids){ 1, 2 }, 1, 2, 0);
	ok(rc == -EBADMSG && strstr(fxt_validator_problem(v)->msg, "magic"),
	   "a complete event before the magic number record is refused (%s)",
	   fxt_validator_problem(v)->msg);
	fxt_validator_free(v);
}

/* ---- canonical text ---- */

static void test_print(void)
{
	static const uint64_t w[] = {
		PROLOGUE,
		F(0, 4) | F(4, 5) | F(16, 4) | F(20, 1) | F(24, 1) | F(48, 1), 10,
		F(0, 6) | F(4, 2) | F(16, 1) | F(32, 0x8002), 0x0a22,
		20,
	};
	struct run *run = read_words(w, sizeof(w), FXT_READER_STRICT);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < run->n; i++)
		fxt_record_print(f, &run->rec[i]);
	fclose(f);
	const char *want = "00000000 magic magic=0x16547846\n"
			   "00000008 provider_info provider=7 name=\"ab\"\n"
			   "00000018 provider_section provider=7\n"
			   "00000020 init ticks_per_second=2000000000\n"
			   "00000030 string index=1 str=\"name\"\n"
			   "00000040 thread index=1 koids=100/101\n"
			   "00000058 complete ts=10 thread=100/101 cat=\"\" name=\"name\" end_ts=20 dur=10 "
			   "args{\"name\":string=\"\\\"\\x0a\"}\n";
	if (!ok(run->result == FXT_READ_END && strcmp(buf, want) == 0,
		"fxt_record_print writes one canonical line per record, control bytes and quotes escaped"))
		printf("# got:\n%s", buf);
	free(buf);
}

/* Found by the fuzzer: a payload size near 2^64 must not round up to 0 words. */
static void test_huge_payload(void)
{
	static const uint64_t w[] = { PROLOGUE, F(0, 15) | F(4, 3) | F(40, 1), 0, 0xfffffffffffffff9ULL };
	struct run *run = read_words(w, sizeof(w), 0);
	ok(run->result == FXT_READ_CORRUPT && run->n == PROLOGUE_RECORDS && run->err.offset == 11 * 8,
	   "a large blob claiming 2^64-7 payload bytes in 3 words is CORRUPT at its offset (%s)",
	   run->err.msg);
}

/* The forms of UTF-8 the strict reader must accept and refuse, in a string record. */
static void test_utf8_forms(void)
{
	static const struct {
		const char *s;
		int valid;
		const char *what;
	} cases[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 1, "2-, 3- and 4-byte sequences" },
		{ "\xf4\x8f\xbf\xbf", 1, "U+10FFFF, the last code point" },
		{ "a\xc0\x80", 0, "an overlong NUL" },
		{ "\xe0\x80\xaf", 0, "an overlong 3-byte '/'" },
		{ "\xed\xa0\x80", 0, "a UTF-16 surrogate" },
		{ "\xf4\x90\x80\x80", 0, "a code point above U+10FFFF" },
		{ "abcdefg\xe2\x82", 0, "a sequence cut by the string's end" },
		{ "\x80", 0, "a lone continuation byte" },
		{ "\xc3(", 0, "a lead byte followed by ASCII" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		uint64_t w[8] = { MAGIC };
		size_t len = strlen(cases[i].s), words = (len + 7) / 8;
		w[1] = F(0, 2) | F(4, 1 + words) | F(16, 2) | F(32, len);
		memcpy(&w[2], cases[i].s, len);
		struct run *run = read_words(w, (2 + words) * 8, FXT_READER_STRICT);
		if (cases[i].valid)
			ok(run->result == FXT_READ_END && run->n == 2 && sv_is(run->rec[1].u.string.str, cases[i].s),
			   "strict: UTF-8 with %s is accepted", cases[i].what);
		else
			ok(run->result == FXT_READ_CORRUPT && run->n == 1 && run->err.offset == 8,
			   "strict: %s is not UTF-8, CORRUPT at offset 8", cases[i].what);
	}
}

/* The validator's tables past their first capacity: 40 providers, 102 threads, 101 async ids
 * and 5000 disjoint complete events on one thread (past the 4096 roots it keeps). State made
 * before each table grew must survive it: a begin before and its end after, ids paired. */
static uint64_t big[40000];
static size_t nbig;

static void big_event(unsigned et, uint64_t tid, uint64_t ts, uint64_t extra)
{
	int x = et == 4 || et >= 5;
	big[nbig++] = F(0, 4) | F(4, 4 + x) | F(16, et); /* inline thread, empty category and name */
	big[nbig++] = ts;
	big[nbig++] = 1;
	big[nbig++] = tid;
	if (x)
		big[nbig++] = extra;
}

static void test_validator_growth(void)
{
	uint64_t off;
	char msg[160];
	nbig = 0;
	big[nbig++] = MAGIC;
	big_event(2, 5, 1, 0); /* a begin on thread 5 before any table grew */
	for (unsigned p = 1; p <= 40; p++)
		big[nbig++] = F(4, 1) | F(16, 1) | F(20, p); /* provider info p, empty name */
	big_event(5, 7, 2, 1000); /* async id 1000 begun in provider 40 */
	for (unsigned i = 0; i < 100; i++) {
		big_event(4, 100 + i, 10, 20);
		big_event(5, 100 + i, 10, i);
		big_event(7, 100 + i, 11, i);
	}
	for (unsigned i = 0; i < 5000; i++)
		big_event(4, 9, 100 + 10 * i, 105 + 10 * i);
	big_event(7, 7, 3, 1000);
	size_t valid = nbig;
	struct fxt_validator *v;
	struct fxt_reader *r;
	struct fxt_record rec;
	fxt_reader_open_mem(&r, big, valid * 8, FXT_READER_STRICT);
	fxt_validator_new(&v);
	int err = 0;
	while (fxt_reader_next(r, &rec) == FXT_READ_RECORD)
		err |= fxt_validator_add(v, &rec);
	const struct fxt_validate_summary *sum = fxt_validator_summary(v);
	ok(sum->providers == 40 && sum->threads == 102 && sum->events == 5303,
	   "summary after growth: 40 providers, 102 threads (async events do not count theirs),"
	   " 5303 events (%llu, %llu, %llu)", (unsigned long long)sum->providers, (unsigned long long)sum->threads,
	   (unsigned long long)sum->events);
	fxt_validator_free(v);
	fxt_reader_close(r);
	ok(err == 0, "no problem reported while the tables grow");
	int res = validate(big, valid * 8, &off, msg);
	ok(res == -EBADMSG && strstr(msg, "never ended") && off == 8,
	   "the begin on thread 5 of provider 0 is still open at the end, reported at offset 8 (%s)", msg);
	big_event(3, 5, 50000, 0); /* its end, in provider 40: another thread */
	ok(validate(big, nbig * 8, &off, msg) == -EBADMSG && off == 8 && strstr(msg, "never ended"),
	   "an end on the same koids in another provider does not close the begin (%s)", msg);
	/* the same archive with the end in provider 0 */
	nbig -= 4;
	big[nbig++] = F(4, 1) | F(16, 2) | F(20, 0);
	big_event(3, 5, 50000, 0);
	size_t closed = nbig;
	ok(validate(big, nbig * 8, &off, msg) == 0,
	   "its end after every table grew closes it: the archive is valid (%s)", msg);
	big_event(4, 9, 100 + 10 * 4999 + 3, 100 + 10 * 4999 + 8); /* provider 0: thread 9 unseen */
	ok(validate(big, nbig * 8, &off, msg) == 0,
	   "thread 9 of provider 0 is not thread 9 of provider 40");
	nbig = closed;
	big[nbig++] = F(4, 1) | F(16, 2) | F(20, 40);
	size_t bad = nbig;
	big_event(4, 9, 100 + 10 * 4999 + 3, 100 + 10 * 4999 + 8);
	ok(validate(big, nbig * 8, &off, msg) == 0 && last_warnings == 1 &&
		   last_warning.offset == bad * 8 && strstr(last_warning.msg, "overlaps"),
	   "past 4096 roots, a complete event crossing the last one is still warned about (%s)",
	   last_warning.msg);
	nbig = bad;
	big_event(4, 9, 95, 100 + 10 * 4999 + 5); /* holds all 5000: the caller of them all */
	ok(validate(big, nbig * 8, &off, msg) == 0,
	   "a caller written after its 5000 callees (more than the roots kept) is valid (%s)", msg);
	nbig = bad;
	big_event(7, 7, 60000, 5000); /* an async end of an id never begun */
	ok(validate(big, nbig * 8, &off, msg) == -EBADMSG && off == bad * 8 &&
		   strstr(msg, "async id 5000"),
	   "among 101 async ids, the one never begun is reported at its offset (%s)", msg);
}

/* Callees that start or end exactly with their caller nest (the bounds are inclusive). */
static void test_shared_bounds(void)
{
	static const uint64_t w[] = { PROLOGUE, CPL(10, 15), CPL(15, 20), CPL(10, 20), CPL(10, 10),
				      CPL(5, 20) };
	uint64_t off;
	char msg[160];
	ok(validate(w, sizeof(w), &off, msg) == 0,
	   "callees [10,15] and [15,20], caller [10,20], [10,10] and [5,20] are valid (%s)", msg);
}

int main(void)
{
	test_magic_bytes();
	test_hand_records();
	test_hand_args();
	test_round_trip();
	test_malformed();
	test_strict_spec();
	test_huge_payload();
	test_utf8_forms();
	test_providers();
	test_clock();
	test_files();
	test_validator();
	test_validator_complete();
	test_validator_growth();
	test_shared_bounds();
	test_print();
	return done();
}
