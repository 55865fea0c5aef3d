/* writer/records.h against HAND-WRITTEN words: every expected header is built here from the bit
 * positions printed in the spec (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format;
 * F(value, lo) = value << lo, positions copied from the spec, never from fields.h), streams from
 * their bytes. Covers every record type, all 11 event types, all 10 argument types,
 * inline/indexed refs, padding, truncation and refusals. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "writer/records.h"

#define F(v, lo) ((uint64_t)(v) << (lo))
#define POISON 0xa5a5a5a5a5a5a5a5ULL
#define ROOM 8192

static uint64_t buf[ROOM];

/* 8 stream bytes as the word they form in memory. */
static uint64_t S8(const char *bytes)
{
	uint64_t w;
	memcpy(&w, bytes, 8);
	return w;
}

static uint64_t *fresh(void)
{
	for (int i = 0; i < ROOM; i++)
		buf[i] = POISON;
	buf[0] = 0; /* the header slot reads as zero until commit */
	return buf;
}

/* The writer returned n == words(), wrote exactly the expected words, and nothing past them. */
static void expect(const char *what, int n, uint32_t words, const uint64_t *want, int nwant)
{
	ok(n == nwant && words == (uint32_t)nwant, "%s: writer and words() both say %d words", what,
	   nwant);
	int same = n == nwant && memcmp(buf, want, (size_t)nwant * 8) == 0;
	if (!same)
		for (int i = 0; i < nwant; i++)
			if (buf[i] != want[i])
				printf("# word %d: got %016llx want %016llx\n", i,
				       (unsigned long long)buf[i], (unsigned long long)want[i]);
	ok(same, "%s: words match the spec layout", what);
	ok(buf[nwant] == POISON, "%s: nothing written past the record", what);
}

/* reserve.h itself: streams of every length over dirty memory, the header slot left alone
 * until commit, and the word count. */
static void reserve(void)
{
	static const char src[17] = "0123456789abcdefg";
	int ok_bytes = 1;
	for (size_t len = 0; len <= 17; len++) {
		struct fxt_res r;
		fxt_res_begin(&r, fresh());
		fxt_res_bytes(&r, src, len);
		size_t nw = (len + 7) / 8;
		unsigned char *p = (unsigned char *)&buf[1];
		int good = fxt_res_words(&r) == 1 + nw && buf[0] == 0 && buf[1 + nw] == POISON &&
			   memcmp(p, src, len) == 0;
		for (size_t i = len; i < nw * 8; i++)
			good &= p[i] == 0;
		ok_bytes &= good;
	}
	ok(ok_bytes, "fxt_res_bytes writes len bytes then zeros to the next word, for len 0..17, "
		     "and nothing else");
	struct fxt_res r;
	fxt_res_begin(&r, fresh());
	fxt_res_word(&r, 0x1111);
	fxt_res_word(&r, 0x2222);
	ok(buf[0] == 0 && buf[1] == 0x1111 && buf[2] == 0x2222 && fxt_res_words(&r) == 3,
	   "words land after the header slot, which stays zero before commit");
	fxt_res_commit(&r, 0x33);
	ok(buf[0] == 0x33 && buf[3] == POISON, "commit stores the header word in the slot");
}

static void metadata(void)
{
	static const unsigned char magic[8] = { 0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00 };
	int n = fxt_magic_write(fresh());
	ok(n == 1 && memcmp(buf, magic, 8) == 0 && buf[1] == POISON,
	   "magic number record is exactly the bytes 10 00 04 46 78 54 16 00");

	n = fxt_provider_info_write(fresh(), 0x12345, "fxtauto", 7);
	uint64_t pi[] = { F(0, 0) | F(2, 4) | F(1, 16) | F(0x12345, 20) | F(7, 52), S8("fxtauto\0") };
	expect("provider info", n, fxt_provider_info_words("fxtauto", 7), pi, 2);

	n = fxt_provider_section_write(fresh(), 0xfffffffe);
	uint64_t ps[] = { F(1, 4) | F(2, 16) | F(0xfffffffeULL, 20) };
	expect("provider section", n, 1, ps, 1);

	n = fxt_provider_event_write(fresh(), 9, FXT_PE_BUFFER_OVERFLOW);
	uint64_t pe[] = { F(1, 4) | F(3, 16) | F(9, 20) | F(0, 52) };
	expect("provider event (buffer overflow)", n, 1, pe, 1);
	ok(fxt_provider_event_write(fresh(), 9, 16) == -EINVAL && buf[0] == 0,
	   "provider event id 16 (past 4 bits) is refused and nothing is written");

	char longname[300];
	memset(longname, 'p', sizeof(longname));
	ok(fxt_provider_info_words(longname, 300) == 1 + 32 &&
		   fxt_provider_info_write(fresh(), 1, longname, 300) == 33 &&
		   (buf[0] >> 52 & 0xff) == 255,
	   "a provider name over 255 bytes is cut to 255 (its 8-bit length field)");
}

