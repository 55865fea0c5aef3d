/* writer/strtab.h and thrtab.h: interning hands out indexes 1..32767 (1..255 for threads) and
 * says when a record must be emitted; past the limit slots are recycled (CLOCK for strings, LRU
 * for threads), the displaced entry is forgotten and every other one stays findable; strings
 * are cut to 32000 bytes like the string record. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "writer/strtab.h"
#include "writer/thrtab.h"

#define NSTR 100000
static char names[NSTR][9]; /* "s0000000".. : distinct 8-byte strings that outlive the table */
static struct fxt_strtab tab;

static const char *nm(int i)
{
	return names[i];
}

/* Every used slot is found again by its own content (the hash chains are intact). */
static int all_findable(void)
{
	for (uint32_t i = 1; i <= FXT_STRTAB_SLOTS; i++) {
		uint32_t len;
		const char *s = fxt_strtab_str(&tab, i, &len);
		if (!s || fxt_strtab_find(&tab, s, len) != (int)i)
			return 0;
	}
	return 1;
}

static void strings(void)
{
	int fresh, fresh2;
	for (int i = 0; i < NSTR; i++)
		snprintf(names[i], sizeof(names[i]), "s%07d", i);
	fxt_strtab_init(&tab);

	int a = fxt_strtab_intern(&tab, "alpha", 5, &fresh);
	ok(a == 1 && fresh == 1, "the first string gets index 1 and must be emitted");
	int again = fxt_strtab_intern(&tab, "alpha", 5, &fresh);
	ok(again == 1 && fresh == 0, "interning it again gives index 1 with nothing to emit");
	ok(fxt_strtab_intern(&tab, "alphabet", 5, &fresh) == 1,
	   "the same bytes from another pointer give the same index");
	ok(fxt_strtab_intern(&tab, "beta", 4, &fresh) == 2 && fresh == 1,
	   "a second string gets index 2");
	ok(fxt_strtab_intern(&tab, "", 0, &fresh) == 0 && fresh == 0,
	   "the empty string is index 0 (empty ref), nothing to emit");
	ok(fxt_strtab_intern(&tab, NULL, 3, &fresh) == -EINVAL, "a NULL string is refused");
	ok(fxt_strtab_find(&tab, "beta", 4) == 2 && fxt_strtab_find(&tab, "gamma", 5) == 0,
	   "find returns the index of interned strings and 0 for others");

	/* Truncation: a 40000-byte string is interned as its first 32000 bytes. */
	static char longs[40000];
	memset(longs, 'L', sizeof(longs));
	int li = fxt_strtab_intern(&tab, longs, sizeof(longs), &fresh);
	uint32_t len = 0;
	ok(fxt_strtab_str(&tab, (uint32_t)li, &len) == longs && len == 32000,
	   "a 40000-byte string is stored cut to 32000 bytes");
	ok(fxt_strtab_intern(&tab, longs, 32000, &fresh) == li && fresh == 0,
	   "its 32000-byte prefix is the same entry");

	/* Fill the table: 32767 distinct strings get 1..32767, each once. */
	fxt_strtab_init(&tab);
	int seq = 1;
	for (int i = 0; i < (int)FXT_STRTAB_SLOTS; i++) {
		int idx = fxt_strtab_intern(&tab, nm(i), 8, &fresh);
		seq &= idx == i + 1 && fresh == 1;
	}
	ok(seq, "32767 distinct strings get indexes 1..32767 in order, each to be emitted");
	ok(tab.recycled == 0 && all_findable(), "all 32767 are findable, none recycled yet");

	/* The 32768th recycles a slot. */
	int r1 = fxt_strtab_intern(&tab, nm(FXT_STRTAB_SLOTS), 8, &fresh);
	ok(r1 >= 1 && r1 <= 0x7fff && fresh == 1 && tab.recycled == 1,
	   "string index recycles after 32767 entries and the caller must emit it");
	ok(fxt_strtab_find(&tab, nm(r1 - 1), 8) == 0,
	   "the string that held the recycled slot is forgotten");
	ok(all_findable(), "every other string is still findable after the recycle");

	/* A just-interned string is not recycled by the next intern (two refs of one record). */
	int r2 = fxt_strtab_intern(&tab, nm(FXT_STRTAB_SLOTS + 1), 8, &fresh2);
	ok(r2 != r1 && fxt_strtab_find(&tab, nm(FXT_STRTAB_SLOTS), 8) == r1,
	   "the next intern does not take the slot just handed out");

	/* CLOCK: a string looked up since the hand last passed survives the next recycling. */
	int next = r2 % FXT_STRTAB_SLOTS + 1;	/* the slot the hand reaches next */
	int hot = next % FXT_STRTAB_SLOTS + 1;	/* the one after it */
	uint32_t hl;
	const char *hs = fxt_strtab_str(&tab, (uint32_t)hot, &hl);
	fxt_strtab_intern(&tab, hs, hl, &fresh);
	int r3 = fxt_strtab_intern(&tab, nm(FXT_STRTAB_SLOTS + 2), 8, &fresh);
	int r4 = fxt_strtab_intern(&tab, nm(FXT_STRTAB_SLOTS + 3), 8, &fresh);
	ok(r3 == next && r4 != hot && fxt_strtab_find(&tab, hs, hl) == hot,
	   "a recently used string keeps its slot while the hand skips it (second chance)");

	/* Heavy churn keeps the table consistent. */
	int churn = 1;
	for (int i = (int)FXT_STRTAB_SLOTS + 4; i < NSTR; i++) {
		int idx = fxt_strtab_intern(&tab, nm(i), 8, &fresh);
		churn &= idx >= 1 && idx <= (int)FXT_STRTAB_SLOTS && fresh == 1;
	}
	ok(churn, "100000 distinct strings all get indexes in [1,32767]");
	ok(all_findable(), "after 67000 recycles every slot is still found by its content");
	int last = 1;
	for (int i = NSTR - FXT_STRTAB_SLOTS; i < NSTR; i++)
		last &= fxt_strtab_find(&tab, nm(i), 8) > 0;
	ok(last, "the 32767 most recent strings are exactly the ones in the table");
	ok(fxt_strtab_find(&tab, nm(0), 8) == 0, "the oldest string was recycled away");
}

