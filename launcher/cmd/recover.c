/* `fxt recover FILE [-o OUT]`: makes the archive file of a killed standalone run (LD_PRELOAD
 * without fxtrun leaves "<FXT_OUTPUT>.part" when the process dies of SIGKILL) into a valid
 * archive of every record committed (launcher/recover/recover.c), in place, renamed to OUT (default:
 * FILE without ".part"). When FILE is the placeholder a wrapper left (a root of an FXT_OUTPUT
 * tree that recorded nothing, waiting for the programs it started), the tree's files are named
 * as its processes would have (launcher/recover/tree.c): the one program's archive becomes
 * OUT. A killed trace manager's FILE.part is cut after its last whole record
 * (launcher/recover/stream.c). A finished archive is left as it was (recovering twice is
 * harmless). Exit status (launcher/cmd/cmd.h): 0 done; 1 not such a file (empty, too short, neither
 * a standalone run's nor a manager's FILE.part); 2 usage, a file that cannot be read or written (missing, a directory, a pipe: it is
 * repaired in place), still written by a live process, I/O error. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "launcher/cmd/cmd.h"
#include "launcher/recover/recover.h"
#include "launcher/recover/tree.h"

static const char usage[] =
	"usage: fxt recover FILE [-o OUT]\n"
	"Makes the archive a killed run left (FILE.part, written by LD_PRELOAD=libfxtauto.so\n"
	"without fxtrun) valid: every record committed before the kill is kept. In place, then\n"
	"renamed to OUT (default: FILE without its .part suffix). FILE must be a regular file.\n"
	"FILE may be the FILE.part of a killed trace manager (fxtrun, fxt manager): cut after\n"
	"its last whole record, and said in it that what was not saved yet is lost.\n"
	"FILE may be the placeholder a wrapper that recorded nothing left (timeout, sh -c): the\n"
	"archive of the program it ran (FILE.<pid>.part, killed or not) becomes OUT, the\n"
	"wrappers' own files go; when several programs recorded, each keeps its own name.\n"
	"Exit 0 ok; 1 FILE is not such an archive (empty, too short, neither a standalone run's\n"
	"nor a trace manager's FILE.part);\n"
	"2 usage error, or FILE cannot be read or written (missing, a directory, a pipe), or a\n"
	"process still writes it.\n";

int cmd_recover(int argc, char **argv)
{
	static const struct option longs[] = { { "output", required_argument, NULL, 'o' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	const char *out = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c != 'o' || !*optarg) {
			fprintf(stderr, "fxt recover: bad option '%s'\n%s", argv[optind - 1], usage);
			return CMD_EXIT_ERROR;
		}
		out = optarg;
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return CMD_EXIT_ERROR;
	}
	const char *path = argv[optind];
	char dflt[PATH_MAX];
	size_t len = strlen(path);
	if (!out && len > 5 && !strcmp(path + len - 5, ".part") && len - 5 < sizeof(dflt)) {
		memcpy(dflt, path, len - 5);
		dflt[len - 5] = 0;
		out = dflt;
	}
	int status = fxt_recover_tree(path, out);
	return status >= 0 ? status : fxt_recover_file(path, out);
}
