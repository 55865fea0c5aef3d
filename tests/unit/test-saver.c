/* Unit test of the manager's last save of a provider (launcher/saver.c fxt_saver_finish) over a
 * durable area with a hole: a reservation a killed thread never wrote (exit() ends threads
 * mid-record), then a string record, then a chunk event naming that string. Claims: the
 * string after the hole reaches the archive, so the event is saved and the provider's data is
 * not reported corrupt; the hole's words are left out. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "launcher/saver.h"
#include "writer/chunk.h"
#include "writer/records.h"

#define SIZE (1u << 20)
#define PID 4242u

static void durable_string(struct fxt_buf *b, uint16_t index, const char *s)
{
	uint32_t len = (uint32_t)strlen(s);
	uint64_t *r = fxt_buf_durable_reserve(b, fxt_string_words(s, len));
	if (r)
		fxt_string_write(r, index, s, len);
}

int main(void)
{
	void *mem = aligned_alloc(4096, SIZE);
	struct fxt_buf b;
	if (mem)
		memset(mem, 0, SIZE);	/* as a new buffer file: zero headers are uncommitted */
	if (!ok(mem && fxt_buf_init(&b, mem, SIZE, 64 * 1024, 64 * 1024, FXT_BUF_ONESHOT, PID) == 0,
		"buffer made"))
		return done();
	durable_string(&b, 1, "cat");
	ok(fxt_buf_durable_reserve(&b, 3) != NULL, "a reservation left unwritten (the hole)");
	durable_string(&b, 2, "after-the-hole");
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, &b, NULL);
	struct fxt_event e = fxt_ev_complete(fxt_thread_inl(PID, PID), fxt_str_idx(1),
					     fxt_str_idx(2), 100, 200);
	uint64_t *r = fxt_chunk_reserve(&w, fxt_event_words(&e));
	ok(r && fxt_event_write(r, &e) > 0, "an event naming the string after the hole");
	fxt_chunk_flush(&w);
	__atomic_store_n(&b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);

	struct fxt_saved s = { .pid = (int)PID, .ppid = 1, .id = 1, .live = b.hdr };
	struct fxt_out *o = malloc(sizeof(*o));
	FILE *f = tmpfile();
	int rc = -1;
	if (o && f && fxt_buf_attach_copy(&s.buf, mem, SIZE, &s.layout) == 0 &&
	    (s.chunks = calloc(s.layout.nchunks + 1, sizeof(*s.chunks))) &&
	    fxt_out_start(o, fileno(f)) == 0)
		rc = fxt_saver_finish(o, &s, 0, 1000000000);
	ok(rc == 0, "last save done");
	const char *bad = s.vet ? fxt_vet_problem(s.vet) : "no vetting";
	ok(!bad, "provider data not reported corrupt (%s)", bad ? bad : "none");
	ok(s.st.events == 1, "the event saved (%llu events)", (unsigned long long)s.st.events);
	ok(s.durable_saved / 8 == __atomic_load_n(&b.hdr->durable_used, __ATOMIC_RELAXED) / 8,
	   "the whole durable area consumed, hole included");
	if (f)
		fclose(f);
	fxt_vet_free(s.vet);
	free(s.chunks);
	free(s.koids);
	free(o);
	free(mem);
	return done();
}
