/* The summary of a recording (summary.h): one line of counts, then what went wrong, then where
 * the archive is. Reads only the stats it is given. */
/* SPDX-License-Identifier: MIT */
#include "launcher/manager/summary.h"

#include <stdio.h>
#include <string.h>

#include "client/client.h"
#include "writer/outfile.h"

void fxt_summary_print(const char *me, const struct fxt_manager_stats *st, double secs,
		       const char *out, const char *nothing)
{
	fprintf(stderr,
		"%s: recorded %.2f s: %llu process%s, %llu thread%s, %llu events, %.1f MB",
		me, secs, (unsigned long long)st->processes, st->processes == 1 ? "" : "es",
		(unsigned long long)st->threads, st->threads == 1 ? "" : "s",
		(unsigned long long)st->events, (double)st->bytes / 1e6);
	if (st->dropped) {
		char why[160];
		fxt_drop_reasons_str(st->drop_reasons, why, sizeof(why));
		fprintf(stderr, ", %llu records DROPPED (%s)", (unsigned long long)st->dropped, why);
	} else
		fprintf(stderr, ", no records dropped");
	if (st->overwritten) {
		fprintf(stderr, ", OLDEST RECORDS OVERWRITTEN in %llu circular buffer%s (about "
				"%llu records",
			(unsigned long long)st->overwritten, st->overwritten == 1 ? "" : "s",
			(unsigned long long)st->overwritten_records);
		if (st->span_ns) {
			char kept[32], span[32];
			fprintf(stderr, "; %s the last %s of %s",
				st->overwritten == 1 ? "it kept" : "the shortest kept",
				fxt_time_fmt(kept, sizeof(kept), st->kept_ns),
				fxt_time_fmt(span, sizeof(span), st->span_ns));
		}
		fputc(')', stderr);
	}
	if (st->saved)
		fprintf(stderr, ", %.1f MB saved while running", (double)st->saved / 1e6);
	if (st->untraced)
		fprintf(stderr, ", %llu process%s NOT TRACED (%s: no buffer; first: pid %d %s)",
			(unsigned long long)st->untraced, st->untraced == 1 ? "" : "es",
			strerror(st->untraced_errno), st->untraced_pid, st->untraced_name);
	if (st->shed)
		fprintf(stderr, ", %llu process%s NOT TRACED after an exec without LD_PRELOAD "
			"(first: pid %d, %s)", (unsigned long long)st->shed,
			st->shed == 1 ? "" : "es", st->shed_pid, st->shed_path);
	if (st->refused)
		fprintf(stderr, ", %llu provider%s refused (unknown protocol version)",
			(unsigned long long)st->refused, st->refused == 1 ? "" : "s");
	if (st->impostors)
		fprintf(stderr, ", %llu connection%s refused (STARTED for another process)",
			(unsigned long long)st->impostors, st->impostors == 1 ? "" : "s");
	if (st->corrupt)
		fprintf(stderr, ".\n%s: %llu provider%s wrote corrupt data, kept up to its last "
				"good record (pid %d: %s)", me, (unsigned long long)st->corrupt,
			st->corrupt == 1 ? "" : "s", st->corrupt_pid, st->corrupt_why);
	if (out)
		fprintf(stderr, ".\n%s: trace written to %s; open it in ui.perfetto.dev "
				"(or: fxt report %s).\n", me, out, out);
	else
		fprintf(stderr, ".\n%s: the archive is in the file given when the trace started.\n",
			me);
	if (!st->processes && !st->untraced && !st->corrupt)
		fprintf(stderr, "%s: no process was traced: %s\n", me, nothing);
}

