/* Records the preload writes besides the 24-byte fast event: string and kernel object records
 * into the durable area, the thread record that opens each chunk, and complete events with an
 * inline name or inline thread koids. Each is sized first, reserved once, written, and
 * committed header last (release). No malloc, no locks: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "preload/fxtp.h"
#include "writer/fields.h"

/* Copies a byte stream of len bytes at dst, zero-padded to 8. */
static uint64_t *put_stream(uint64_t *dst, const char *s, uint32_t len)
{
	uint32_t nw = fxt_pad_words(len);
	if (nw) {
		dst[nw - 1] = 0;
		memcpy(dst, s, len);
	}
	return dst + nw;
}

static uint64_t record_hdr(unsigned type, uint32_t words)
{
	return fxt_field_prep(FXT_RECORD_TYPE, type) | fxt_field_prep(FXT_RECORD_SIZE, words);
}

/* trace-format.md#string-record */
int fxtp_emit_string(uint32_t index, const char *s, uint32_t len)
{
	if (len > FXT_STRING_MAX_LEN)
		len = FXT_STRING_MAX_LEN;
	uint32_t words = 1 + fxt_pad_words(len);
	uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, words);
	if (!r)
		return -ENOSPC;
	put_stream(r + 1, s, len);
	fxt_chunk_commit(r, record_hdr(FXT_RT_STRING, words) |
				    fxt_field_prep(FXT_STRING_INDEX, index) |
				    fxt_field_prep(FXT_STRING_LEN, len));
	return 0;
}

/* trace-format.md#kernel-object-record, name inline, `process` koid argument for threads. */
int fxtp_emit_kobj(unsigned obj_type, uint64_t koid, const char *name, uint32_t len,
		   uint64_t process_koid)
{
	static const char arg_name[] = "process";
	const uint32_t arg_len = sizeof(arg_name) - 1;
	if (len > 255)
		len = 255;
	unsigned nargs = obj_type == FXT_OBJ_TYPE_THREAD;
	uint32_t arg_words = 1 + fxt_pad_words(arg_len) + 1;
	uint32_t words = 2 + fxt_pad_words(len) + nargs * arg_words;
	uint64_t *r = fxt_buf_durable_reserve(&fxtp.buf, words);
	if (!r)
		return -ENOSPC;
	r[1] = koid;
	uint64_t *p = put_stream(r + 2, name, len);
	if (nargs) {
		p[0] = fxt_field_prep(FXT_ARG_TYPE, FXT_AT_KOID) |
		       fxt_field_prep(FXT_ARG_SIZE, arg_words) |
		       fxt_field_prep(FXT_ARG_NAME_REF, FXT_STRREF_INLINE | arg_len);
		p = put_stream(p + 1, arg_name, arg_len);
		p[0] = process_koid;
	}
	fxt_chunk_commit(r, record_hdr(FXT_RT_KERNEL_OBJECT, words) |
				    fxt_field_prep(FXT_KOBJ_TYPE, obj_type) |
				    fxt_field_prep(FXT_KOBJ_NAME_REF, len ? FXT_STRREF_INLINE | len : 0) |
				    fxt_field_prep(FXT_KOBJ_ARG_CNT, nargs));
	return 0;
}

/* trace-format.md#thread-record */
void fxtp_thread_record(uint64_t rec[3], uint32_t index, uint64_t pid, uint64_t tid)
{
	rec[0] = record_hdr(FXT_RT_THREAD, 3) | fxt_field_prep(FXT_THREAD_INDEX, index);
	rec[1] = pid;
	rec[2] = tid;
}

/* trace-format.md#duration-complete-event in its general form. */
int fxtp_emit_complete(struct fxt_chunk_w *w, uint32_t thread_index, uint64_t pid, uint64_t tid,
		       uint16_t name_ref, const char *name, uint32_t name_len, uint64_t start,
		       uint64_t end)
{
	if (name && name_len > FXT_STRING_MAX_LEN)
		name_len = FXT_STRING_MAX_LEN;
	uint32_t words = 3 + (thread_index ? 0 : 2) + (name ? fxt_pad_words(name_len) : 0);
	uint64_t *r = fxt_chunk_reserve(w, words);
	if (!r)
		return -ENOSPC;
	uint64_t *p = r + 1;
	*p++ = start;
	if (!thread_index) {
		*p++ = pid;
		*p++ = tid;
	}
	if (name) {
		p = put_stream(p, name, name_len);
		name_ref = (uint16_t)(FXT_STRREF_INLINE | name_len);
	}
	*p = end;
	fxt_chunk_commit(r, record_hdr(FXT_RT_EVENT, words) |
				    fxt_field_prep(FXT_EVENT_TYPE, FXT_ET_DURATION_COMPLETE) |
				    fxt_field_prep(FXT_EVENT_THREAD_REF, thread_index) |
				    fxt_field_prep(FXT_EVENT_NAME_REF, name_ref));
	return 0;
}
