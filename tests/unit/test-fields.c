/* writer/fields.h against the spec: every field mask covers exactly the bit range that the spec
 * gives (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format; checked bit by bit
 * from the numbers copied out of the spec, not from FXT_BITS), packing round-trips and drops
 * overflow, and header fields do not overlap. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "check.h"
#include "writer/fields.h"

struct span {
	const char *name;
	uint64_t mask;
	unsigned lo, hi; /* inclusive, as printed in the spec */
};

#define S(m, lo, hi) { #m, m, lo, hi }
static const struct span spans[] = {
	S(FXT_RECORD_TYPE, 0, 3),	   S(FXT_RECORD_SIZE, 4, 15),
	S(FXT_LARGE_RECORD_SIZE, 4, 35),   S(FXT_LARGE_RECORD_TYPE, 36, 39),
	S(FXT_LARGE_BLOB_FORMAT, 40, 43),  S(FXT_META_TYPE, 16, 19),
	S(FXT_META_PROVIDER_ID, 20, 51),   S(FXT_META_NAME_LEN, 52, 59),
	S(FXT_META_EVENT_ID, 52, 55),	   S(FXT_META_TRACE_INFO_TYPE, 20, 23),
	S(FXT_META_MAGIC, 24, 55),	   S(FXT_STRING_INDEX, 16, 30),
	S(FXT_STRING_LEN, 32, 46),	   S(FXT_THREAD_INDEX, 16, 23),
	S(FXT_EVENT_TYPE, 16, 19),	   S(FXT_EVENT_ARG_CNT, 20, 23),
	S(FXT_EVENT_THREAD_REF, 24, 31),   S(FXT_EVENT_CATEGORY_REF, 32, 47),
	S(FXT_EVENT_NAME_REF, 48, 63),	   S(FXT_BLOB_NAME_REF, 16, 31),
	S(FXT_BLOB_SIZE, 32, 46),	   S(FXT_BLOB_TYPE, 48, 55),
	S(FXT_UOBJ_THREAD_REF, 16, 23),	   S(FXT_UOBJ_NAME_REF, 24, 39),
	S(FXT_UOBJ_ARG_CNT, 40, 43),	   S(FXT_KOBJ_TYPE, 16, 23),
	S(FXT_KOBJ_NAME_REF, 24, 39),	   S(FXT_KOBJ_ARG_CNT, 40, 43),
	S(FXT_SCHED_TYPE, 60, 63),	   S(FXT_SCHED_ARG_CNT, 16, 19),
	S(FXT_SCHED_CPU, 20, 35),	   S(FXT_SCHED_OUT_STATE, 36, 39),
	S(FXT_LEGACY_CS_CPU, 16, 23),	   S(FXT_LEGACY_CS_OUT_STATE, 24, 27),
	S(FXT_LEGACY_CS_OUT_THREAD, 28, 35), S(FXT_LEGACY_CS_IN_THREAD, 36, 43),
	S(FXT_LEGACY_CS_OUT_PRIO, 44, 51), S(FXT_LEGACY_CS_IN_PRIO, 52, 59),
	S(FXT_LOG_MSG_LEN, 16, 30),	   S(FXT_LOG_THREAD_REF, 32, 39),
	S(FXT_LBLOB_CATEGORY_REF, 0, 15),  S(FXT_LBLOB_NAME_REF, 16, 31),
	S(FXT_LBLOB_ARG_CNT, 32, 35),	   S(FXT_LBLOB_THREAD_REF, 36, 43),
	S(FXT_ARG_TYPE, 0, 3),		   S(FXT_ARG_SIZE, 4, 15),
	S(FXT_ARG_NAME_REF, 16, 31),	   S(FXT_ARG_VALUE32, 32, 63),
	S(FXT_ARG_STRING_REF, 32, 47),	   S(FXT_ARG_BOOL, 32, 32),
};