static void init_string_thread(void)
{
	int n = fxt_init_write(fresh(), 1000000000ULL);
	uint64_t in[] = { 0x21, 1000000000ULL };
	expect("initialization", n, 2, in, 2);

	n = fxt_string_write(fresh(), 5, "hello", 5);
	uint64_t st[] = { 0x0000000500050022ULL, S8("hello\0\0\0") };
	expect("string record index 5 \"hello\"", n, fxt_string_words("hello", 5), st, 2);

	n = fxt_string_write(fresh(), 0x7fff, "12345678", 8);
	uint64_t st8[] = { F(2, 0) | F(2, 4) | F(0x7fff, 16) | F(8, 32), S8("12345678") };
	expect("string record of exactly 8 bytes is not padded", n, fxt_string_words("12345678", 8),
	       st8, 2);

	ok(fxt_string_write(fresh(), 0, "x", 1) == -EINVAL && buf[0] == 0,
	   "string index 0 is refused (reserved for the empty string)");
	ok(fxt_string_write(fresh(), 0x8000, "x", 1) == -EINVAL && buf[0] == 0,
	   "string index 0x8000 is refused (15-bit field)");

	n = fxt_thread_write(fresh(), 7, 1234, 5678);
	uint64_t th[] = { 0x70033, 1234, 5678 };
	expect("thread record index 7", n, FXT_THREAD_WORDS, th, 3);
	ok(fxt_thread_write(fresh(), 0, 1, 2) == -EINVAL && buf[0] == 0,
	   "thread index 0 is refused (reserved for inline threads)");
}

