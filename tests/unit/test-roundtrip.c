/* Writer -> reader round trips: one archive built in memory with writer/records.h holding every
 * record type, all 11 event types and all 10 argument types (indexed and inline string and
 * thread refs, truncated strings), read back with the reader in STRICT mode and compared field
 * for field; each record's offset and size must be what the writer returned. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "check.h"
#include "fxt/reader.h"
#include "writer/records.h"

#define ROOM 20000

static uint64_t arc[ROOM]; /* the archive */
static uint32_t pos;	   /* words written so far */
static uint32_t offs[64], sizes[64];
static unsigned nrec;

/* Accounts for one record the writer returned n words for (or failed with n < 0). */
static void put(int n, const char *what)
{
	if (!ok(n > 0 && pos + (uint32_t)n <= ROOM, "%s: the writer accepts it (%d words)", what,
		n))
		return;
	offs[nrec] = pos;
	sizes[nrec++] = (uint32_t)n;
	pos += (uint32_t)n;
}

static int sveq(struct fxt_sv v, const char *s, uint32_t len)
{
	return v.len == len && (len == 0 || memcmp(v.s, s, len) == 0);
}
#define SVEQ(v, lit) sveq(v, lit, sizeof(lit) - 1)

static int koideq(struct fxt_koids k, uint64_t pid, uint64_t tid)
{
	return k.pid == pid && k.tid == tid;
}

/* ---- the values written, shared by both halves ---- */
enum { PROVIDER = 7, PID = 100, TID = 101, TICKS = 1000000000 };
enum { S_CAT = 1, S_NAME, S_ARG, S_VALUE }; /* string table indices */
static const char *const strs[] = { NULL, "cat", "name", "arg", "value" };
static const char blob_data[] = "thirteen byte";
static const char utf8_msg[] = "h\xc3\xa9llo \xe2\x82\xac"; /* "héllo €" */
static char big[40000];					      /* 'a'... with é at 31999 */

/* Event of type t: odd types use the indexed thread/strings, even ones inline. */
static struct fxt_event event_of(unsigned t)
{
	struct fxt_event e = {
		.type = t,
		.thread = t % 2 ? fxt_thread_idx(1) : fxt_thread_inl(200, 300 + t),
		.category = t % 2 ? fxt_str_idx(S_CAT) : fxt_str_inl("cat-inline", 10),
		.name = t % 3 ? fxt_str_idx(S_NAME) : fxt_str_inl("name-inline", 11),
		.ts = 1000 + t,
		.extra = 5000 + t,
	};
	return e;
}

static struct fxt_warg all_args[12];

static void make_args(void)
{
	struct fxt_str an = fxt_str_idx(S_ARG), in = fxt_str_inl("inl", 3);
	struct fxt_warg a[12] = {
		fxt_arg_null(an),
		fxt_arg_int32(in, -123456),
		fxt_arg_uint32(an, 0xfedcba98u),
		fxt_arg_int64(in, -0x123456789aLL),
		fxt_arg_uint64(an, 0xfedcba9876543210ULL),
		fxt_arg_double(in, -2.5e-300),
		fxt_arg_string(an, fxt_str_idx(S_VALUE)),
		fxt_arg_string(in, fxt_str_inl("inline value", 12)),
		fxt_arg_pointer(an, 0x7ffd12345678ULL),
		fxt_arg_koid(in, 4242),
		fxt_arg_bool(an, 1),
		fxt_arg_bool(in, 0),
	};
	memcpy(all_args, a, sizeof(a));
}

static struct fxt_warg ws_arg[2];

