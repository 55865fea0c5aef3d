/* The `log` instant an FXT writer puts beside each log record for viewers that show only events
 * (FORMAT.md "Log mirrors"): recognized so that a line is shown once. A mirror is an instant of
 * category "log" on the thread of that thread's latest log record, at its time, whose "message"
 * argument is the record's message; it may follow its record at once or after the end of a
 * chunk (the padding and thread record of the next one). Memory: one entry per thread that
 * logged. One object per thread of the caller. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "client/client.h"

struct last_log {
	struct ckey key;	/* a = pid, b = tid */
	uint64_t ts;		/* ticks */
	struct fxt_sv msg;
	int live;		/* no mirror matched it yet */
};

void fxt_logs_init(struct fxt_logs *l)
{
	ctab_init(&l->last, sizeof(struct last_log));
}

void fxt_logs_free(struct fxt_logs *l)
{
	ctab_free(&l->last);
}

int fxt_logs_note(struct fxt_logs *l, const struct fxt_record *rec)
{
	struct last_log *e = ctab_ids(&l->last, rec->u.log.thread.pid, rec->u.log.thread.tid, 1);

	if (!e)
		return -ENOMEM;
	e->ts = rec->u.log.ts;
	e->msg = rec->u.log.msg;
	e->live = 1;
	return 0;
}

int fxt_logs_mirror(struct fxt_logs *l, const struct fxt_record *rec)
{
	struct last_log *e;

	if (rec->u.event.event_type != FXT_ET_INSTANT ||
	    !sv_eq(rec->u.event.category, (struct fxt_sv){ "log", 3 }) ||
	    !(e = ctab_ids(&l->last, rec->u.event.thread.pid, rec->u.event.thread.tid, 0)))
		return 0;
	if (!e->live || e->ts != rec->u.event.ts)
		return 0;
	for (unsigned a = 0; a < rec->nargs; a++)
		if (rec->args[a].type == FXT_AT_STRING &&
		    sv_eq(rec->args[a].name, (struct fxt_sv){ "message", 7 }) &&
		    sv_eq(rec->args[a].v.str, e->msg)) {
			e->live = 0;
			return 1;
		}
	return 0;
}
