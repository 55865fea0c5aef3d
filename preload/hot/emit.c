/* Records the preload writes besides the 24-byte fast event, through the writer's builders
 * (writer/records.h): string and kernel object records into the durable area, the thread
 * record that opens each chunk of a recycled thread index, and complete events with an inline
 * name or inline thread koids. Each is sized first, reserved once, written, and committed
 * header last (release). No malloc, no locks: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "preload/hot/emit.h"
#include "preload/base/fxtp.h"
#include "writer/records.h"

/* Reserves exactly `words` durable words (words == 0: the record cannot be encoded). */
static uint64_t *durable(uint32_t words)
{
	return words ? fxt_buf_durable_reserve(&fxtp.buf, words) : NULL;
}

int fxtp_emit_string(uint32_t index, const char *s, uint32_t len)
{
	uint64_t *r = durable(fxt_string_words(s, len));
	if (!r)
		return -ENOSPC;
	return fxt_string_write(r, (uint16_t)index, s, len) < 0 ? -EINVAL : 0;
}

int fxtp_emit_kobj(unsigned obj_type, uint64_t koid, const char *name, uint32_t len,
		   uint64_t process_koid)
{
	struct fxt_warg process = fxt_arg_koid(fxt_str_inl("process", 7), process_koid);
	struct fxt_kobj o = {
		.obj_type = obj_type,
		.koid = koid,
		.name = fxt_str_inl(name, len),
		.args = &process,
		.nargs = obj_type == FXT_OBJ_TYPE_THREAD,
	};
	uint64_t *r = durable(fxt_kobj_words(&o));
	if (!r)
		return -ENOSPC;
	return fxt_kobj_write(r, &o) < 0 ? -EINVAL : 0;
}

void fxtp_thread_record(uint64_t rec[3], uint32_t index, uint64_t pid, uint64_t tid)
{
	rec[0] = 0;
	fxt_thread_write(rec, (uint8_t)index, pid, tid);
}

int fxtp_emit_complete(struct fxt_chunk_w *w, uint32_t thread_index, uint64_t pid, uint64_t tid,
		       uint16_t name_ref, const char *name, uint32_t name_len, uint64_t start,
		       uint64_t end)
{
	struct fxt_event e = fxt_ev_complete(
		thread_index ? fxt_thread_idx((uint8_t)thread_index) : fxt_thread_inl(pid, tid),
		fxt_str_idx(0), name ? fxt_str_inl(name, name_len) : fxt_str_idx(name_ref), start,
		end);
	uint32_t words = fxt_event_words(&e);
	uint64_t *r = words ? fxt_chunk_reserve(w, words) : NULL;
	if (!r)
		return -ENOSPC;
	return fxt_event_write(r, &e) < 0 ? -EINVAL : 0;
}
