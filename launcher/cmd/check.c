/* fxt check FILE: validates a whole archive with the STRICT reader (sizes, reserved bits,
 * registered refs, argument sizes, UTF-8, no record or argument type the spec reserves) and the
 * validator of fxt/reader.h (magic number first, durations balanced and nested per thread,
 * complete events with end >= start, async and flow ids paired, each async id's records in
 * time order begin, instants, end; complete events overlapping without nesting are warnings),
 * then prints a summary. --lenient skips reserved types (counted in the summary) and pairs
 * async ids by count only. Exit status (launcher/cmd/cmd.h): 0 valid; 1 invalid, the first problem printed with
 * its offset (an empty file or one whose first record is not the magic number is invalid); 2
 * usage, or the file cannot be read (missing, a directory). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fxt/reader.h"
#include "launcher/cmd/cmd.h"
#include "writer/fields.h"

/* Warnings printed one per line; the rest are counted. */
#define MAX_WARNINGS 10

static void check_usage(FILE *f)
{
	fprintf(f, "usage: fxt check [--quiet] [--lenient] FILE\n"
		   "Validates every structural and semantic rule of the format, then prints a summary\n"
		   "(records by type, providers, threads, strings, bytes/event).\n"
		   "  -q, --quiet   no summary, only the verdict\n"
		   "  --lenient     skip record and argument types the spec reserves (the summary\n"
		   "                counts them) and pair async ids by count, not in time order\n"
		   "Complete events that overlap without nesting are warnings (stderr, with offsets).\n"
		   "The first problem and its offset are printed on stderr.\n" CMD_EXIT_USAGE);
}

static void summary(const struct fxt_validator *v, const struct fxt_reader *r)
{
	static const char *const names[16] = { "metadata", "init", "string", "thread", "event", "blob",
		"userspace_object", "kernel_object", "scheduling", "log", [15] = "large" };
	const struct fxt_validate_summary *s = fxt_validator_summary(v);
	const struct fxt_reader_stats *st = fxt_reader_stats(r);
	printf("records: %" PRIu64 " (%" PRIu64 " bytes)\n", st->records, st->bytes);
	for (int i = 0; i < 16; i++)
		if (s->by_type[i])
			printf("  %-17s %" PRIu64 "\n", names[i] ? names[i] : "unknown", s->by_type[i]);
	if (st->unknown_skipped)
		printf("  %-17s %" PRIu64 "\n", "skipped (unknown)", st->unknown_skipped);
	printf("providers: %" PRIu64, s->providers);
	if (s->dropped_providers)
		printf(" (%" PRIu64 " reported dropped records)", s->dropped_providers);
	if (s->dropped_records)
		printf("\nrecords dropped: %" PRIu64, s->dropped_records);
	printf("\nthreads: %" PRIu64 " (%" PRIu64 " thread records)\nstrings: %" PRIu64 "\n", s->threads,
	       s->thread_records, s->strings);
	if (s->warnings)
		printf("warnings: %" PRIu64 "\n", s->warnings);
	if (s->events)
		printf("bytes/event: %.1f\n", (double)st->bytes / (double)s->events);
}

static int is_magic(const struct fxt_record *rec)
{
	return rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_TRACE_INFO &&
	       rec->u.meta.trace_info_type == FXT_TI_MAGIC && rec->u.meta.magic == FXT_MAGIC;
}

/* Reads and validates every record. Returns the exit status; prints the problem if any. */
static int check_file(const char *path, struct fxt_reader *r, struct fxt_validator *v)
{
	struct fxt_record rec;
	int res, err = 0;
	uint64_t n = 0;
	uint64_t warned = 0;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (n++ == 0 && !is_magic(&rec)) {
			fprintf(stderr, "fxt check: %s: offset 0: not an FXT archive (no magic number record first)\n",
				path);
			return CMD_EXIT_INVALID;
		}
		if ((err = fxt_validator_add(v, &rec)) < 0)
			break;
		if (fxt_validator_summary(v)->warnings > warned && warned++ < MAX_WARNINGS) {
			const struct fxt_read_error *w = fxt_validator_warning(v);
			fprintf(stderr, "fxt check: %s: warning: offset %" PRIu64 " (0x%" PRIx64 "): %s\n",
				path, w->offset, w->offset, w->msg);
		}
	}
	if (warned > MAX_WARNINGS)
		fprintf(stderr, "fxt check: %s: %" PRIu64 " more warnings\n", path, warned - MAX_WARNINGS);
	if (res == FXT_READ_TRUNCATED || res == FXT_READ_CORRUPT) {
		const struct fxt_read_error *e = fxt_reader_error(r);
		if (n == 0) {
			fprintf(stderr, "fxt check: %s: offset 0: not an FXT archive (%s)\n", path, e->msg);
			return CMD_EXIT_INVALID;
		}
		fprintf(stderr, "fxt check: %s: offset %" PRIu64 " (0x%" PRIx64 "): %s%s\n", path, e->offset,
			e->offset, res == FXT_READ_TRUNCATED ? "truncated: " : "", e->msg);
		return cmd_exit_read(res);
	}
	if (n == 0) {
		fprintf(stderr, "fxt check: %s: offset 0: empty archive (no magic number record)\n", path);
		return CMD_EXIT_INVALID;
	}
	if (!err)
		err = fxt_validator_finish(v);
	if (err == -EBADMSG) {
		const struct fxt_read_error *e = fxt_validator_problem(v);
		fprintf(stderr, "fxt check: %s: offset %" PRIu64 " (0x%" PRIx64 "): %s\n", path, e->offset,
			e->offset, e->msg);
		return CMD_EXIT_INVALID;
	}
	if (err < 0) {
		fprintf(stderr, "fxt check: %s: %s\n", path, strerror(-err));
		return CMD_EXIT_ERROR;
	}
	return CMD_EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, 0, 'h' }, { "quiet", no_argument, 0, 'q' },
		{ "lenient", no_argument, 0, 'l' }, { 0, 0, 0, 0 }
	};
	int c, quiet = 0, lenient = 0;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (c == 'h') {
			check_usage(stdout);
			return 0;
		}
		if (c != 'q' && c != 'l') {
			check_usage(stderr);
			return CMD_EXIT_ERROR;
		}
		quiet |= c == 'q';
		lenient |= c == 'l';
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "fxt check: expected one FILE\n");
		check_usage(stderr);
		return CMD_EXIT_ERROR;
	}
	const char *path = argv[optind];
	struct fxt_reader *r = cmd_open_archive("check", path, FXT_READER_STRICT |
							       (lenient ? 0 : FXT_READER_RESERVED));
	if (!r)
		return CMD_EXIT_ERROR;
	struct fxt_validator *v;
	if (fxt_validator_new(&v) < 0) {
		fprintf(stderr, "fxt check: %s\n", strerror(ENOMEM));
		fxt_reader_close(r);
		return CMD_EXIT_ERROR;
	}
	if (lenient)
		fxt_validator_lenient(v);
	int status = check_file(path, r, v);
	if (status != CMD_EXIT_ERROR && !quiet)
		summary(v, r);
	if (status != CMD_EXIT_ERROR)
		printf("%s\n", status ? "invalid" : "valid");
	fxt_validator_free(v);
	fxt_reader_close(r);
	return status;
}
