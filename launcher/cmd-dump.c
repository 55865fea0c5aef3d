/* fxt dump FILE: every record as one canonical line (reader/print.h), then the reader's
 * verdict. Lenient unless --strict: tolerated violations are decoded as well as possible and
 * counted on stderr. Exit 0 when the whole file decoded (an empty file: no lines), 1 on a
 * corrupt or truncated record (the lines before it are printed), 2 when it cannot be opened. */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>

#include "fxt/reader.h"
#include "launcher/cmd.h"
#include "reader/print.h"

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: fxt dump [--strict] FILE\n"
		   "Prints one line per record: offset, kind, decoded fields, arguments.\n"
		   "  --strict   stop at the first violation of the format (as fxt check does)\n");
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
			return 2;
		}
		flags |= FXT_READER_STRICT;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "fxt dump: expected one FILE\n");
		dump_usage(stderr);
		return 2;
	}
	struct fxt_reader *r = cmd_open_archive("dump", argv[optind], flags);
	if (!r)
		return 2;
	struct fxt_record rec;
	int res;
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD)
		fxt_print_record(stdout, &rec);
	int status = 0;
	if (res != FXT_READ_END) {
		const struct fxt_read_error *e = fxt_reader_error(r);
		fprintf(stderr, "fxt dump: %s: %s at offset %llu: %s\n", argv[optind],
			res == FXT_READ_TRUNCATED ? "truncated" : "corrupt",
			(unsigned long long)e->offset, e->msg);
		status = 1;
	}
	const struct fxt_reader_stats *st = fxt_reader_stats(r);
	if (st->lenient_fixes)
		fprintf(stderr, "fxt dump: %s: %llu violations of the format tolerated (fxt check reports them)\n",
			argv[optind], (unsigned long long)st->lenient_fixes);
	fxt_reader_close(r);
	return fflush(stdout) == 0 && status == 0 ? 0 : 1;
}
