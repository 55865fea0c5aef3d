/* fxt dump FILE: every record as one canonical line (reader/print.h), then the reader's
 * verdict. Lenient unless --strict: tolerated violations are decoded as well as possible and
 * counted on stderr. Exit status (launcher/cmd/cmd.h): 0 when the whole file decoded; 1 for an
 * empty file, one not starting with the magic number record (nothing printed), a corrupt or
 * truncated record (the lines before it are printed); 2 usage, or it cannot be read. */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/reader.h"
#include "launcher/cmd/cmd.h"

static int is_magic(const struct fxt_record *rec)
{
	return rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_TRACE_INFO &&
	       rec->u.meta.trace_info_type == FXT_TI_MAGIC && rec->u.meta.magic == FXT_MAGIC;
}

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: fxt dump [--strict] FILE\n"
		   "Prints one line per record: offset, kind, decoded fields, arguments.\n"
		   "  --strict   stop at the first violation of the format (as fxt check does)\n"
		   CMD_EXIT_USAGE);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, 0, 'h' }, { "strict", no_argument, 0, 's' }, { 0, 0, 0, 0 }
	};
	unsigned flags = 0;
	int c;
	while ((c = getopt_long(argc, argv, "hs", opts, NULL)) != -1) {
		if (c == 'h') {
			dump_usage(stdout);
			return 0;
		}
		if (c != 's') {
			dump_usage(stderr);
			return CMD_EXIT_ERROR;
		}
		flags |= FXT_READER_STRICT;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "fxt dump: expected one FILE\n");
		dump_usage(stderr);
		return CMD_EXIT_ERROR;
	}
	struct fxt_reader *r = cmd_open_archive("dump", argv[optind], flags);
	if (!r)
		return CMD_EXIT_ERROR;
	struct fxt_record rec;
	int res, status = CMD_EXIT_OK;
	uint64_t n = 0;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (n++ == 0 && !is_magic(&rec)) {
			fprintf(stderr, "fxt dump: %s: offset 0: not an FXT archive (no magic number record first)\n",
				argv[optind]);
			fxt_reader_close(r);
			return CMD_EXIT_INVALID;
		}
		fxt_record_print(stdout, &rec);
	}
	if (res == FXT_READ_END && n == 0) {
		fprintf(stderr, "fxt dump: %s: offset 0: empty archive (no magic number record)\n",
			argv[optind]);
		status = CMD_EXIT_INVALID;
	} else if (res != FXT_READ_END && n == 0) {
		fprintf(stderr, "fxt dump: %s: offset 0: not an FXT archive (%s)\n", argv[optind],
			fxt_reader_error(r)->msg);
		status = CMD_EXIT_INVALID;
	} else if (res != FXT_READ_END) {
		const struct fxt_read_error *e = fxt_reader_error(r);
		fprintf(stderr, "fxt dump: %s: %s at offset %llu: %s\n", argv[optind],
			res == FXT_READ_TRUNCATED ? "truncated" : "corrupt",
			(unsigned long long)e->offset, e->msg);
		status = cmd_exit_read(res);
	}
	const struct fxt_reader_stats *st = fxt_reader_stats(r);
	if (st->lenient_fixes)
		fprintf(stderr, "fxt dump: %s: %llu violations of the format tolerated (fxt check reports them)\n",
			argv[optind], (unsigned long long)st->lenient_fixes);
	fxt_reader_close(r);
	if (fflush(stdout) != 0) {
		perror("fxt dump: stdout");
		return CMD_EXIT_ERROR;
	}
	return status;
}
