/* Recording outside the hooks (record.h): what the pthread, stdio, syslog and thread-start
 * wrappers and <fxt/trace.h> share to write one event of the calling thread (lock.c, log.c,
 * spawn.c, uobj.c, api.c): taking the guard on a thread that is set up (setting it up on first
 * use, as in uninstrumented programs), constant strings interned once, the thread's ref, and
 * one event into its chunk. Used only on recording paths, never on a wrapper's uncontended
 * path. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/events/record.h"

#include <errno.h>
#include <string.h>

#include "preload/base/fxtp.h"
#include "preload/hot/names.h"
#include "preload/hot/stack.h"
#include "writer/fields.h"

struct fxtp_thread *fxtp_rec_enter(void)
{
	struct fxtp_thread *t = &fxtp_self;

	if (!fxtp_running() || !fxtp_enter(t))
		return NULL;
	if (!t->dead && fxtp_join(t) && (t->base || fxtp_stack_grow(t)))
		return t;
	fxtp_leave(t);
	return NULL;
}

struct fxt_str fxtp_cstr(struct fxtp_cstr *c)
{
	uint16_t i = __atomic_load_n(&c->index, __ATOMIC_RELAXED);
	if (!i) {
		i = (uint16_t)fxtp_name_index(c->s, (uint32_t)strlen(c->s));
		__atomic_store_n(&c->index, i, __ATOMIC_RELAXED);
	}
	return i ? fxt_str_idx(i) : fxt_str_inl(c->s, (uint32_t)strlen(c->s));
}

struct fxt_thread fxtp_thread_ref(const struct fxtp_thread *t)
{
	return t->thread_index ? fxt_thread_idx((uint8_t)t->thread_index)
			       : fxt_thread_inl((uint64_t)fxtp.pid, (uint64_t)t->tid);
}

uint32_t fxtp_rec_max_words(void)
{
	uint32_t chunk = fxtp.buf.hdr->chunk_size / 8 - 4;
	return chunk < FXT_RECORD_MAX_WORDS ? chunk : FXT_RECORD_MAX_WORDS;
}

int fxtp_rec_event(struct fxtp_thread *t, const struct fxt_event *e)
{
	uint32_t words = fxt_event_words(e);
	if (!words || words > fxtp_rec_max_words())
		return -EINVAL;
	uint64_t *r = fxt_chunk_reserve(&t->w, words);
	if (!r)
		return -ENOSPC;
	return fxt_event_write(r, e) < 0 ? -EINVAL : 0;
}
