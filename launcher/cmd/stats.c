/* `fxt stats FILE`: what an archive holds — records and bytes per record type, events per
 * event type, time span, per provider (records, bytes, events, drops from "buffer full"
 * provider event records, and the records fxtauto counted as dropped) and per thread (events,
 * name). With --pid/--tid/--since/--until (client/selection.c) the tables count the events, log
 * records and context switches selected (other records carry no thread or time). One
 * streaming pass (two with a time after the trace start); memory grows with providers and
 * threads only. Exit status (launcher/cmd/cmd.h): 0 ok; 1 invalid archive (counts of
 * what precedes the problem are printed); 2 usage, unreadable file. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "client/client.h"
#include "launcher/cmd/cmd.h"
#include "writer/fields.h"

struct prov {
	struct ckey key; /* a = provider id */
	struct fxt_sv name;
	uint64_t records, bytes, events, drops, dropped_records;
};

struct thr {
	struct ckey key; /* a = pid, b = tid */
	uint64_t events;
};

struct named {
	struct ckey key; /* a = kernel object type, b = koid */
	struct fxt_sv name;
};

struct stats {
	uint64_t records[16], bytes[16], events[16];
	uint64_t first_ns, last_ns, drops, dropped_records;
	uint64_t wrapped, overwritten_records, kept_ns;	/* circular buffers that wrapped: how
					 * many, about how many records they overwrote, the
					 * shortest span they kept */
	struct ctab provs, thrs, names;
	struct fxt_sel sel;
	int selecting;		/* a selection was given: count only what it selects */
	uint64_t selected;	/* records selected */
	uint64_t start;		/* the trace start (of all events, selected or not) */
};

static const char usage[] =
	"usage: fxt stats [options] FILE\n"
	"Counts in an FXT archive: records and bytes per record type, events per type, the time\n"
	"span (and its first and last stamps, which --since/--until take), per provider\n"
	"(records, bytes, events, drops) and per thread (events). With a selection the tables\n"
	"count the events, log records and context switches it selects:\n"
	"%s" CMD_EXIT_USAGE;

static const char *const rec_names[16] = {
	"metadata", "initialization", "string", "thread", "event", "blob", "userspace object",
	"kernel object", "scheduling", "log", NULL, NULL, NULL, NULL, NULL, "large",
};

static const char *const ev_names[] = {
	"instant", "counter", "duration begin", "duration end", "duration complete",
	"async begin", "async instant", "async end", "flow begin", "flow step", "flow end",
};

static void *get(struct ctab *t, uint64_t a, uint64_t b)
{
	struct ckey k = { a, b, { "", 0 } };
	int64_t i = ctab_get(t, &k, 1);
	return i < 0 ? NULL : ctab_at(t, (uint32_t)i);
}

/* Whether rec is selected: an event, log record or context switch of a selected thread (a
 * switch: by either thread's id) inside the window. */
