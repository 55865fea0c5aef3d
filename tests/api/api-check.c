/* api-check: checks what <fxt/trace.h> wrote into an archive. Reads every record with the
 * project's reader (strict mode), prints one canonical line per API record (events of category
 * "api" or "api.*", blobs and log messages starting with "api") in file order, and compares the
 * lines with a golden file. Also checks, over all events (function calls too): complete events
 * end after they start and nest per thread; async and flow ids begin once, end once after, with
 * their instants/steps between; every string API events use is in exactly one string record
 * (interned once). TAP output; exit 0 when every claim holds, 1 otherwise, 2 on usage or I/O
 * errors. -c: compare sorted lines folded into "<count> <line>" (for threads that interleave).
 * Usage: api-check [-c] ARCHIVE EXPECTED */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fxt/reader.h"

#define MAX_EVENTS 8192
#define LINE_MAX_LEN 4096

/* What the pairing and nesting checks need of one event. */
struct ev {
	unsigned type;
	uint64_t ts, end_ts, id, tid;
	char name[64];
};

static struct ev evs[MAX_EVENTS];
static size_t nevs;

/* String record contents, and the strings API events name (category, name, argument names). */
#define MAX_STRINGS 65536
static char *strings[MAX_STRINGS];
static size_t nstrings;
static char *api_names[MAX_EVENTS];
static size_t napi_names;

static int sv_starts(struct fxt_sv sv, const char *prefix)
{
	size_t n = strlen(prefix);
	return sv.len >= n && memcmp(sv.s, prefix, n) == 0;
}

static int is_api_category(struct fxt_sv c)
{
	return (c.len == 3 && sv_starts(c, "api")) || sv_starts(c, "api.");
}

/* Appends printf output to buf (of LINE_MAX_LEN), truncating silently. */
__attribute__((format(printf, 2, 3))) static void put(char *buf, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, LINE_MAX_LEN - len, fmt, ap);
	va_end(ap);
}

/* Long strings print as their first 16 bytes, their length and a hash of all bytes. */
static uint32_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

