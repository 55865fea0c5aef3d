/* fxt check FILE: validates a whole archive. Structural rules come from the STRICT reader
 * (sizes, reserved bits, registered refs, argument sizes, UTF-8); this file adds the semantic
 * ones: the magic number record first, duration begin/end balanced per thread, complete events
 * with end >= start that nest or are disjoint per thread, async begin/end and flow begin/end
 * ids paired. Prints a summary. Exit 0 valid, 1 invalid (first problem with its offset),
 * 2 unreadable (missing file, a directory, not an FXT archive). An empty file is invalid (1). */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/reader.h"
#include "launcher/cmd.h"
#include "reader/print.h"
#include "writer/fields.h"

struct span {
	uint64_t start, end;
};

/* Per (provider, thread) state: open begin events and the pending complete-event intervals
 * (sorted by start) used to prove that complete events nest or are disjoint. */
struct thread_state {
	uint32_t provider;
	uint64_t pid, tid;
	uint64_t *begins; /* offsets of open duration begins */
	size_t nbegins, capbegins;
	struct span *spans;
	size_t nspans, capspans;
};

/* Async/flow ids per provider: how often each was begun, ended and used. Pairing is checked
 * at the end, not in file order: chunks of different threads interleave in the archive, so an
 * id ended on another thread may come before its begin. */
struct id_count {
	uint32_t provider;
	unsigned kind; /* 0 async, 1 flow */
	uint64_t id;
	uint64_t offset; /* first record with this id */
	uint64_t begins, ends;
	int used;
};

struct checker {
	struct thread_state *threads;
	size_t nthreads, capthreads, last_thread;
	struct id_count *ids; /* open addressing, never deleted */
	size_t capids, nids;
	uint64_t by_type[16], events, providers;
	char problem[256];
	uint64_t problem_offset;
	int failed;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * elem);
	if (!q) {
		fprintf(stderr, "fxt check: out of memory\n");
		exit(2);
	}
	*cap = n;
	return q;
}

__attribute__((format(printf, 3, 4))) static void problem(struct checker *ck, uint64_t off, const char *fmt, ...)
{
	if (ck->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ck->problem, sizeof(ck->problem), fmt, ap);
	va_end(ap);
	ck->problem_offset = off;
	ck->failed = 1;
}

static struct thread_state *thread_of(struct checker *ck, uint32_t provider, struct fxt_koids k)
{
	/* Linear with a cache of the last hit: traces have few threads per provider. */
	size_t last = ck->last_thread;
	if (last < ck->nthreads) {
		struct thread_state *t = &ck->threads[last];
		if (t->provider == provider && t->pid == k.pid && t->tid == k.tid)
			return t;
	}
	for (size_t i = 0; i < ck->nthreads; i++) {
		struct thread_state *t = &ck->threads[i];
		if (t->provider == provider && t->pid == k.pid && t->tid == k.tid) {
			ck->last_thread = i;
			return t;
		}
	}
	ck->threads = grow(ck->threads, &ck->capthreads, ck->nthreads + 1, sizeof(*ck->threads));
	struct thread_state *t = &ck->threads[ck->nthreads];
	memset(t, 0, sizeof(*t));
	t->provider = provider;
	t->pid = k.pid;
	t->tid = k.tid;
	ck->last_thread = ck->nthreads++;
	return t;
}

static void check_complete(struct checker *ck, struct thread_state *t, const struct fxt_record *rec)
{
	uint64_t s = rec->u.event.ts, e = rec->u.event.end_ts;
	if (e < s) {
		problem(ck, rec->offset, "complete event ends before it starts");
		return;
	}
	/* Intervals that start inside this one must end inside it (they are its callees). */
	while (t->nspans && t->spans[t->nspans - 1].start >= s) {
		struct span *top = &t->spans[t->nspans - 1];
		if (top->start == s && top->end >= e)
			break; /* same start, longer: this one is its callee (written after it) */
		if (top->end > e && top->start < e) {
			problem(ck, rec->offset, "complete event overlaps another on its thread without nesting");
			return;
		}
		if (top->start >= e)
			break; /* a later sibling written earlier: keep order by start below */
		t->nspans--;
	}
	if (t->nspans) {
		struct span *top = &t->spans[t->nspans - 1];
		if (top->start < s && top->end > s && top->end < e) {
			problem(ck, rec->offset, "complete event overlaps another on its thread without nesting");
			return;
		}
	}
	t->spans = grow(t->spans, &t->capspans, t->nspans + 1, sizeof(*t->spans));
	/* Keep the stack sorted by start (out-of-order siblings are rare: insertion). */
	size_t i = t->nspans++;
	while (i && t->spans[i - 1].start > s) {
		t->spans[i] = t->spans[i - 1];
		i--;
	}
	t->spans[i] = (struct span){ s, e };
}