static void events(void)
{
	/* Words of each event type with indexed thread/category/name and no arguments: header +
	 * timestamp, plus one type-specific word for all but instant (0), begin (2), end (3). */
	static const int words[11] = { 2, 3, 2, 2, 3, 3, 3, 3, 3, 3, 3 };
	for (unsigned type = 0; type <= 10; type++) {
		struct fxt_event e = { .type = type, .thread = fxt_thread_idx(3),
				       .category = fxt_str_idx(0x11), .name = fxt_str_idx(0x7fff),
				       .ts = 1000 + type, .extra = 0xabcdef };
		int n = fxt_event_write(fresh(), &e);
		uint64_t want[3] = { F(4, 0) | F(words[type], 4) | F(type, 16) | F(0, 20) |
					     F(3, 24) | F(0x11, 32) | F(0x7fff, 48),
				     1000 + type, 0xabcdef };
		char what[64];
		snprintf(what, sizeof(what), "event type %u, indexed refs", type);
		expect(what, n, fxt_event_words(&e), want, words[type]);
	}

	/* The thin callers pick the type and put their value in the type-specific word. */
	struct fxt_thread t = fxt_thread_idx(1);
	struct fxt_str c = fxt_str_idx(2), nm = fxt_str_idx(3);
	struct fxt_event thin[11] = {
		fxt_ev_instant(t, c, nm, 5),	      fxt_ev_counter(t, c, nm, 5, 42),
		fxt_ev_begin(t, c, nm, 5),	      fxt_ev_end(t, c, nm, 5),
		fxt_ev_complete(t, c, nm, 5, 42),     fxt_ev_async_begin(t, c, nm, 5, 42),
		fxt_ev_async_instant(t, c, nm, 5, 42), fxt_ev_async_end(t, c, nm, 5, 42),
		fxt_ev_flow_begin(t, c, nm, 5, 42),   fxt_ev_flow_step(t, c, nm, 5, 42),
		fxt_ev_flow_end(t, c, nm, 5, 42),
	};
	int thin_ok = 1;
	for (unsigned type = 0; type <= 10; type++) {
		int n = fxt_event_write(fresh(), &thin[type]);
		thin_ok &= n == words[type] && (buf[0] >> 16 & 0xf) == type && buf[1] == 5 &&
			   (n == 2 || buf[2] == 42);
	}
	ok(thin_ok, "the 11 thin callers write their own event type with their id/end word");

	/* Inline thread, inline category and name, then the end time. */
	struct fxt_event e = fxt_ev_complete(fxt_thread_inl(100, 101), fxt_str_inl("cat", 3),
					     fxt_str_inl("a_name_of_11", 12), 10, 20);
	int n = fxt_event_write(fresh(), &e);
	uint64_t want[] = { F(4, 0) | F(8, 4) | F(4, 16) | F(0, 24) | F(0x8003, 32) |
				    F(0x800c, 48),
			    10, 100, 101, S8("cat\0\0\0\0\0"), S8("a_name_o"),
			    S8("f_11\0\0\0\0"), 20 };
	expect("complete event, inline thread/category/name", n, fxt_event_words(&e), want, 8);

	/* The preload's 3-word hot path. */
	uint64_t h = fxt_complete3_hdr(3, 0, 9);
	ok(h == 0x0009000003040034ULL, "3-word complete header (thread 3, name 9) is 0x0009000003040034");
	fxt_complete3_write(fresh(), h, 111, 222);
	ok(buf[0] == h && buf[1] == 111 && buf[2] == 222 && buf[3] == POISON,
	   "fxt_complete3_write writes header, start, end and nothing else");

	/* An empty string ref is 0 and takes no stream. */
	e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_inl(NULL, 0), fxt_str_idx(4), 7);
	n = fxt_event_write(fresh(), &e);
	uint64_t empty[] = { F(4, 0) | F(2, 4) | F(1, 24) | F(4, 48), 7 };
	expect("instant with an empty category", n, fxt_event_words(&e), empty, 2);
}