static void put_str(char *buf, struct fxt_sv s)
{
	uint32_t shown = s.len > 64 ? 16 : s.len;

	put(buf, "\"");
	for (uint32_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s.s[i];
		if (c == '"' || c == '\\')
			put(buf, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(buf, "\\x%02x", c);
		else
			put(buf, "%c", c);
	}
	put(buf, "\"");
	if (shown < s.len)
		put(buf, "...(len %u, fnv %08x)", s.len, fnv1a(s.s, s.len));
}

static void put_args(char *buf, const struct fxt_record *r)
{
	for (unsigned i = 0; i < r->nargs; i++) {
		const struct fxt_arg *a = &r->args[i];
		char buf_text[FXT_ARG_TEXT_MAX];
		const char *text = fxt_arg_text(a, buf_text);
		put(buf, " %.*s:%s=", (int)a->name.len, a->name.s, fxt_arg_type_name(a->type));
		if (a->type == FXT_AT_STRING)
			put_str(buf, a->v.str);
		else
			put(buf, "%s", text ? text : "?");
	}
}

static const char *thread_label(struct fxt_koids k)
{
	return k.pid == k.tid ? "main" : "thread";
}

/* The canonical line of an API record into buf, or 0 if the record is not one. */
static int canonical(const struct fxt_record *r, char *buf)
{
	static const char *const types[] = { "instant",	    "counter",	  "begin",
					     "end",	    "complete",	  "async-begin",
					     "async-instant", "async-end",  "flow-begin",
					     "flow-step",   "flow-end" };
	buf[0] = 0;
	switch (r->type) {
	case FXT_RT_EVENT: {
		unsigned t = r->u.event.event_type;
		if (!is_api_category(r->u.event.category))
			return 0;
		put(buf, "%s %s %.*s/%.*s", thread_label(r->u.event.thread),
		    t < 11 ? types[t] : "unknown", (int)r->u.event.category.len,
		    r->u.event.category.s, (int)r->u.event.name.len, r->u.event.name.s);
		if (t == FXT_ET_COUNTER || (t >= FXT_ET_ASYNC_BEGIN && t <= FXT_ET_FLOW_END))
			put(buf, " #%" PRIu64, r->u.event.id);
		put_args(buf, r);
		return 1;
	}
	case FXT_RT_BLOB:
		if (!sv_starts(r->u.blob.name, "api"))
			return 0;
		put(buf, "- blob %.*s type=%u size=%u fnv=%08x", (int)r->u.blob.name.len,
		    r->u.blob.name.s, r->u.blob.blob_type, r->u.blob.size,
		    fnv1a(r->u.blob.data, r->u.blob.size));
		return 1;
	case FXT_RT_LOG:
		if (!sv_starts(r->u.log.msg, "api"))
			return 0;
		put(buf, "%s log ", thread_label(r->u.log.thread));
		put_str(buf, r->u.log.msg);
		return 1;
	default:
		return 0;
	}
}

static void keep_event(const struct fxt_record *r)
{
	struct ev *e;

	if (nevs == MAX_EVENTS)
		return;
	e = &evs[nevs++];
	e->type = r->u.event.event_type;
	e->ts = r->u.event.ts;
	e->end_ts = r->u.event.end_ts;
	e->id = r->u.event.id;
	e->tid = r->u.event.thread.tid;
	snprintf(e->name, sizeof e->name, "%.*s", (int)r->u.event.name.len, r->u.event.name.s);
}

static char *sv_dup(struct fxt_sv sv)
{
	return strndup(sv.s, sv.len);
}

static void keep_api_name(struct fxt_sv sv)
{
	for (size_t i = 0; i < napi_names; i++)
		if (strlen(api_names[i]) == sv.len && memcmp(api_names[i], sv.s, sv.len) == 0)
			return;
	if (napi_names < MAX_EVENTS)
		api_names[napi_names++] = sv_dup(sv);
}

static void keep_strings(const struct fxt_record *r)
{
	if (r->type == FXT_RT_STRING && nstrings < MAX_STRINGS)
		strings[nstrings++] = sv_dup(r->u.string.str);
	if (r->type != FXT_RT_EVENT || !is_api_category(r->u.event.category))
		return;
	keep_api_name(r->u.event.category);
	keep_api_name(r->u.event.name);
	for (unsigned i = 0; i < r->nargs; i++)
		keep_api_name(r->args[i].name);
}

/* API strings registered by a number of string records other than one; prints them. */
static int check_interned_once(void)
{
	int bad = 0;

	for (size_t i = 0; i < napi_names; i++) {
		int n = 0;
		for (size_t j = 0; j < nstrings; j++)
			n += strcmp(strings[j], api_names[i]) == 0;
		if (n != 1) {
			printf("# \"%s\" is in %d string records\n", api_names[i], n);
			bad++;
		}
	}
	return bad;
}

/* Complete events of one thread either nest or are disjoint; returns violations. */
static int check_nesting(void)
{
	int bad = 0;

	for (size_t i = 0; i < nevs; i++) {
		const struct ev *a = &evs[i];
		if (a->type != FXT_ET_DURATION_COMPLETE)
			continue;
		if (a->end_ts < a->ts)
			bad++;
		for (size_t j = i + 1; j < nevs; j++) {
			const struct ev *b = &evs[j];
			if (b->type != FXT_ET_DURATION_COMPLETE || b->tid != a->tid)
				continue;
			int disjoint = b->ts >= a->end_ts || a->ts >= b->end_ts;
			int a_in_b = b->ts <= a->ts && a->end_ts <= b->end_ts;
			int b_in_a = a->ts <= b->ts && b->end_ts <= a->end_ts;
			if (!disjoint && !a_in_b && !b_in_a)
				bad++;
		}
	}
	return bad;
}

/* For ids of one family (begin, middle, end event types): each id has one begin, one end not
 * before it, and middles in between. Returns the number of ids checked, or -1 on a violation. */
static int check_pairs(unsigned begin, unsigned mid, unsigned end, char *why, size_t whylen)
{
	int ids = 0;

	for (size_t i = 0; i < nevs; i++) {
		if (evs[i].type != begin)
			continue;
		uint64_t id = evs[i].id;
		int nbegin = 0, nend = 0;
		uint64_t t0 = evs[i].ts, t1 = 0;
		for (size_t j = 0; j < nevs; j++) {
			if (evs[j].id != id || strcmp(evs[j].name, evs[i].name) != 0)
				continue;
			if (evs[j].type == begin)
				nbegin++;
			if (evs[j].type == end) {
				nend++;
				t1 = evs[j].ts;
			}
		}
		if (nbegin != 1 || nend != 1 || t1 < t0) {
			snprintf(why, whylen, "%s #%" PRIu64 ": %d begin(s), %d end(s)", evs[i].name,
				 id, nbegin, nend);
			return -1;
		}
		for (size_t j = 0; j < nevs; j++)
			if (evs[j].type == mid && evs[j].id == id &&
			    (evs[j].ts < t0 || evs[j].ts > t1)) {
				snprintf(why, whylen, "%s #%" PRIu64 ": a step outside begin..end",
					 evs[i].name, id);
				return -1;
			}
		ids++;
	}
	for (size_t j = 0; j < nevs; j++) {
		int found = 0;
		if (evs[j].type != mid && evs[j].type != end)
			continue;
		for (size_t i = 0; i < nevs && !found; i++)
			found = evs[i].type == begin && evs[i].id == evs[j].id;
		if (!found) {
			snprintf(why, whylen, "%s #%" PRIu64 ": no begin", evs[j].name, evs[j].id);
			return -1;
		}
	}
	return ids;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -c: sorts the lines and folds equal ones into "<count> <line>" (threads interleave freely). */
static size_t fold_counts(char **lines, size_t n)
{
	size_t out = 0;

	qsort(lines, n, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		char buf[LINE_MAX_LEN];
		while (j < n && strcmp(lines[j], lines[i]) == 0)
			j++;
		snprintf(buf, sizeof buf, "%zu %s", j - i, lines[i]);
		for (size_t k = i; k < j; k++)
			free(lines[k]);
		lines[out++] = strdup(buf);
		i = j;
	}
	return out;
}

/* Compares the produced lines with the golden file, printing differences. */
static int compare(char **got, size_t ngot, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[LINE_MAX_LEN];
	size_t i = 0;
	int same = 1;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (i >= ngot) {
			printf("# missing: %s\n", line);
			same = 0;
		} else if (strcmp(line, got[i]) != 0) {
			printf("# expected: %s\n#      got: %s\n", line, got[i]);
			same = 0;
		}
		i++;
	}
	for (; i < ngot; i++) {
		printf("# unexpected: %s\n", got[i]);
		same = 0;
	}
	fclose(f);
	return same;
}

int main(int argc, char **argv)
{
	struct fxt_reader *rd;
	struct fxt_record rec;
	char *lines[MAX_EVENTS];
	char buf[LINE_MAX_LEN], why[160] = "";
	size_t nlines = 0;
	int res, n, counts = argc == 4 && strcmp(argv[1], "-c") == 0;

	if (argc != 3 + counts) {
		fprintf(stderr, "usage: api-check [-c] ARCHIVE EXPECTED\n");
		return 2;
	}
	argv += counts;
	if (fxt_reader_open(&rd, argv[1], FXT_READER_STRICT) < 0) {
		fprintf(stderr, "api-check: cannot open %s\n", argv[1]);
		return 2;
	}
	while ((res = fxt_reader_next(rd, &rec)) == FXT_READ_RECORD) {
		if (rec.type == FXT_RT_EVENT)
			keep_event(&rec);
		keep_strings(&rec);
		if (!canonical(&rec, buf) || nlines == MAX_EVENTS)
			continue;
		lines[nlines++] = strdup(buf);
	}
	if (!ok(res == FXT_READ_END, "the archive reads to its end in strict mode"))
		printf("# at offset %" PRIu64 ": %s\n", fxt_reader_error(rd)->offset,
		       fxt_reader_error(rd)->msg);
	if (counts)
		nlines = fold_counts(lines, nlines);
	ok(compare(lines, nlines, argv[2]), "the API records are exactly those of %s", argv[2]);
	n = check_nesting();
	ok(n == 0, "complete events end after they start and nest per thread (%d violations)", n);
	n = check_pairs(FXT_ET_ASYNC_BEGIN, FXT_ET_ASYNC_INSTANT, FXT_ET_ASYNC_END, why, sizeof why);
	if (!ok(n >= 0, "async ids are paired: one begin, one end, instants between (%d ids)", n))
		printf("# %s\n", why);
	n = check_pairs(FXT_ET_FLOW_BEGIN, FXT_ET_FLOW_STEP, FXT_ET_FLOW_END, why, sizeof why);
	if (!ok(n >= 0, "flow ids are paired: one begin, one end, steps between (%d ids)", n))
		printf("# %s\n", why);
	n = check_interned_once();
	ok(n == 0,
	   "each API category, name and argument name is in exactly one string record (%zu names)",
	   napi_names);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	for (size_t i = 0; i < nstrings; i++)
		free(strings[i]);
	for (size_t i = 0; i < napi_names; i++)
		free(api_names[i]);
	fxt_reader_close(rd);
	return done();
}