static int selected(const struct stats *st, const struct fxt_reader *r,
		    const struct fxt_record *rec)
{
	const struct fxt_sel *sel = &st->sel;

	switch (rec->type) {
	case FXT_RT_EVENT:
		if (!fxt_sel_thread(sel, rec->u.event.thread.pid, rec->u.event.thread.tid))
			return 0;
		if (rec->u.event.event_type == FXT_ET_DURATION_COMPLETE)
			return fxt_sel_span(sel, fxt_client_ns(r, rec->u.event.ts),
					    fxt_client_ns(r, rec->u.event.end_ts));
		return fxt_sel_point(sel, fxt_client_ns(r, rec->u.event.ts));
	case FXT_RT_LOG:
		return fxt_sel_thread(sel, rec->u.log.thread.pid, rec->u.log.thread.tid) &&
		       fxt_sel_point(sel, fxt_client_ns(r, rec->u.log.ts));
	case FXT_RT_SCHEDULING:
		if (sel->pids.n || (!fxt_sel_thread(sel, 0, rec->u.sched.out_thread.tid) &&
				    !fxt_sel_thread(sel, 0, rec->u.sched.in_thread.tid)))
			return 0;	/* switches name no process */
		return fxt_sel_point(sel, fxt_client_ns(r, rec->u.sched.ts));
	default:
		return 0;
	}
}

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct stats *st = ctx;
	struct prov *p;
	uint64_t bytes = rec->words * 8, lost, from;

	if (rec->type == FXT_RT_KERNEL_OBJECT) {	/* names, selected or not */
		struct named *n = get(&st->names, rec->u.kobj.obj_type, rec->u.kobj.koid);
		if (!n)
			return -ENOMEM;
		n->name = rec->u.kobj.name;
	}
	if (rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_PROVIDER_EVENT &&
	    rec->u.meta.event_id == FXT_PE_BUFFER_OVERFLOW) {
		struct prov *d = get(&st->provs, rec->u.meta.provider_id, 0);
		if (!d)
			return -ENOMEM;
		d->drops++;	/* what the archive lost: said whatever is selected */
		st->drops++;
	}
	if (st->selecting && !selected(st, r, rec))
		return 0;
	st->selected++;
	if (!(p = get(&st->provs, rec->provider_id, 0)))
		return -ENOMEM;
	p->records++;
	p->bytes += bytes;
	p->name = fxt_reader_provider_name(r, rec->provider_id);
	st->records[rec->type & 15]++;
	st->bytes[rec->type & 15] += bytes;
	if (rec->type == FXT_RT_EVENT && fxt_record_overwritten(rec, &lost, &from)) {
		uint64_t end = fxt_client_ns(r, rec->u.event.ts);
		uint64_t kept = end - fxt_client_ns(r, from < rec->u.event.ts ? from :
								 rec->u.event.ts);
		if (!st->wrapped++ || kept < st->kept_ns)
			st->kept_ns = kept;
		st->overwritten_records += lost;
	} else if (rec->type == FXT_RT_EVENT && fxt_record_dropped(rec, &lost)) {
		p->dropped_records += lost;
		st->dropped_records += lost;
	} else if (rec->type == FXT_RT_EVENT) {
		uint64_t ts = fxt_client_ns(r, rec->u.event.ts), end = ts;
		struct thr *t = get(&st->thrs, rec->u.event.thread.pid, rec->u.event.thread.tid);
		if (!t)
			return -ENOMEM;
		t->events++;
		p->events++;
		st->events[rec->u.event.event_type & 15]++;
		if (rec->u.event.event_type == FXT_ET_DURATION_COMPLETE)
			end = fxt_client_ns(r, rec->u.event.end_ts);
		if (ts < st->first_ns)
			st->first_ns = ts;
		if (end > st->last_ns)
			st->last_ns = end;
	}
	return 0;
}

static struct fxt_sv name_of(struct stats *st, unsigned type, uint64_t koid)
{
	struct ckey k = { type, koid, { "", 0 } };
	int64_t i = ctab_get(&st->names, &k, 0);
	return i < 0 ? k.s : ((struct named *)ctab_at(&st->names, (uint32_t)i))->name;
}