static void write_all(void)
{
	put(fxt_magic_write(arc + pos), "magic number");
	put(fxt_provider_info_write(arc + pos, PROVIDER, "w2-test", 7), "provider info");
	put(fxt_provider_section_write(arc + pos, PROVIDER), "provider section");
	put(fxt_provider_event_write(arc + pos, PROVIDER, FXT_PE_BUFFER_OVERFLOW),
	    "provider event");
	put(fxt_init_write(arc + pos, TICKS), "initialization");
	for (uint16_t i = 1; i <= S_VALUE; i++)
		put(fxt_string_write(arc + pos, i, strs[i], (uint32_t)strlen(strs[i])), "string");
	put(fxt_thread_write(arc + pos, 1, PID, TID), "thread");

	for (unsigned t = 0; t <= 10; t++) {
		struct fxt_event e = event_of(t);
		put(fxt_event_write(arc + pos, &e), "event");
	}
	struct fxt_event e = fxt_ev_counter(fxt_thread_idx(1), fxt_str_idx(S_CAT),
					    fxt_str_inl("all args", 8), 2000, 77);
	e.args = all_args;
	e.nargs = 12;
	put(fxt_event_write(arc + pos, &e), "counter with every argument type");
	e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_inl(NULL, 0), fxt_str_inl(big, sizeof(big)),
			   2100);
	put(fxt_event_write(arc + pos, &e), "instant with a 40000-byte name");

	struct fxt_blob b = { .name = fxt_str_inl("blob", 4), .type = FXT_BT_DATA,
			      .data = blob_data, .size = 13 };
	put(fxt_blob_write(arc + pos, &b), "blob");
	struct fxt_uobj u = { .pointer = 0xdeadbeef, .process = fxt_thread_inl(555, 0),
			      .name = fxt_str_inl("object", 6), .args = all_args + 8, .nargs = 1 };
	put(fxt_uobj_write(arc + pos, &u), "userspace object, inline process");
	u.process = fxt_thread_idx(1);
	u.name = fxt_str_idx(S_NAME);
	u.nargs = 0;
	put(fxt_uobj_write(arc + pos, &u), "userspace object, indexed process");
	struct fxt_warg pk = fxt_arg_koid(fxt_str_inl("process", 7), PID);
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_THREAD, .koid = TID,
			      .name = fxt_str_inl("main", 4), .args = &pk, .nargs = 1 };
	put(fxt_kobj_write(arc + pos, &k), "kernel object");

	ws_arg[0] = fxt_arg_int32(fxt_str_inl("incoming_weight", 15), 3);
	ws_arg[1] = fxt_arg_int32(fxt_str_inl("outgoing_weight", 15), 4);
	struct fxt_cswitch cs = { .cpu = 65535, .out_state = 3, .ts = 3000, .out_tid = 11,
				  .in_tid = 12, .args = ws_arg, .nargs = 2 };
	put(fxt_cswitch_write(arc + pos, &cs), "context switch");
	struct fxt_wakeup wk = { .cpu = 2, .ts = 3100, .waking_tid = 13, .args = ws_arg,
				 .nargs = 1 };
	put(fxt_wakeup_write(arc + pos, &wk), "thread wakeup");
	struct fxt_legacy_cswitch lc = { .cpu = 255, .out_state = 5, .out = fxt_thread_idx(1),
					 .in = fxt_thread_inl(400, 401), .out_prio = 17,
					 .in_prio = 255, .ts = 3200 };
	put(fxt_legacy_cswitch_write(arc + pos, &lc), "legacy context switch");

	struct fxt_log lg = { .thread = fxt_thread_inl(500, 501), .ts = 4000, .msg = utf8_msg,
			      .len = sizeof(utf8_msg) - 1 };
	put(fxt_log_write(arc + pos, &lg), "log, inline thread");
	lg.thread = fxt_thread_idx(1);
	lg.msg = big;
	lg.len = sizeof(big);
	put(fxt_log_write(arc + pos, &lg), "log, indexed thread, 40000-byte message");

	struct fxt_large_blob l0 = { .format = FXT_LBF_METADATA, .category = fxt_str_idx(S_CAT),
				     .name = fxt_str_inl("lblob", 5),
				     .thread = fxt_thread_inl(600, 601),
				     .ts = 5000, .args = all_args, .nargs = 12, .data = blob_data,
				     .size = 13 };
	put(fxt_large_blob_write(arc + pos, &l0), "large blob with metadata");
	struct fxt_large_blob l1 = { .format = FXT_LBF_NO_METADATA,
				     .category = fxt_str_inl("c", 1), .name = fxt_str_idx(S_NAME),
				     .data = big, .size = sizeof(big) };
	put(fxt_large_blob_write(arc + pos, &l1), "large blob without metadata, 40000 bytes");
}

/* ---- reading back ---- */

static struct fxt_reader *rd;
static struct fxt_record rec;
static unsigned ri;