static struct id_count *id_slot(struct checker *ck, uint32_t provider, unsigned kind, uint64_t id)
{
	if ((ck->nids + 1) * 2 > ck->capids) {
		size_t oldcap = ck->capids;
		struct id_count *old = ck->ids;
		ck->capids = oldcap ? oldcap * 2 : 64;
		ck->ids = calloc(ck->capids, sizeof(*ck->ids));
		if (!ck->ids) {
			fprintf(stderr, "fxt check: out of memory\n");
			exit(2);
		}
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				*id_slot(ck, old[i].provider, old[i].kind, old[i].id) = old[i];
		free(old);
	}
	size_t h = (size_t)((id * 0x9e3779b97f4a7c15ULL) ^ provider ^ ((uint64_t)kind << 40)) & (ck->capids - 1);
	for (;; h = (h + 1) & (ck->capids - 1)) {
		struct id_count *o = &ck->ids[h];
		if (!o->used) {
			*o = (struct id_count){ provider, kind, id, 0, 0, 0, 1 };
			ck->nids++;
			return o;
		}
		if (o->provider == provider && o->kind == kind && o->id == id)
			return o;
	}
}

/* Counts one async/flow record: delta_begin/delta_end are 0 or 1. */
static void count_id(struct checker *ck, const struct fxt_record *rec, unsigned kind, int begin, int end)
{
	struct id_count *o = id_slot(ck, rec->provider_id, kind, rec->u.event.id);
	if (!o->begins && !o->ends && !o->offset)
		o->offset = rec->offset;
	o->begins += (uint64_t)begin;
	o->ends += (uint64_t)end;
}

static void check_event(struct checker *ck, const struct fxt_record *rec)
{
	struct thread_state *t;
	ck->events++;
	switch (rec->u.event.event_type) {
	case FXT_ET_DURATION_BEGIN:
		t = thread_of(ck, rec->provider_id, rec->u.event.thread);
		t->begins = grow(t->begins, &t->capbegins, t->nbegins + 1, sizeof(*t->begins));
		t->begins[t->nbegins++] = rec->offset;
		break;
	case FXT_ET_DURATION_END:
		t = thread_of(ck, rec->provider_id, rec->u.event.thread);
		if (!t->nbegins)
			problem(ck, rec->offset, "duration end without a begin on its thread");
		else
			t->nbegins--;
		break;
	case FXT_ET_DURATION_COMPLETE:
		check_complete(ck, thread_of(ck, rec->provider_id, rec->u.event.thread), rec);
		break;
	case FXT_ET_ASYNC_BEGIN: count_id(ck, rec, 0, 1, 0); break;
	case FXT_ET_ASYNC_INSTANT: count_id(ck, rec, 0, 0, 0); break;
	case FXT_ET_ASYNC_END: count_id(ck, rec, 0, 0, 1); break;
	case FXT_ET_FLOW_BEGIN: count_id(ck, rec, 1, 1, 0); break;
	case FXT_ET_FLOW_STEP: count_id(ck, rec, 1, 0, 0); break;
	case FXT_ET_FLOW_END: count_id(ck, rec, 1, 0, 1); break;
	}
}

static void finish(struct checker *ck)
{
	for (size_t i = 0; i < ck->nthreads && !ck->failed; i++)
		if (ck->threads[i].nbegins)
			problem(ck, ck->threads[i].begins[ck->threads[i].nbegins - 1],
				"duration begin never ended (thread %" PRIu64 ")", ck->threads[i].tid);
	for (size_t i = 0; i < ck->capids && !ck->failed; i++) {
		const struct id_count *o = &ck->ids[i];
		const char *kind = o->kind ? "flow" : "async";
		if (!o->used)
			continue;
		if (!o->begins)
			problem(ck, o->offset, "%s id %" PRIu64 " used without a begin", kind, o->id);
		else if (o->begins != o->ends)
			problem(ck, o->offset, "%s id %" PRIu64 " begun %" PRIu64 " times, ended %" PRIu64 " times",
				kind, o->id, o->begins, o->ends);
	}
}

