/* Which threads and which stretch of time a reading command looks at (client.h): the one parser
 * of --pid, --tid, --since and --until (and report's older --from/--to) for report, json, stats
 * and replay, the trace start those options count from, and the rule every command applies:
 * a call is in the window when it lies inside it (since <= start, end <= until), a point event
 * when since <= ts <= until. Time stamps are whole nanoseconds of the archive's clock (ticks
 * converted by the reader). Not thread-safe (one selection per command); no I/O. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

const char fxt_sel_usage[] =
	"  --pid PIDS       only these processes   --tid TIDS  only these threads\n"
	"                   (comma-separated; repeatable)\n"
	"  --since TIME     only what starts at or after TIME\n"
	"  --until TIME     only what ends at or before TIME (calls crossing a bound are left\n"
	"                   out; fxt json cuts them at the bound)\n"
	"                   TIME: a stamp of the archive's clock in seconds, as fxt stats and\n"
	"                   fxt replay print them (12986.123456789, or 12986123.456789ms),\n"
	"                   or +TIME after the trace start, its earliest event (+1.2s, +250ms,\n"
	"                   +1.200 s); units ns, us, ms, s (a bare number is seconds)\n";

/* Adds the comma-separated numbers of arg to *set. Returns 0, -EINVAL or -ENOMEM. */
static int add_ids(struct fxt_idset *set, const char *arg)
{
	const char *p = arg;

	if (!*p)
		return -EINVAL;
	for (;;) {
		char *end;
		uint64_t v;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 0);
		if (errno || (*end && *end != ','))
			return -EINVAL;
		if (FXT_GROW(set->ids, &set->cap, set->n + 1) < 0)
			return -ENOMEM;
		set->ids[set->n++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int in_set(const struct fxt_idset *set, uint64_t v)
{
	if (!set->n)
		return 1;
	for (size_t i = 0; i < set->n; i++)
		if (set->ids[i] == v)
			return 1;
	return 0;
}

int fxt_sel_option(struct fxt_sel *s, int opt, const char *arg, char *err, size_t len)
{
	static const char *const names[] = { "pid", "tid", "since", "until", "from", "to" };
	const char *name = opt >= FXT_SEL_PID && opt <= FXT_SEL_TO ? names[opt - FXT_SEL_PID] : "?";
	struct fxt_when *w;
	int rc;

	switch (opt) {
	case FXT_SEL_PID:
	case FXT_SEL_TID:
		rc = add_ids(opt == FXT_SEL_PID ? &s->pids : &s->tids, arg);
		if (rc == -EINVAL)
			snprintf(err, len, "--%s %s: expected a number (or numbers separated by "
				 "commas)", name, arg);
		else if (rc < 0)
			snprintf(err, len, "out of memory");
		return rc;
	case FXT_SEL_SINCE:
	case FXT_SEL_UNTIL:
	case FXT_SEL_FROM:
	case FXT_SEL_TO:
		w = opt == FXT_SEL_SINCE || opt == FXT_SEL_FROM ? &s->since : &s->until;
		/* --from/--to (report's older names): after the trace start, + or not */
		w->rel = *arg == '+' || opt == FXT_SEL_FROM || opt == FXT_SEL_TO;
		if (fxt_time_parse_in(arg + (*arg == '+'), 1000000000, &w->ns) < 0) {
			snprintf(err, len, "--%s %s: expected a time: %s", name, arg,
				 opt >= FXT_SEL_FROM
					 ? "10ms, 1.5s, 200us or 42ns after the trace start"
					 : "a stamp in seconds as fxt stats prints it (12986.5), or "
					   "+1.5s after the trace start");
			return -EINVAL;
		}
		w->set = 1;
		return 0;
	}
	snprintf(err, len, "unknown selection option");
	return -EINVAL;
}

int fxt_sel_needs_start(const struct fxt_sel *s)
{
	return (s->since.set && s->since.rel) || (s->until.set && s->until.rel);
}

int fxt_sel_resolve(struct fxt_sel *s, uint64_t start_ns, char *err, size_t len)
{
	uint64_t base = start_ns == UINT64_MAX ? 0 : start_ns;

	s->from_ns = 0;
	s->to_ns = UINT64_MAX;
	if (s->since.set)
		s->from_ns = s->since.ns + (s->since.rel ? base : 0);
	if (s->until.set)
		s->to_ns = s->until.ns + (s->until.rel ? base : 0);
	if (s->to_ns < s->from_ns) {
		snprintf(err, len, "--until is before --since");
		return -ERANGE;
	}
	return 0;
}

int fxt_sel_check(const struct fxt_sel *s, char *err, size_t len)
{
	if (s->since.set && s->until.set && s->since.rel == s->until.rel &&
	    s->until.ns < s->since.ns) {
		snprintf(err, len, "--until is before --since");
		return -ERANGE;
	}
	return 0;
}

int fxt_sel_operands(const struct fxt_sel *s, const char *cmd, int operands, int want,
		     char *err, size_t len)
{
	if (operands != want) {
		snprintf(err, len, "expected %s (try fxt %s --help)",
			 want == 1 ? "one archive" : "two archives", cmd);
		return -EINVAL;
	}
	return fxt_sel_check(s, err, len);
}

int fxt_sel_thread(const struct fxt_sel *s, uint64_t pid, uint64_t tid)
{
	return in_set(&s->pids, pid) && in_set(&s->tids, tid);
}

int fxt_sel_process(const struct fxt_sel *s, uint64_t pid)
{
	return in_set(&s->pids, pid);
}

int fxt_sel_threads(const struct fxt_sel *s)
{
	return s->pids.n || s->tids.n;
}

int fxt_sel_window(const struct fxt_sel *s)
{
	return s->since.set || s->until.set;
}

int fxt_sel_span(const struct fxt_sel *s, uint64_t start, uint64_t end)
{
	return start >= s->from_ns && end <= s->to_ns;
}

int fxt_sel_point(const struct fxt_sel *s, uint64_t ts)
{
	return ts >= s->from_ns && ts <= s->to_ns;
}

char *fxt_sel_describe(const struct fxt_sel *s, char *buf, size_t len)
{
	size_t at = 0;
	char a[32], b[32];

	buf[0] = 0;
	for (int k = 0; k < 2; k++) {
		const struct fxt_idset *set = k ? &s->tids : &s->pids;
		for (size_t i = 0; i < set->n && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%" PRIu64,
					       i ? "," : k ? " of thread " : " of process ",
					       set->ids[i]);
	}
	if (fxt_sel_window(s) && at < len)
		snprintf(buf + at, len - at, " in the window [%s%s, %s%s]",
			 s->since.set ? fxt_time_fmt_stamp(a, sizeof(a), s->from_ns) : "start",
			 s->since.set ? " s" : "",
			 s->until.set ? fxt_time_fmt_stamp(b, sizeof(b), s->to_ns) : "end",
			 s->until.set ? " s" : "");
	return buf;
}

const char *fxt_sel_warning(const struct fxt_sel *s, uint64_t start_ns, char *buf, size_t len)
{
	const struct fxt_when *w[2] = { &s->since, &s->until };
	char t[32], st[32];

	if (start_ns == UINT64_MAX)
		return NULL;
	for (int i = 0; i < 2; i++) {
		if (!w[i]->set || w[i]->rel || w[i]->ns >= start_ns || w[i]->ns > start_ns / 2)
			continue;
		snprintf(buf, len, "note: --%s %s s is long before the trace start (%s s): a time "
			 "after the start takes a + (--%s +%s)", i ? "until" : "since",
			 fxt_time_fmt_stamp(t, sizeof(t), w[i]->ns),
			 fxt_time_fmt_stamp(st, sizeof(st), start_ns), i ? "until" : "since", t);
		return buf;
	}
	return NULL;
}

void fxt_sel_free(struct fxt_sel *s)
{
	free(s->pids.ids);
	free(s->tids.ids);
	memset(s, 0, sizeof(*s));
}

void fxt_trace_start_note(uint64_t *start, const struct fxt_reader *r,
			  const struct fxt_record *rec)
{
	uint64_t ts;

	if (rec->type != FXT_RT_EVENT)
		return;
	ts = fxt_client_ns(r, rec->u.event.ts);
	if (ts < *start)
		*start = ts;
}

int fxt_trace_start_fn(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	fxt_trace_start_note(ctx, r, rec);
	return 0;
}