static int covers_exactly(const struct span *s)
{
	for (unsigned b = 0; b < 64; b++)
		if (!!(s->mask & (1ULL << b)) != (b >= s->lo && b <= s->hi))
			return 0;
	return 1;
}

/* Fields of one header word, to check they are pairwise disjoint. */
static int disjoint(const uint64_t *m, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (m[i] & m[j])
				return 0;
	return 1;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		const struct span *s = &spans[i];
		ok(covers_exactly(s), "%s covers exactly bits %u..%u", s->name, s->lo, s->hi);
		uint64_t max = s->hi - s->lo == 63 ? ~0ULL : (1ULL << (s->hi - s->lo + 1)) - 1;
		ok(FXT_FIELD_MAX(s->mask) == max, "%s holds values up to %#llx", s->name,
		   (unsigned long long)max);
		uint64_t v = 0x5a5a5a5a5a5a5a5aULL & max;
		ok(fxt_field_get(s->mask, fxt_field_prep(s->mask, v)) == v &&
			   (fxt_field_prep(s->mask, v) & ~s->mask) == 0,
		   "%s packs %#llx into its bits only and reads it back", s->name,
		   (unsigned long long)v);
		ok(fxt_field_prep(s->mask, max + 1) == 0 || max == ~0ULL,
		   "%s drops bits beyond its width", s->name);
	}

	ok(fxt_field_get(FXT_EVENT_NAME_REF, 0xbeef000000000000ULL) == 0xbeef,
	   "the event name ref is the top 16 bits of the header");
	ok(fxt_field_prep(FXT_RECORD_SIZE, 3) == 0x30, "record size 3 packs as 0x30");

	const uint64_t ev[] = { FXT_RECORD_TYPE, FXT_RECORD_SIZE, FXT_EVENT_TYPE, FXT_EVENT_ARG_CNT,
				FXT_EVENT_THREAD_REF, FXT_EVENT_CATEGORY_REF, FXT_EVENT_NAME_REF };
	ok(disjoint(ev, 7) && (ev[0] | ev[1] | ev[2] | ev[3] | ev[4] | ev[5] | ev[6]) == ~0ULL,
	   "event header fields tile the whole word without overlap");
	const uint64_t lcs[] = { FXT_RECORD_TYPE, FXT_RECORD_SIZE, FXT_LEGACY_CS_CPU,
				 FXT_LEGACY_CS_OUT_STATE, FXT_LEGACY_CS_OUT_THREAD,
				 FXT_LEGACY_CS_IN_THREAD, FXT_LEGACY_CS_OUT_PRIO,
				 FXT_LEGACY_CS_IN_PRIO, FXT_SCHED_TYPE };
	ok(disjoint(lcs, 9), "legacy context switch header fields do not overlap");
	const uint64_t cs[] = { FXT_RECORD_TYPE, FXT_RECORD_SIZE, FXT_SCHED_ARG_CNT, FXT_SCHED_CPU,
				FXT_SCHED_OUT_STATE, FXT_SCHED_TYPE };
	ok(disjoint(cs, 6), "context switch header fields do not overlap");

	const unsigned char magic[8] = { 0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00 };
	uint64_t m = FXT_MAGIC_RECORD;
	ok(memcmp(&m, magic, 8) == 0, "FXT_MAGIC_RECORD is the bytes 10 00 04 46 78 54 16 00");
	ok(fxt_field_get(FXT_META_MAGIC, m) == FXT_MAGIC && FXT_MAGIC == 0x16547846u,
	   "the magic number field of that word is 0x16547846");

	ok(fxt_pad_words(0) == 0 && fxt_pad_words(1) == 1 && fxt_pad_words(8) == 1 &&
		   fxt_pad_words(9) == 2 && fxt_pad_words(32000) == 4000,
	   "streams pad to whole words: 0->0, 1->1, 8->1, 9->2, 32000->4000");
	ok(FXT_STRREF_INLINE == 0x8000 && FXT_STRREF_LEN_MASK == 0x7fff,
	   "an inline string ref is the top bit plus a 15-bit length");
	return done();
}