static void summary(const struct checker *ck, const struct fxt_reader *r)
{
	static const char *const names[16] = { "metadata", "init", "string", "thread", "event", "blob",
		"userspace_object", "kernel_object", "scheduling", "log", [15] = "large" };
	const struct fxt_reader_stats *st = fxt_reader_stats(r);
	printf("records: %" PRIu64 " (%" PRIu64 " bytes)\n", st->records, st->bytes);
	for (int i = 0; i < 16; i++)
		if (ck->by_type[i])
			printf("  %-17s %" PRIu64 "\n", names[i] ? names[i] : "unknown", ck->by_type[i]);
	if (st->unknown_skipped)
		printf("  %-17s %" PRIu64 "\n", "skipped (unknown)", st->unknown_skipped);
	size_t threads = 0;
	for (size_t i = 0; i < ck->nthreads; i++)
		threads++;
	printf("providers: %" PRIu64 ", threads with events: %zu, strings: %" PRIu64 "\n", ck->providers,
	       threads, ck->by_type[FXT_RT_STRING]);
	if (ck->events)
		printf("bytes/event: %.1f\n", (double)st->bytes / (double)ck->events);
}

static void check_usage(FILE *f)
{
	fprintf(f, "usage: fxt check [--quiet] FILE\n"
		   "Validates every structural and semantic rule of the format; prints a summary.\n"
		   "Exit 0 valid, 1 invalid (first problem and its offset), 2 unreadable.\n");
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, 0, 'h' }, { "quiet", no_argument, 0, 'q' }, { 0, 0, 0, 0 }
	};
	int c, quiet = 0;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (c == 'h') {
			check_usage(stdout);
			return 0;
		}
		if (c != 'q') {
			check_usage(stderr);
			return 2;
		}
		quiet = 1;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "fxt check: expected one FILE\n");
		check_usage(stderr);
		return 2;
	}
	const char *path = argv[optind];
	struct fxt_reader *r = cmd_open_archive("check", path, FXT_READER_STRICT);
	if (!r)
		return 2;
	struct checker ck = { 0 };
	struct fxt_record rec;
	int res, first = 1;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (first && !(rec.type == FXT_RT_METADATA && rec.u.meta.meta_type == FXT_MT_TRACE_INFO)) {
			fprintf(stderr, "fxt check: %s: not an FXT archive (no magic number record at offset 0)\n", path);
			fxt_reader_close(r);
			return 2;
		}
		first = 0;
		ck.by_type[rec.type & 15]++;
		if (rec.type == FXT_RT_METADATA && rec.u.meta.meta_type == FXT_MT_PROVIDER_INFO)
			ck.providers++;
		if (rec.type == FXT_RT_EVENT)
			check_event(&ck, &rec);
		if (ck.failed)
			break;
	}
	int status = 0;
	if (res == FXT_READ_TRUNCATED || res == FXT_READ_CORRUPT) {
		const struct fxt_read_error *e = fxt_reader_error(r);
		if (first && e->offset == 0) {
			fprintf(stderr, "fxt check: %s: not an FXT archive (%s)\n", path, e->msg);
			fxt_reader_close(r);
			return 2;
		}
		printf("INVALID at offset %" PRIu64 ": %s%s\n", e->offset,
		       res == FXT_READ_TRUNCATED ? "truncated: " : "", e->msg);
		status = 1;
	} else if (first) {
		printf("INVALID at offset 0: empty archive (no magic number record)\n");
		status = 1;
	} else {
		if (!ck.failed)
			finish(&ck);
		if (ck.failed) {
			printf("INVALID at offset %" PRIu64 ": %s\n", ck.problem_offset, ck.problem);
			status = 1;
		}
	}
	if (!quiet)
		summary(&ck, r);
	if (!status)
		printf("valid\n");
	for (size_t i = 0; i < ck.nthreads; i++) {
		free(ck.threads[i].begins);
		free(ck.threads[i].spans);
	}
	free(ck.threads);
	free(ck.ids);
	fxt_reader_close(r);
	return status;
}