static void arguments(void)
{
	struct fxt_str an = fxt_str_idx(10); /* argument name: index 10 */
	struct fxt_warg args[] = {
		fxt_arg_null(an),
		fxt_arg_int32(an, -2),
		fxt_arg_uint32(an, 7),
		fxt_arg_int64(an, -5),
		fxt_arg_uint64(an, 0x1122334455667788ULL),
		fxt_arg_double(an, 1.5),
		fxt_arg_string(an, fxt_str_idx(11)),
		fxt_arg_string(an, fxt_str_inl("abc", 3)),
		fxt_arg_pointer(an, 0x7fff0000beefULL),
		fxt_arg_koid(an, 4242),
		fxt_arg_bool(an, 1),
		fxt_arg_null(fxt_str_inl("nm", 2)),
	};
	/* One argument per instant event (header + ts + argument words). */
	const uint64_t want[][3] = {
		{ 0x000a0010 },					/* null */
		{ 0xfffffffe000a0011ULL },			/* int32 -2 */
		{ 0x00000007000a0012ULL },			/* uint32 7 */
		{ 0x000a0023, 0xfffffffffffffffbULL },		/* int64 -5 */
		{ 0x000a0024, 0x1122334455667788ULL },		/* uint64 */
		{ 0x000a0025, 0x3ff8000000000000ULL },		/* double 1.5 */
		{ 0x0000000b000a0016ULL },			/* string, indexed value 11 */
		{ 0x00008003000a0026ULL, S8("abc\0\0\0\0\0") }, /* string, inline value */
		{ 0x000a0027, 0x7fff0000beefULL },		/* pointer */
		{ 0x000a0028, 4242 },				/* koid */
		{ 0x00000001000a0019ULL },			/* bool true */
		{ 0x80020020, S8("nm\0\0\0\0\0\0") },		/* null, inline name */
	};
	const int aw[] = { 1, 1, 1, 2, 2, 2, 1, 2, 2, 2, 1, 2 };
	const char *names[] = { "null",	   "int32",	  "uint32",	"int64",
				"uint64",  "double",	  "string indexed", "string inline",
				"pointer", "koid",	  "bool",	"null with inline name" };
	for (int i = 0; i < 12; i++) {
		struct fxt_event e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(2),
						    fxt_str_idx(3), 99);
		e.args = &args[i];
		e.nargs = 1;
		uint64_t w[5] = { F(4, 0) | F(2 + aw[i], 4) | F(0, 16) | F(1, 20) | F(1, 24) |
					  F(2, 32) | F(3, 48),
				  99, want[i][0], want[i][1] };
		char what[80];
		snprintf(what, sizeof(what), "%s argument", names[i]);
		expect(what, fxt_event_write(fresh(), &e), fxt_event_words(&e), w, 2 + aw[i]);
		ok(fxt_arg_words(&args[i]) == (uint32_t)aw[i], "%s argument is %d words", names[i],
		   aw[i]);
	}
	struct fxt_warg f = fxt_arg_bool(an, 0);
	struct fxt_event e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(2), fxt_str_idx(3), 99);
	e.args = &f;
	e.nargs = 1;
	fxt_event_write(fresh(), &e);
	ok(buf[2] == 0x000a0019, "bool false leaves bit 32 clear");

	/* 15 arguments are the maximum; 16 are refused. */
	struct fxt_warg many[16];
	for (int i = 0; i < 16; i++)
		many[i] = fxt_arg_uint32(an, (uint32_t)i);
	e.args = many;
	e.nargs = 15;
	int n = fxt_event_write(fresh(), &e);
	ok(n == 17 && (buf[0] >> 20 & 0xf) == 15 && buf[16] == 0x0000000e000a0012ULL,
	   "15 arguments fit: count 15 in bits 20..23, arguments in order");
	e.nargs = 16;
	ok(fxt_event_words(&e) == 0 && fxt_event_write(fresh(), &e) == -EINVAL && buf[0] == 0 &&
		   buf[1] == POISON,
	   "16 arguments are refused and nothing is written");
	struct fxt_warg bad = { .type = 10, .name = an };
	e.args = &bad;
	e.nargs = 1;
	ok(fxt_event_write(fresh(), &e) == -EINVAL, "argument type 10 is refused");
}

