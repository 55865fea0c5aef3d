/* Checks an archive of a sampled run (preload/sampling/sample-records.c's format) with the project's reader:
 * it is valid, it holds raw "fxt-sample-v1" stacks and "sample" slices, and each claim given
 * on the command line holds:
 *   --total NAME --frac NAME=PCT [--frac ...] --tol PTS  the samples of slices named NAME
 *                                    (their "samples" argument) are PCT% (within PTS points)
 *                                    of those of the slices named --total
 *   --tid-samples TID                thread TID has at least 10 raw samples
 *   --tid-none TID                   thread TID, blocked most of its life (longer than the
 *                                    busiest thread ran), took at most 2 samples or 2% of the
 *                                    busiest thread's: only its brief setup and exit ran on CPU
 *   --named NAME                     a sample slice is named NAME
 *   --prefix TEXT                    a sample slice name starts with TEXT (module+0x frames)
 *   --calls NAME                     a traced (not "sample") complete event is named NAME */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "fxt/reader.h"
#include "tests/unit/check.h"

#define MAX_NAMES 8192
#define MAX_TIDS 256

static struct fxt_sv names[MAX_NAMES];
static uint64_t durs[MAX_NAMES], counts[MAX_NAMES];
static uint32_t nnames;
static uint64_t tids[MAX_TIDS], tid_samples[MAX_TIDS];
static uint32_t ntids;
static struct fxt_sv calls[MAX_NAMES];	/* distinct names of traced calls */
static uint32_t ncalls;

static int sv_is(struct fxt_sv a, const char *s)
{
	return a.len == strlen(s) && memcmp(a.s, s, a.len) == 0;
}

static uint64_t of(const uint64_t *what, const char *name)
{
	for (uint32_t i = 0; i < nnames; i++)
		if (sv_is(names[i], name))
			return what[i];
	return 0;
}

static void add_slice(struct fxt_sv name, uint64_t d, uint64_t count)
{
	uint32_t i = 0;
	while (i < nnames && !(names[i].len == name.len && memcmp(names[i].s, name.s, name.len) == 0))
		i++;
	if (i == nnames && nnames < MAX_NAMES)
		names[nnames++] = name;
	if (i < MAX_NAMES) {
		durs[i] += d;
		counts[i] += count;
	}
}

static uint64_t samples_of(uint64_t tid)
{
	for (uint32_t i = 0; i < ntids; i++)
		if (tids[i] == tid)
			return tid_samples[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct fxt_reader *r;
	struct fxt_validator *v;
	struct fxt_record rec;
	uint64_t raw = 0, bad_raw = 0, slices = 0, bad_count = 0;
	int rc;

	if (argc < 2 || fxt_reader_open(&r, argv[1], 0) < 0 || fxt_validator_new(&v) < 0) {
		fprintf(stderr, "usage: m-check ARCHIVE [claims...] (archive readable)\n");
		return 2;
	}
	int valid = 1;
	while ((rc = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		valid &= fxt_validator_add(v, &rec) == 0;
		if (rec.type == FXT_RT_LARGE && sv_is(rec.u.large.name, "fxt-sample-v1")) {
			raw++;
			bad_raw += !sv_is(rec.u.large.category, "sample") || rec.u.large.size == 0 ||
				   rec.u.large.size % 8 != 0;
			uint32_t i = 0;
			while (i < ntids && tids[i] != rec.u.large.thread.tid)
				i++;
			if (i == ntids && ntids < MAX_TIDS)
				tids[ntids++] = rec.u.large.thread.tid;
			if (i < MAX_TIDS)
				tid_samples[i]++;
		} else if (rec.type == FXT_RT_EVENT &&
			   rec.u.event.event_type == FXT_ET_DURATION_COMPLETE) {
			if (sv_is(rec.u.event.category, "sample")) {
				uint64_t count = 0;
				for (unsigned a = 0; a < rec.nargs; a++)
					if (sv_is(rec.args[a].name, "samples"))
						count = rec.args[a].v.u64;
				slices++;
				bad_count += count == 0;
				add_slice(rec.u.event.name, rec.u.event.end_ts - rec.u.event.ts, count);
			} else {
				uint32_t k = 0;
				while (k < ncalls && !(calls[k].len == rec.u.event.name.len &&
						       !memcmp(calls[k].s, rec.u.event.name.s, calls[k].len)))
					k++;
				if (k == ncalls && ncalls < MAX_NAMES)
					calls[ncalls++] = rec.u.event.name;
			}
		}
	}
	valid &= rc == FXT_READ_END && fxt_validator_finish(v) == 0;
	const struct fxt_read_error *e = rc != FXT_READ_END ? fxt_reader_error(r) : fxt_validator_problem(v);
	ok(valid, "the archive reads to its end and passes the validator%s%s", valid ? "" : ": ",
	   valid || !e ? "" : e->msg);
	ok(raw > 0 && !bad_raw, "it holds %llu raw stacks, each a list of pcs in category sample",
	   (unsigned long long)raw);
	ok(slices > 0 && !bad_count, "it holds %llu sample slices, each with its sample count",
	   (unsigned long long)slices);

	const char *total = NULL;
	double tol = 5;
	for (int i = 2; i + 1 < argc; i += 2) {
		const char *opt = argv[i], *arg = argv[i + 1];
		if (!strcmp(opt, "--total")) {
			total = arg;
		} else if (!strcmp(opt, "--tol")) {
			tol = atof(arg);
		} else if (!strcmp(opt, "--frac")) {
			char name[256];
			const char *eq = strchr(arg, '=');
			snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : 0, arg);
			double want = eq ? atof(eq + 1) : -1, all = total ? (double)of(counts, total) : 0;
			double got = all > 0 ? 100.0 * (double)of(counts, name) / all : -100;
			ok(got >= want - tol && got <= want + tol,
			   "%s takes %.1f%% of %s's samples (truth %.0f%%, tolerance %.0f points)",
			   name, got, total ? total : "(no --total)", want, tol);
			if (total && of(durs, total))
				printf("# by slice time: %.1f%%\n",
				       100.0 * (double)of(durs, name) / (double)of(durs, total));
		} else if (!strcmp(opt, "--tid-samples")) {
			uint64_t n = samples_of(strtoull(arg, NULL, 10));
			ok(n >= 10, "thread %s took %llu samples (at least 10)", arg, (unsigned long long)n);
		} else if (!strcmp(opt, "--tid-none")) {
			uint64_t n = samples_of(strtoull(arg, NULL, 10)), most = 0;
			for (uint32_t k = 0; k < ntids; k++)
				most = tid_samples[k] > most ? tid_samples[k] : most;
			ok(n <= 2 || n * 50 <= most,
			   "thread %s, blocked, took %llu samples (busiest thread: %llu)", arg,
			   (unsigned long long)n, (unsigned long long)most);
		} else if (!strcmp(opt, "--named")) {
			ok(of(counts, arg) > 0, "a sample slice is named %s", arg);
		} else if (!strcmp(opt, "--prefix")) {
			uint32_t k = 0;
			while (k < nnames && !(names[k].len >= strlen(arg) &&
					       !memcmp(names[k].s, arg, strlen(arg))))
				k++;
			ok(k < nnames, "a sample slice name starts with %s", arg);
		} else if (!strcmp(opt, "--calls")) {
			uint32_t k = 0;
			while (k < ncalls && !sv_is(calls[k], arg))
				k++;
			ok(k < ncalls, "a traced call (not a sample) is named %s", arg);
		} else {
			ok(0, "known option %s", opt);
		}
	}
	fxt_validator_free(v);
	fxt_reader_close(r);
	return done();
}
