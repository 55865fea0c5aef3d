/* The sweep's out-of-line part (writer/sweep.h): when a record found happened, and the walk of a
 * durable area past a hole, which only the finishes take (the standalone file's, the manager's
 * last save). No I/O, no malloc: async-signal-safe. */
/* SPDX-License-Identifier: MIT */
#include "writer/sweep.h"

#include "writer/fields.h"

size_t fxt_sweep_peek_durable(struct fxt_sweep *s, int hole)
{
	size_t n = fxt_sweep_peek(s);
	unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, s->header);
	if (!n || !hole || type == FXT_RT_STRING || type == FXT_RT_THREAD ||
	    type == FXT_RT_KERNEL_OBJECT || type == FXT_RT_USERSPACE_OBJECT)
		return n;
	s->stop = FXT_SWEEP_TORN;
	return 0;
}

uint64_t fxt_sweep_stamp(const struct fxt_sweep *s, size_t n)
{
	const uint64_t *p = s->p + s->at;
	unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, p[0]);
	if ((type != FXT_RT_EVENT && type != FXT_RT_LOG) || n < 2)
		return 0;
	if (type == FXT_RT_EVENT && n >= 3 &&
	    fxt_field_get(FXT_EVENT_TYPE, p[0]) == FXT_ET_DURATION_COMPLETE && p[n - 1] > p[1])
		return p[n - 1];
	return p[1];
}