static void other_records(void)
{
	/* blob: name index 3, 11 bytes of type data */
	struct fxt_blob b = { .name = fxt_str_idx(3), .type = FXT_BT_DATA, .data = "xyz12345678",
			      .size = 11 };
	uint64_t bw[] = { F(5, 0) | F(3, 4) | F(3, 16) | F(11, 32) | F(1, 48), S8("xyz12345"),
			  S8("678\0\0\0\0\0") };
	expect("blob", fxt_blob_write(fresh(), &b), fxt_blob_words(&b), bw, 3);

	/* fxtauto's clock record: a data blob "fxt-clock" (inline name, 9 bytes), 32 bytes */
	uint64_t cw[] = { F(5, 0) | F(7, 4) | F(0x8009, 16) | F(32, 32) | F(1, 48),
			  S8("fxt-cloc"), S8("k\0\0\0\0\0\0\0"), 1, 2, 3, 4 };
	expect("clock record", fxt_clock_write(fresh(), (struct fxt_clock_pair){ 1, 2 },
					       (struct fxt_clock_pair){ 3, 4 }),
	       FXT_CLOCK_WORDS, cw, 7);
	ok(buf[FXT_CLOCK_END_WORD] == 3 && buf[FXT_CLOCK_END_WORD + 1] == 4,
	   "the clock record's end pair is at FXT_CLOCK_END_WORD");

	/* userspace object: inline process (pid word only), inline name, one int32 argument */
	struct fxt_warg ua = fxt_arg_int32(fxt_str_idx(12), 3);
	struct fxt_uobj u = { .pointer = 0xdead, .process = fxt_thread_inl(100, 999),
			      .name = fxt_str_inl("obj", 3), .args = &ua, .nargs = 1 };
	uint64_t uw[] = { F(6, 0) | F(5, 4) | F(0, 16) | F(0x8003, 24) | F(1, 40), 0xdead, 100,
			  S8("obj\0\0\0\0\0"), 0x00000003000c0011ULL };
	expect("userspace object, inline process", fxt_uobj_write(fresh(), &u), fxt_uobj_words(&u),
	       uw, 5);
	u.process = fxt_thread_idx(8);
	u.nargs = 0;
	uint64_t uw2[] = { F(6, 0) | F(3, 4) | F(8, 16) | F(0x8003, 24), 0xdead,
			   S8("obj\0\0\0\0\0") };
	expect("userspace object, indexed process", fxt_uobj_write(fresh(), &u), fxt_uobj_words(&u),
	       uw2, 3);

	/* kernel object: a thread named "main" with its "process" koid argument */
	struct fxt_warg ka = fxt_arg_koid(fxt_str_inl("process", 7), 100);
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_THREAD, .koid = 77,
			      .name = fxt_str_inl("main", 4), .args = &ka, .nargs = 1 };
	uint64_t kw[] = { F(7, 0) | F(6, 4) | F(2, 16) | F(0x8004, 24) | F(1, 40), 77,
			  S8("main\0\0\0\0"), F(8, 0) | F(3, 4) | F(0x8007, 16),
			  S8("process\0"), 100 };
	expect("kernel object with a koid argument", fxt_kobj_write(fresh(), &k), fxt_kobj_words(&k),
	       kw, 6);

	/* context switch: cpu 3, outgoing state blocked (3) */
	struct fxt_cswitch cs = { .cpu = 3, .out_state = 3, .ts = 50, .out_tid = 10, .in_tid = 11 };
	uint64_t csw[] = { F(8, 0) | F(4, 4) | F(0, 16) | F(3, 20) | F(3, 36) | F(1, 60), 50, 10, 11 };
	expect("context switch", fxt_cswitch_write(fresh(), &cs), fxt_cswitch_words(&cs), csw, 4);
	cs.cpu = 0x10000;
	ok(fxt_cswitch_write(fresh(), &cs) == -EINVAL && buf[0] == 0,
	   "context switch cpu 65536 (past 16 bits) is refused");

	/* thread wakeup: cpu 5, one int32 "weight" argument (name index 13) */
	struct fxt_warg wa = fxt_arg_int32(fxt_str_idx(13), 100);
	struct fxt_wakeup wk = { .cpu = 5, .ts = 60, .waking_tid = 12, .args = &wa, .nargs = 1 };
	uint64_t wkw[] = { F(8, 0) | F(4, 4) | F(1, 16) | F(5, 20) | F(2, 60), 60, 12,
			   0x00000064000d0011ULL };
	expect("thread wakeup", fxt_wakeup_write(fresh(), &wk), fxt_wakeup_words(&wk), wkw, 4);

	/* legacy context switch: outgoing indexed (4), incoming inline */
	struct fxt_legacy_cswitch lc = { .cpu = 2, .out_state = 2, .out = fxt_thread_idx(4),
					 .in = fxt_thread_inl(300, 301), .out_prio = 10,
					 .in_prio = 20, .ts = 70 };
	uint64_t lcw[] = { F(8, 0) | F(4, 4) | F(2, 16) | F(2, 24) | F(4, 28) | F(0, 36) |
				   F(10, 44) | F(20, 52) | F(0, 60),
			   70, 300, 301 };
	expect("legacy context switch", fxt_legacy_cswitch_write(fresh(), &lc),
	       fxt_legacy_cswitch_words(&lc), lcw, 4);

	/* log: inline thread, 9-byte message */
	struct fxt_log lg = { .thread = fxt_thread_inl(1, 2), .ts = 80, .msg = "hi there!",
			      .len = 9 };
	uint64_t lgw[] = { F(9, 0) | F(6, 4) | F(9, 16) | F(0, 32), 80, 1, 2, S8("hi there"),
			   S8("!\0\0\0\0\0\0\0") };
	expect("log, inline thread", fxt_log_write(fresh(), &lg), fxt_log_words(&lg), lgw, 6);
	lg.thread = fxt_thread_idx(6);
	uint64_t lgw2[] = { F(9, 0) | F(4, 4) | F(9, 16) | F(6, 32), 80, S8("hi there"),
			    S8("!\0\0\0\0\0\0\0") };
	expect("log, indexed thread", fxt_log_write(fresh(), &lg), fxt_log_words(&lg), lgw2, 4);

	/* large blob with metadata (format 0) */
	struct fxt_warg la = fxt_arg_bool(fxt_str_idx(14), 1);
	struct fxt_large_blob l0 = { .format = FXT_LBF_METADATA, .category = fxt_str_idx(1),
				     .name = fxt_str_inl("lb", 2), .thread = fxt_thread_idx(2),
				     .ts = 90, .args = &la, .nargs = 1, .data = "12345", .size = 5 };
	uint64_t l0w[] = { F(15, 0) | F(7, 4) | F(0, 36) | F(0, 40),
			   F(1, 0) | F(0x8002, 16) | F(1, 32) | F(2, 36),
			   S8("lb\0\0\0\0\0\0"),
			   90,
			   0x00000001000e0019ULL,
			   5,
			   S8("12345\0\0\0") };
	expect("large blob with metadata", fxt_large_blob_write(fresh(), &l0),
	       fxt_large_blob_words(&l0), l0w, 7);

	/* large blob without metadata (format 1), 16-byte payload (not padded) */
	struct fxt_large_blob l1 = { .format = FXT_LBF_NO_METADATA, .category = fxt_str_idx(1),
				     .name = fxt_str_idx(2), .data = "0123456789abcdef", .size = 16 };
	uint64_t l1w[] = { F(15, 0) | F(5, 4) | F(0, 36) | F(1, 40), F(1, 0) | F(2, 16), 16,
			   S8("01234567"), S8("89abcdef") };
	expect("large blob without metadata", fxt_large_blob_write(fresh(), &l1),
	       fxt_large_blob_words(&l1), l1w, 5);

	/* a large blob may pass 4095 words: its size field has 32 bits */
	static char big[40000];
	l1.data = big;
	l1.size = sizeof(big);
	int n = fxt_large_blob_write(fresh(), &l1);
	ok(n == 3 + 5000 && (buf[0] >> 4 & 0xffffffffULL) == 5003,
	   "a 40000-byte large blob is one 5003-word record");
}