static void threads(void)
{
	static struct fxt_thrtab t;
	int fresh;
	fxt_thrtab_init(&t);
	int seq = 1;
	for (uint64_t i = 0; i < FXT_THRTAB_SLOTS; i++) {
		int idx = fxt_thrtab_intern(&t, 1000, 2000 + i, &fresh);
		seq &= idx == (int)i + 1 && fresh == 1;
	}
	ok(seq, "255 threads get indexes 1..255 in order, each to be emitted");
	ok(fxt_thrtab_intern(&t, 1000, 2000, &fresh) == 1 && fresh == 0,
	   "a registered thread keeps its index with nothing to emit");
	ok(fxt_thrtab_intern(&t, 1001, 2000, &fresh) != 1 && fresh == 1,
	   "the same tid in another process is another thread");
	ok(t.recycled == 1, "the 256th thread recycles a slot");
	int r = fxt_thrtab_intern(&t, 1000, 9999, &fresh);
	ok(r >= 1 && r <= 255 && fresh == 1 && t.recycled == 2,
	   "thread index recycles past 255 and the caller must emit a thread record");
	ok(fxt_thrtab_owns(&t, (uint32_t)r, 1000, 9999) &&
		   !fxt_thrtab_owns(&t, (uint32_t)r, 1000, 2000 + (uint64_t)r - 1),
	   "the recycled slot belongs to the new thread, not the one it displaced");
	ok(fxt_thrtab_owns(&t, 1, 1000, 2000), "a recently used thread survived the recycling");
	ok(!fxt_thrtab_owns(&t, 0, 0, 0) && !fxt_thrtab_owns(&t, 256, 1000, 2000),
	   "indexes 0 and 256 belong to no thread");
	int inrange = 1;
	for (uint64_t i = 0; i < 2000; i++) {
		int idx = fxt_thrtab_intern(&t, 7, i, &fresh);
		inrange &= idx >= 1 && idx <= 255 && fxt_thrtab_owns(&t, (uint32_t)idx, 7, i);
	}
	ok(inrange, "2000 more threads each get an index in [1,255] that they own");
}

int main(void)
{
	strings();
	threads();
	return done();
}