static void print(struct stats *st, const struct fxt_client_result *res)
{
	char t[32];

	printf("archive: %" PRIu64 " bytes, %" PRIu64 " records", res->stats.bytes,
	       res->stats.records);
	printf(" (%" PRIu64 " of unknown type skipped)\n", res->stats.unknown_skipped);
	if (st->selecting) {
		char what[256];
		printf("selected: %" PRIu64 " records (events, log records, context switches)%s\n",
		       st->selected, fxt_sel_describe(&st->sel, what, sizeof(what)));
	}
	if (st->last_ns >= st->first_ns && st->first_ns != UINT64_MAX) {
		char a[32], b[32];
		printf("time span: %s (%s s to %s s)\n",
		       fxt_time_fmt(t, sizeof(t), st->last_ns - st->first_ns),
		       fxt_time_fmt_stamp(a, sizeof(a), st->first_ns),
		       fxt_time_fmt_stamp(b, sizeof(b), st->last_ns));
	}
	/* A report is written per buffer at its end, whether or not it dropped anything. */
	printf("records dropped: %" PRIu64 " (from %" PRIu64 " drop report%s)\n",
	       st->dropped_records, st->drops, st->drops == 1 ? "" : "s");
	if (st->wrapped)
		printf("records overwritten: about %" PRIu64 " (%" PRIu64 " circular buffer%s "
		       "wrapped; what %s kept covers the last %s)\n",
		       st->overwritten_records, st->wrapped, st->wrapped == 1 ? "" : "s",
		       st->wrapped == 1 ? "it" : "the shortest", fxt_time_fmt(t, sizeof(t), st->kept_ns));
	printf("\n%-20s %12s %14s\n", "record type", "records", "bytes");
	for (int i = 0; i < 16; i++)
		if (st->records[i])
			printf("%-20s %12" PRIu64 " %14" PRIu64 "\n",
			       rec_names[i] ? rec_names[i] : "unknown", st->records[i], st->bytes[i]);
	printf("\n%-20s %12s\n", "event type", "events");
	for (unsigned i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++)
		if (st->events[i])
			printf("%-20s %12" PRIu64 "\n", ev_names[i], st->events[i]);
	printf("\n%10s %12s %14s %12s %8s %12s  %s\n", "provider", "records", "bytes", "events",
	       "drops", "dropped", "name");
	for (uint32_t i = 0; i < st->provs.n; i++) {
		struct prov *p = ctab_at(&st->provs, i);
		printf("%10" PRIu64 " %12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %8" PRIu64
		       " %12" PRIu64 "  %.*s\n",
		       p->key.a, p->records, p->bytes, p->events, p->drops, p->dropped_records,
		       (int)p->name.len, p->name.s);
	}
	printf("\n%10s %10s %12s  %s\n", "pid", "tid", "events", "thread name");
	for (uint32_t i = 0; i < st->thrs.n; i++) {
		struct thr *th = ctab_at(&st->thrs, i);
		struct fxt_sv n = name_of(st, FXT_OBJ_TYPE_THREAD, th->key.b);
		printf("%10" PRIu64 " %10" PRIu64 " %12" PRIu64 "  %.*s\n", th->key.a, th->key.b,
		       th->events, (int)n.len, n.s);
	}
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		FXT_SEL_OPTIONS, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	struct stats st = { .first_ns = UINT64_MAX, .start = UINT64_MAX };
	struct fxt_client_result res = { 0 };
	int c, code = 0;
	char msg[320];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
			if (fxt_sel_option(&st.sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt stats: %s\n", msg);
				code = CMD_EXIT_ERROR;
				goto out;
			}
			st.selecting = 1;
			break;
		case 'h':
		default:
			code = cmd_sel_usage(c, usage);
			goto out;
		}
	}
	if (fxt_sel_operands(&st.sel, "stats", argc - optind, 1, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt stats: %s\n", msg);
		code = CMD_EXIT_ERROR;
		goto out;
	}
	ctab_init(&st.provs, sizeof(struct prov));
	ctab_init(&st.thrs, sizeof(struct thr));
	ctab_init(&st.names, sizeof(struct named));
	if (cmd_sel_read("stats", &st.sel, argv[optind], on_record, &st, &st.start, &res) < 0) {
		code = CMD_EXIT_ERROR;
		goto out;
	}
	code = cmd_exit_client(&res);
	if (res.status != FXT_CS_OPEN)
		print(&st, &res);
	if (res.status != FXT_CS_OK)
		fprintf(stderr, "fxt stats: %s\n",
			fxt_client_message(&res, argv[optind], msg, sizeof(msg)));
	if (res.status != FXT_CS_OPEN && fxt_sel_warning(&st.sel, st.start, msg, sizeof(msg)))
		fprintf(stderr, "fxt stats: %s\n", msg);
	if (res.status != FXT_CS_OPEN && st.selecting && !st.selected) {
		fprintf(stderr, "fxt stats: %s: nothing selected\n", argv[optind]);
		if (!code)
			code = CMD_EXIT_INVALID;
	}
out:
	fxt_client_close(&res);
	fxt_sel_free(&st.sel);
	ctab_free(&st.provs);
	ctab_free(&st.thrs);
	ctab_free(&st.names);
	return code;
}
