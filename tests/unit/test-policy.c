/* Unit test of the streaming policy's reuse rule (writer/policy.c streaming_take): a chunk is
 * taken again only once it was left two wraps before the taker's, and never when it was left at
 * a wrap after the taker's. That state is a taker held up between getting its slot in wrap w
 * and claiming the chunk, while the halves went round and another writer filled the chunk and
 * left it at wrap w + 2, before that wrap's save was even asked for; claiming it then wiped
 * records no save had read (completeness '--overflow drop' lost exactly one chunk's calls about
 * once in 60 runs beside CPU hogs). The test sets that state up directly: the roll at wrap 4,
 * the half's first chunks left at wraps 6, 3 and 2. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "policy-stub.h"
#include "writer/buffer.h"
#include "writer/policy.h"

#define SIZE (64u * 1024)
#define CHUNK 1024u


/* Word 0 of a chunk of sequence seq that its writer left at wrap `wrap`. */
static uint64_t left(uint64_t seq, uint64_t wrap)
{
	return seq | FXT_CHUNK_CLOSED | wrap << FXT_CHUNK_WRAP_SHIFT;
}

int main(void)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b = { 0 };
	struct fxt_policy_state st;
	int made = mem && !fxt_buf_init(&b, memset(mem, 0, SIZE), SIZE, 4096, CHUNK,
					FXT_BUF_STREAMING, 1) &&
		   !fxt_policy_install(&b, &st, &stub_ops);
	if (!ok(made, "a streaming buffer of %u chunks", made ? b.hdr->nchunks : 0))
		return done();
	uint64_t *c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (uint64_t *)fxt_buf_chunk(&b, (uint32_t)i);	/* half 0: even wraps */
	stub_acks = 1u << 20;	/* every save acknowledged: only the chunks' own words decide */
	atomic_store(&st.roll, (uint64_t)4 << 32);	/* wrap 4 (half 0), no chunk taken yet */
	c[0][0] = left(20, 6);	/* filled after the taker's wrap: its save not asked yet */
	c[0][1] = 0xfeed;
	c[1][0] = left(11, 3);	/* left one wrap ago: its save not acknowledged for sure */
	c[1][1] = 0xbeef;
	c[2][0] = left(9, 2);	/* left two wraps ago: saved */
	c[2][1] = 0xcafe;
	uint64_t *got = fxt_buf_chunk_take(&b);
	ok(got == c[2], "the taker gets the chunk left two wraps before its own (chunk %ld)",
	   got ? (long)((uint8_t *)got - (uint8_t *)c[0]) / CHUNK : -1L);
	ok(c[0][0] == left(20, 6) && c[0][1] == 0xfeed,
	   "a chunk left at a wrap after the taker's keeps its records");
	ok(c[1][0] == left(11, 3) && c[1][1] == 0xbeef,
	   "a chunk left one wrap before keeps its records");
	ok(got && got[1] == 0 && fxt_chunk_word_seq(got[0]) != 0,
	   "the chunk taken is cleared and numbered again");
	free(mem);
	return done();
}
