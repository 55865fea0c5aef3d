/* The reading of an archive for report, report --diff and flame (profread.h): the archive's
 * records sorted into the profile aggregator's kinds by category (lock, sample, fxtauto,
 * pthread; the rest are the program's functions), lock waits labelled by their object, context
 * switches collected for on-CPU time in pass 1, and the passes run: pass 1 (also the trace start
 * and the notes of loss), pass 1 again while the aggregator asks, pass 2 (the figures). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/cmd/cmd.h"
#include "launcher/cmd/profread.h"
#include "writer/fields.h"

struct named {
	struct ckey key;
	struct fxt_sv name;
};

struct fxt_sv profread_name(struct profread *pr, unsigned type, uint64_t koid)
{
	struct ckey k = { type, koid, { "", 0 } };
	int64_t i = ctab_get(&pr->names, &k, 0);
	return i < 0 ? k.s : ((struct named *)ctab_at(&pr->names, (uint32_t)i))->name;
}

static int remember(struct ctab *t, uint64_t a, uint64_t b, struct fxt_sv name)
{
	struct ckey k = { a, b, { "", 0 } };
	int64_t i = ctab_get(t, &k, 1);
	if (i < 0)
		return -ENOMEM;
	((struct named *)ctab_at(t, (uint32_t)i))->name = name;
	return 0;
}

static int is_cat(struct fxt_sv c, const char *s)
{
	return c.len == strlen(s) && !memcmp(c.s, s, c.len);
}

/* label kept in pr->labels (made once per distinct text). Returns 0 or -ENOMEM. */
static int label_intern(struct profread *pr, const char *text, struct fxt_sv *out)
{
	struct ckey k = { 0, 0, { text, (uint32_t)strlen(text) } };
	int64_t i = ctab_get(&pr->labels, &k, 0);
	struct named *n;
	char *copy;

	if (i < 0) {
		if (!(copy = strdup(text)))
			return -ENOMEM;
		k.s.s = copy;
		if ((i = ctab_get(&pr->labels, &k, 1)) < 0) {
			free(copy);
			return -ENOMEM;
		}
	}
	n = ctab_at(&pr->labels, (uint32_t)i);
	*out = n->key.s;
	return 0;
}

/* A pthread_join wait's label: "join NAME 0xPTHREAD" (threads of one name stay apart). */
static int join_label(struct profread *pr, const struct fxt_record *rec, struct fxt_sv *out)
{
	struct fxt_sv name = { "thread", 6 };
	uint64_t ptr = 0;
	char buf[320];

	for (unsigned i = 0; i < rec->nargs; i++) {
		if (rec->args[i].type == FXT_AT_STRING && rec->args[i].v.str.len)
			name = rec->args[i].v.str;
		else if (rec->args[i].type == FXT_AT_POINTER)
			ptr = rec->args[i].v.u64;
	}
	snprintf(buf, sizeof(buf), "join %.*s 0x%" PRIx64, (int)(name.len < 256 ? name.len : 256),
		 name.s, ptr);
	return label_intern(pr, buf, out);
}

/* A lock wait's label: its string argument, else its pointer's userspace object name. */
static struct fxt_sv lock_label(struct profread *pr, const struct fxt_record *rec)
{
	struct fxt_sv none = { "", 0 };

	for (unsigned i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_AT_STRING && rec->args[i].v.str.len)
			return rec->args[i].v.str;
	for (unsigned i = 0; i < rec->nargs; i++) {
		if (rec->args[i].type == FXT_AT_POINTER) {
			struct ckey k = { rec->u.event.thread.pid, rec->args[i].v.u64, none };
			int64_t j = ctab_get(&pr->uobjs, &k, 0);
			if (j >= 0)
				return ((struct named *)ctab_at(&pr->uobjs, (uint32_t)j))->name;
		}
	}
	return none;
}

/* Pass 1: what the archive says it lost (fxtauto's "records dropped" and "records overwritten"
 * instants), for the note under the figures. */
static int note_loss(struct profread *pr, const struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t n, from;
	if (fxt_record_dropped(rec, &n)) {
		pr->dropped += n;
	} else if (fxt_record_overwritten(rec, &n, &from)) {
		uint64_t end = fxt_client_ns(r, rec->u.event.ts);
		uint64_t kept = end - fxt_client_ns(r, from < rec->u.event.ts ? from : rec->u.event.ts);
		if (!pr->wrapped++ || kept < pr->kept_ns)
			pr->kept_ns = kept;
		pr->overwritten += n;
	} else if (is_cat(rec->u.event.category, "fxtauto") &&
		   is_cat(rec->u.event.name, "process not traced")) {
		pr->untraced++;
	} else if (is_cat(rec->u.event.category, "fxtauto") &&
		   is_cat(rec->u.event.name, "provider data corrupt")) {
		pr->corrupt++;
	}
	return 0;
}