/* Reads the next record: it must exist, have the writer's offset and size, and the type. */
static int next(unsigned type, const char *what)
{
	int got = fxt_reader_next(rd, &rec);
	int good = got == FXT_READ_RECORD && ri < nrec && rec.offset == offs[ri] * 8ULL &&
		   rec.words == sizes[ri] && rec.type == type;
	if (got != FXT_READ_RECORD)
		printf("# reader: %d at %llu: %s\n", got,
		       (unsigned long long)fxt_reader_error(rd)->offset, fxt_reader_error(rd)->msg);
	ri++;
	return ok(good, "%s reads back at the writer's offset with its size and type", what);
}

/* Checks decoded arguments against all_args[0..n). */
static int args_match(const struct fxt_arg *got, unsigned n)
{
	int good = 1;
	for (unsigned i = 0; i < n; i++) {
		const struct fxt_warg *w = &all_args[i];
		const struct fxt_arg *g = &got[i];
		const char *wn = w->name.index ? strs[w->name.index] : w->name.s;
		good &= g->type == w->type && sveq(g->name, wn, (uint32_t)strlen(wn));
		switch (w->type) {
		case FXT_AT_INT32: good &= g->v.i64 == w->v.i32; break;
		case FXT_AT_UINT32: good &= g->v.u64 == w->v.u32; break;
		case FXT_AT_INT64: good &= g->v.i64 == w->v.i64; break;
		case FXT_AT_DOUBLE: good &= g->v.dbl == w->v.d; break;
		case FXT_AT_UINT64:
		case FXT_AT_POINTER:
		case FXT_AT_KOID: good &= g->v.u64 == w->v.u64; break;
		case FXT_AT_BOOL: good &= !!g->v.boolean == !!w->v.b; break;
		case FXT_AT_STRING:
			if (w->v.str.index)
				good &= sveq(g->v.str, strs[w->v.str.index],
					     (uint32_t)strlen(strs[w->v.str.index]));
			else
				good &= sveq(g->v.str, w->v.str.s, w->v.str.len);
			break;
		default: break;
		}
	}
	return good;
}

static void read_meta(void)
{
	next(FXT_RT_METADATA, "magic number record");
	ok(rec.u.meta.meta_type == FXT_MT_TRACE_INFO &&
		   rec.u.meta.trace_info_type == FXT_TI_MAGIC && rec.u.meta.magic == FXT_MAGIC,
	   "magic number record: trace info type 0, magic 0x16547846");
	next(FXT_RT_METADATA, "provider info");
	ok(rec.u.meta.meta_type == FXT_MT_PROVIDER_INFO && rec.u.meta.provider_id == PROVIDER &&
		   SVEQ(rec.u.meta.name, "w2-test"),
	   "provider info: id 7, name \"w2-test\"");
	next(FXT_RT_METADATA, "provider section");
	ok(rec.u.meta.meta_type == FXT_MT_PROVIDER_SECTION && rec.u.meta.provider_id == PROVIDER &&
		   rec.provider_id == PROVIDER,
	   "provider section: id 7, and the reader is now in provider 7's section");
	next(FXT_RT_METADATA, "provider event");
	ok(rec.u.meta.meta_type == FXT_MT_PROVIDER_EVENT && rec.u.meta.provider_id == PROVIDER &&
		   rec.u.meta.event_id == FXT_PE_BUFFER_OVERFLOW,
	   "provider event: id 7, event 0 (buffer overflow)");
	next(FXT_RT_INITIALIZATION, "initialization");
	ok(rec.u.init.ticks_per_second == TICKS, "initialization: 1e9 ticks per second");
	for (uint16_t i = 1; i <= S_VALUE; i++) {
		next(FXT_RT_STRING, "string record");
		ok(rec.u.string.index == i &&
			   sveq(rec.u.string.str, strs[i], (uint32_t)strlen(strs[i])),
		   "string record %u: \"%s\"", i, strs[i]);
	}
	next(FXT_RT_THREAD, "thread record");
	ok(rec.u.thread.index == 1 && koideq(rec.u.thread.koids, PID, TID),
	   "thread record 1: pid 100, tid 101");
}