static void limits(void)
{
	static char a[40000];
	memset(a, 'a', sizeof(a));

	/* An inline name over 32000 bytes is cut to 32000. */
	struct fxt_event e = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(2),
					    fxt_str_inl(a, sizeof(a)), 1);
	int n = fxt_event_write(fresh(), &e);
	ok(n == 2 + 4000 && (buf[0] >> 48) == (0x8000 | 32000),
	   "an inline string of 40000 bytes is cut to 32000 (ref 0x8000|32000, 4000 words)");
	ok(fxt_string_words(a, sizeof(a)) == 4001 && fxt_string_write(fresh(), 1, a, 40000) == 4001 &&
		   (buf[0] >> 32 & 0x7fff) == 32000,
	   "a string record of 40000 bytes is cut to 32000");

	/* The cut never splits a UTF-8 sequence: a 2-byte char across byte 32000 drops whole,
	 * and so does a 4-byte one. */
	memcpy(a + 31999, "\xc3\xa9", 2);
	ok(fxt_utf8_cut(a, 40000, 32000) == 31999, "a 2-byte UTF-8 char at 31999..32000 is dropped whole");
	memcpy(a + 31998, "\xf0\x9f\x98\x80", 4);
	ok(fxt_utf8_cut(a, 40000, 32000) == 31998, "a 4-byte UTF-8 char at 31998..32001 is dropped whole");
	memcpy(a + 31996, "\xf0\x9f\x98\x80", 4);
	a[32000] = 'a';
	ok(fxt_utf8_cut(a, 40000, 32000) == 32000, "a 4-byte char ending at byte 32000 is kept");
	ok(fxt_utf8_cut(a, 100, 32000) == 100, "strings within the limit are not cut");
	memset(a, 'a', sizeof(a));
	memcpy(a + 31999, "\xc3\xa9", 2);
	e.name = fxt_str_inl(a, 40000);
	ok(fxt_event_write(fresh(), &e) == 2 + 4000 && (buf[0] >> 48) == (0x8000 | 31999) &&
		   ((unsigned char *)&buf[2])[31998] == 'a' && ((unsigned char *)&buf[2])[31999] == 0,
	   "the event's inline name stops before the split char and is zero-padded");

	/* Records that would pass 4095 words are refused, not written. */
	e.category = fxt_str_inl(a, 20000);
	e.name = fxt_str_inl(a, 20000);
	ok(fxt_event_words(&e) == 0, "words() is 0 for an event of 5002 words");
	ok(fxt_event_write(fresh(), &e) == -E2BIG && buf[0] == 0 && buf[1] == POISON,
	   "an event of 5002 words is refused with -E2BIG and nothing is written");
	struct fxt_warg big = fxt_arg_string(fxt_str_idx(1), fxt_str_inl(a, 32000));
	struct fxt_kobj k = { .obj_type = 1, .koid = 1, .name = fxt_str_inl(a, 1000), .args = &big,
			      .nargs = 1 };
	ok(fxt_kobj_words(&k) == 0 && fxt_kobj_write(fresh(), &k) == -E2BIG,
	   "a kernel object whose argument pushes it past 4095 words is refused");
	e.category = fxt_str_idx(2);
	e.name = fxt_str_inl(a, 32000);
	struct fxt_warg fill = fxt_arg_string(fxt_str_idx(1), fxt_str_inl(a, 736));
	e.args = &fill;
	e.nargs = 1;
	ok(fxt_event_words(&e) == 4095 && fxt_event_write(fresh(), &e) == 4095,
	   "an event of exactly 4095 words is accepted");
	fill.v.str.len = 737;
	ok(fxt_event_words(&e) == 0 && fxt_event_write(fresh(), &e) == -E2BIG,
	   "one more word (4096) is refused");

	/* An argument has its own 12-bit size: inside a large blob it is the limit that bites. */
	struct fxt_warg huge = fxt_arg_string(fxt_str_inl(a, 32000), fxt_str_inl(a, 752));
	struct fxt_large_blob lb = { .format = FXT_LBF_METADATA, .thread = fxt_thread_idx(1),
				     .args = &huge, .nargs = 1 };
	n = fxt_large_blob_write(fresh(), &lb);
	ok(fxt_arg_words(&huge) == 4095 && n == 4 + 4095 && (buf[3] >> 4 & 0xfff) == 4095,
	   "a large blob argument of exactly 4095 words is written with size 4095");
	huge.v.str.len = 753;
	ok(fxt_arg_words(&huge) == 0 && fxt_large_blob_words(&lb) == 0 &&
		   fxt_large_blob_write(fresh(), &lb) == -E2BIG && buf[0] == 0 && buf[1] == POISON,
	   "a large blob argument of 4096 words is refused with -E2BIG and nothing is written");

	struct fxt_blob b = { .name = fxt_str_idx(1), .type = 1, .data = a, .size = 0x8000 };
	ok(fxt_blob_words(&b) == 0 && fxt_blob_write(fresh(), &b) == -EINVAL,
	   "a blob of 32768 bytes (past its 15-bit size field) is refused");
	struct fxt_event badref = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(0x8000),
						 fxt_str_idx(1), 1);
	ok(fxt_event_write(fresh(), &badref) == -EINVAL, "a string index of 0x8000 is refused");

	/* Padding bytes of streams are zero even over dirty memory. */
	struct fxt_event p = fxt_ev_instant(fxt_thread_idx(1), fxt_str_idx(2),
					    fxt_str_inl("x", 1), 1);
	fxt_event_write(fresh(), &p);
	ok(buf[2] == S8("x\0\0\0\0\0\0\0"), "a 1-byte stream is followed by 7 zero bytes");
}

int main(void)
{
	reserve();
	metadata();
	init_string_thread();
	events();
	arguments();
	other_records();
	limits();
	return done();
}