/* Under the figures: what they miss, as the archive says. */
void profread_print_loss(const struct profread *pr, FILE *f)
{
	if (pr->untraced)
		fprintf(f, "\nnote: %" PRIu64 " process%s ran untraced (fxt dump shows which and why): "
		       "the figures miss %s calls\n", pr->untraced, pr->untraced == 1 ? "" : "es",
		       pr->untraced == 1 ? "its" : "their");
	if (pr->corrupt)
		fprintf(f, "\nnote: %" PRIu64 " process%s wrote over %s own trace data (fxt dump shows "
		       "which and why): the figures miss what %s recorded after the damage\n",
		       pr->corrupt, pr->corrupt == 1 ? "" : "es", pr->corrupt == 1 ? "its" : "their",
		       pr->corrupt == 1 ? "it" : "they");
	if (pr->dropped)
		fprintf(f, "\nnote: %" PRIu64 " records were dropped while recording (fxt stats): the "
		       "figures miss their calls\n", pr->dropped);
	if (pr->wrapped) {
		char t[32];
		fprintf(f, "\nnote: circular buffer%s overwrote the oldest records (about %" PRIu64
		       "): the figures cover only the last %s%s\n", pr->wrapped == 1 ? "" : "s",
		       pr->overwritten, fxt_time_fmt(t, sizeof(t), pr->kept_ns),
		       pr->wrapped == 1 ? "" : " (the shortest kept)");
	}
}

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct profread *pr = ctx;
	const struct fxt_koids *th;
	enum fxt_prof_kind k = FXT_PK_FUNC;
	struct fxt_sv obj = { "", 0 };
	unsigned et;
	uint64_t ts;

	switch (rec->type) {
	case FXT_RT_EVENT:
		break;
	case FXT_RT_THREAD:	/* every chunk starts with one: another stretch may follow */
	case FXT_RT_METADATA:
		return fxt_prof_cut(pr->prof);
	case FXT_RT_KERNEL_OBJECT:
		return remember(&pr->names, rec->u.kobj.obj_type, rec->u.kobj.koid, rec->u.kobj.name);
	case FXT_RT_USERSPACE_OBJECT:
		return remember(&pr->uobjs, rec->u.uobj.process_koid, rec->u.uobj.pointer,
				rec->u.uobj.name);
	case FXT_RT_SCHEDULING:
		if (pr->pass2 || rec->u.sched.sched_type != FXT_ST_CONTEXT_SWITCH)
			return 0;
		if (!pr->oncpu && fxt_oncpu_new(&pr->oncpu) < 0)
			return -ENOMEM;
		return fxt_oncpu_switch(pr->oncpu, &rec->u.sched.out_thread,
					rec->u.sched.out_state, &rec->u.sched.in_thread,
					fxt_client_ns(r, rec->u.sched.ts));
	default:
		return 0;
	}
	et = rec->u.event.event_type;
	th = &rec->u.event.thread;
	ts = fxt_client_ns(r, rec->u.event.ts);	/* once: the conversion divides */
	if (!pr->pass2 && ts < pr->start_ns)
		pr->start_ns = ts;	/* the trace start, as fxt_trace_start_note() finds it */
	if (et == FXT_ET_INSTANT && !pr->pass2)
		return note_loss(pr, r, rec);
	if (!fxt_sel_thread(&pr->sel, th->pid, th->tid))
		return fxt_prof_cut(pr->prof);
	if (et < FXT_ET_DURATION_BEGIN || et > FXT_ET_DURATION_COMPLETE)
		return 0;
	pr->matched++;
	if (rec->u.event.category.s == pr->last_cat.s &&
	    rec->u.event.category.len == pr->last_cat.len)
		k = pr->last_kind;
	else if (is_cat(rec->u.event.category, "lock"))
		k = FXT_PK_LOCK;
	else if (is_cat(rec->u.event.category, "sample"))
		k = FXT_PK_SAMPLE;
	else if (is_cat(rec->u.event.category, "fxtauto"))
		k = FXT_PK_STALL;
	else if (is_cat(rec->u.event.category, "pthread"))
		k = FXT_PK_THREAD;
	pr->last_cat = rec->u.event.category;
	pr->last_kind = k;
	if (k == FXT_PK_LOCK) {
		obj = lock_label(pr, rec);
		if (is_cat(rec->u.event.name, "join") && et != FXT_ET_DURATION_END &&
		    join_label(pr, rec, &obj) < 0)
			return -ENOMEM;
	}
	switch (et) {
	case FXT_ET_DURATION_COMPLETE:
		return fxt_prof_span(pr->prof, k, th->pid, th->tid, rec->u.event.name, obj, ts,
				     fxt_client_ns(r, rec->u.event.end_ts));
	case FXT_ET_DURATION_BEGIN:
		return fxt_prof_begin(pr->prof, k, th->pid, th->tid, rec->u.event.name, obj, ts);
	default:
		return fxt_prof_end(pr->prof, k, th->pid, th->tid, ts);
	}
}