static void read_events(void)
{
	for (unsigned t = 0; t <= 10; t++) {
		struct fxt_event e = event_of(t);
		char what[64];
		snprintf(what, sizeof(what), "event type %u", t);
		next(FXT_RT_EVENT, what);
		int thread_ok = t % 2 ? koideq(rec.u.event.thread, PID, TID)
				      : koideq(rec.u.event.thread, 200, 300 + t);
		int cat_ok = t % 2 ? SVEQ(rec.u.event.category, "cat")
				   : SVEQ(rec.u.event.category, "cat-inline");
		int name_ok = t % 3 ? SVEQ(rec.u.event.name, "name")
				    : SVEQ(rec.u.event.name, "name-inline");
		int has_extra = t != FXT_ET_INSTANT && t != FXT_ET_DURATION_BEGIN &&
				t != FXT_ET_DURATION_END;
		uint64_t end = t == FXT_ET_DURATION_COMPLETE ? e.extra : 0;
		uint64_t id = has_extra && t != FXT_ET_DURATION_COMPLETE ? e.extra : 0;
		ok(rec.u.event.event_type == t && rec.u.event.ts == e.ts && thread_ok && cat_ok &&
			   name_ok && rec.u.event.end_ts == end && rec.u.event.id == id &&
			   rec.nargs == 0,
		   "event type %u: ts, %s thread, %s category, %s name, %s word", t,
		   t % 2 ? "indexed" : "inline", t % 2 ? "indexed" : "inline",
		   t % 3 ? "indexed" : "inline", has_extra ? "its id/end" : "no extra");
	}
	next(FXT_RT_EVENT, "counter with every argument type");
	ok(rec.u.event.event_type == FXT_ET_COUNTER && rec.u.event.id == 77 &&
		   SVEQ(rec.u.event.name, "all args") && rec.nargs == 12,
	   "counter event: id 77, inline name, 12 arguments");
	ok(args_match(rec.args, 12),
	   "all 10 argument types (indexed and inline names and string values) read back equal");

	next(FXT_RT_EVENT, "instant with a 40000-byte name");
	ok(rec.u.event.name.len == 31999 && memcmp(rec.u.event.name.s, big, 31999) == 0 &&
		   rec.u.event.category.len == 0,
	   "a 40000-byte inline name reads back as its first 31999 bytes (cut before a split "
	   "UTF-8 char), empty category");
}