int profread_no_memory(struct profread *pr, const char *cmd)
{
	fprintf(stderr, "fxt %s: out of memory\n", cmd);
	pr->res.status = FXT_CS_OK;
	return CMD_EXIT_ERROR;
}

int profread_tree_error(struct profread *pr, const char *cmd, int err)
{
	fprintf(stderr, "fxt %s: the call tree's temporary file in $TMPDIR: %s\n", cmd,
		strerror(-err));
	pr->res.status = FXT_CS_OK;
	return CMD_EXIT_ERROR;
}

/* Whether the read stopped (could not open, or a callback failed): nothing more to read. */
static int stopped(const struct fxt_client_result *res)
{
	return res->status == FXT_CS_OPEN || res->status == FXT_CS_CALLBACK;
}

int profread_load(struct profread *pr, const char *cmd, const char *path,
		  const struct fxt_prof_opts *po)
{
	struct fxt_client_result *res = &pr->res;
	char msg[320], what[256];
	int c;

	ctab_init(&pr->names, sizeof(struct named));
	ctab_init(&pr->uobjs, sizeof(struct named));
	ctab_init(&pr->labels, sizeof(struct named));
	if (fxt_prof_new(&pr->prof, po) < 0)
		return profread_no_memory(pr, cmd);
	/* pass 1: the trace start and the spans that enclose other runs' spans */
	fxt_client_read(cmd_input(path), on_record, pr, res);
	if (stopped(res))
		return cmd_exit_client(res);
	if (fxt_sel_resolve(&pr->sel, pr->start_ns, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt %s: %s\n", cmd, msg);
		res->status = FXT_CS_OK;
		return CMD_EXIT_ERROR;
	}
	if (pr->oncpu) {
		if (fxt_oncpu_finish(pr->oncpu) < 0)
			return profread_no_memory(pr, cmd);
		fxt_prof_set_oncpu(pr->prof, pr->oncpu);
	}
	pr->pass2 = 1;	/* context switches and names are read once */
	while ((c = fxt_prof_rescan(pr->prof, pr->sel.from_ns, pr->sel.to_ns)) == 1) {
		/* a thread's runs interleave (signal handlers): pass 1 again, knowing it */
		fxt_client_reread(on_record, pr, res);
		if (stopped(res))
			return cmd_exit_client(res);
	}
	if (c < 0)
		return profread_no_memory(pr, cmd);
	/* the same reader reads the same bytes again (a pipe is read once): its views stay valid */
	ctab_free(&pr->names);
	ctab_free(&pr->uobjs);
	ctab_init(&pr->names, sizeof(struct named));
	ctab_init(&pr->uobjs, sizeof(struct named));
	if (fxt_sel_threads(&pr->sel) && !pr->matched) {
		struct fxt_sel threads = pr->sel;	/* the threads alone */
		threads.since.set = threads.until.set = 0;
		fprintf(stderr, "fxt %s: %s: no events%s\n", cmd, path,
			fxt_sel_describe(&threads, what, sizeof(what)));
		return CMD_EXIT_INVALID;
	}
	pr->matched = 0;
	/* pass 2: the figures */
	fxt_client_reread(on_record, pr, res);
	if (res->status == FXT_CS_CALLBACK && res->err != -ENOMEM && res->err != -EINVAL)
		return profread_tree_error(pr, cmd, res->err);	/* pass 2's other failures */
	if (stopped(res))
		return cmd_exit_client(res);
	if ((c = fxt_prof_finish(pr->prof)) < 0)
		return c == -ENOMEM ? profread_no_memory(pr, cmd) : profread_tree_error(pr, cmd, c);
	return 0;
}

int profread_status(const struct profread *pr, const char *cmd, const char *path, int code)
{
	char msg[320];

	if (pr->res.status == FXT_CS_OK)
		return code;
	fprintf(stderr, "fxt %s: %s\n", cmd, fxt_client_message(&pr->res, path, msg, sizeof(msg)));
	return cmd_exit_client(&pr->res) > code ? cmd_exit_client(&pr->res) : code;
}

void profread_free(struct profread *pr)
{
	fxt_client_close(&pr->res);
	fxt_prof_free(pr->prof);
	fxt_oncpu_free(pr->oncpu);
	ctab_free(&pr->names);
	ctab_free(&pr->uobjs);
	for (uint32_t i = 0; i < pr->labels.n; i++)
		free((char *)((struct named *)ctab_at(&pr->labels, i))->key.s.s);
	ctab_free(&pr->labels);
}