static void read_others(void)
{
	next(FXT_RT_BLOB, "blob");
	ok(SVEQ(rec.u.blob.name, "blob") && rec.u.blob.blob_type == FXT_BT_DATA &&
		   rec.u.blob.size == 13 && memcmp(rec.u.blob.data, blob_data, 13) == 0,
	   "blob: inline name, type 1, 13-byte payload");
	next(FXT_RT_USERSPACE_OBJECT, "userspace object, inline process");
	ok(rec.u.uobj.pointer == 0xdeadbeef && rec.u.uobj.process_koid == 555 &&
		   SVEQ(rec.u.uobj.name, "object") && rec.nargs == 1 &&
		   rec.args[0].type == FXT_AT_POINTER && rec.args[0].v.u64 == 0x7ffd12345678ULL,
	   "userspace object: pointer, inline process koid, inline name, pointer argument");
	next(FXT_RT_USERSPACE_OBJECT, "userspace object, indexed process");
	ok(rec.u.uobj.process_koid == PID && SVEQ(rec.u.uobj.name, "name") && rec.nargs == 0,
	   "userspace object: indexed process resolves to pid 100, indexed name");
	next(FXT_RT_KERNEL_OBJECT, "kernel object");
	ok(rec.u.kobj.obj_type == FXT_OBJ_TYPE_THREAD && rec.u.kobj.koid == TID &&
		   SVEQ(rec.u.kobj.name, "main") && rec.nargs == 1 &&
		   rec.args[0].type == FXT_AT_KOID && SVEQ(rec.args[0].name, "process") &&
		   rec.args[0].v.u64 == PID,
	   "kernel object: thread 101 \"main\" with its \"process\" koid argument");

	next(FXT_RT_SCHEDULING, "context switch");
	ok(rec.u.sched.sched_type == FXT_ST_CONTEXT_SWITCH && rec.u.sched.cpu == 65535 &&
		   rec.u.sched.out_state == 3 && rec.u.sched.ts == 3000 &&
		   rec.u.sched.out_thread.tid == 11 && rec.u.sched.in_thread.tid == 12 &&
		   rec.nargs == 2 && SVEQ(rec.args[1].name, "outgoing_weight") &&
		   rec.args[1].v.i64 == 4,
	   "context switch: cpu 65535, state 3, ts, out/in tids, 2 weight arguments");
	next(FXT_RT_SCHEDULING, "thread wakeup");
	ok(rec.u.sched.sched_type == FXT_ST_THREAD_WAKEUP && rec.u.sched.cpu == 2 &&
		   rec.u.sched.ts == 3100 && rec.u.sched.waking_tid == 13 && rec.nargs == 1 &&
		   SVEQ(rec.args[0].name, "incoming_weight") && rec.args[0].v.i64 == 3,
	   "thread wakeup: cpu 2, ts, waking tid, 1 argument");
	next(FXT_RT_SCHEDULING, "legacy context switch");
	ok(rec.u.sched.sched_type == FXT_ST_LEGACY_CONTEXT_SWITCH && rec.u.sched.cpu == 255 &&
		   rec.u.sched.out_state == 5 && rec.u.sched.ts == 3200 &&
		   koideq(rec.u.sched.out_thread, PID, TID) &&
		   koideq(rec.u.sched.in_thread, 400, 401) && rec.u.sched.out_prio == 17 &&
		   rec.u.sched.in_prio == 255,
	   "legacy context switch: cpu, state, indexed out thread, inline in thread, priorities");

	next(FXT_RT_LOG, "log, inline thread");
	ok(rec.u.log.ts == 4000 && koideq(rec.u.log.thread, 500, 501) &&
		   SVEQ(rec.u.log.msg, "h\xc3\xa9llo \xe2\x82\xac"),
	   "log: ts, inline thread, UTF-8 message");
	next(FXT_RT_LOG, "log, indexed thread, 40000-byte message");
	ok(koideq(rec.u.log.thread, PID, TID) && rec.u.log.msg.len == 31999 &&
		   memcmp(rec.u.log.msg.s, big, 31999) == 0,
	   "log: indexed thread, message cut to 31999 bytes on a UTF-8 boundary");

	next(FXT_RT_LARGE, "large blob with metadata");
	ok(rec.u.large.large_type == FXT_LT_BLOB && rec.u.large.format == FXT_LBF_METADATA &&
		   SVEQ(rec.u.large.category, "cat") && SVEQ(rec.u.large.name, "lblob") &&
		   rec.u.large.ts == 5000 && koideq(rec.u.large.thread, 600, 601) &&
		   rec.u.large.size == 13 && memcmp(rec.u.large.data, blob_data, 13) == 0,
	   "large blob format 0: category, name, ts, inline thread, 13-byte payload");
	ok(rec.nargs == 12 && args_match(rec.args, 12),
	   "large blob format 0: its 12 arguments read back equal");
	next(FXT_RT_LARGE, "large blob without metadata, 40000 bytes");
	ok(rec.u.large.format == FXT_LBF_NO_METADATA && SVEQ(rec.u.large.category, "c") &&
		   SVEQ(rec.u.large.name, "name") && rec.u.large.size == sizeof(big) &&
		   memcmp(rec.u.large.data, big, sizeof(big)) == 0,
	   "large blob format 1: inline category, indexed name, 40000-byte payload past 4095 "
	   "words");
}

int main(void)
{
	memset(big, 'a', sizeof(big));
	memcpy(big + 31999, "\xc3\xa9", 2);
	make_args();
	write_all();

	if (!ok(fxt_reader_open_mem(&rd, arc, pos * 8ULL, FXT_READER_STRICT) == 0,
		"the reader opens the written archive in strict mode"))
		return done();
	read_meta();
	read_events();
	read_others();
	ok(ri == nrec && fxt_reader_next(rd, &rec) == FXT_READ_END,
	   "the archive ends cleanly after the %u records written", nrec);
	ok(fxt_reader_stats(rd)->lenient_fixes == 0 && fxt_reader_stats(rd)->unknown_skipped == 0,
	   "no record needed a lenient fix or was skipped as unknown");
	fxt_reader_close(rd);

	/* The check can fail: a reserved bit set in a string record is an error in strict mode. */
	arc[offs[5]] |= 1ULL << 63;
	struct fxt_record r2;
	int got = FXT_READ_RECORD;
	if (!ok(fxt_reader_open_mem(&rd, arc, pos * 8ULL, FXT_READER_STRICT) == 0,
		"the reader opens the altered archive"))
		return done();
	for (int i = 0; i <= 5 && got == FXT_READ_RECORD; i++)
		got = fxt_reader_next(rd, &r2);
	ok(got == FXT_READ_CORRUPT && fxt_reader_error(rd)->offset == offs[5] * 8ULL,
	   "a reserved bit flipped in the first string record is reported at its offset");
	fxt_reader_close(rd);
	return done();
}
