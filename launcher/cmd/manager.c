/* `fxt manager [--foreground]`: runs the per-user trace manager service (launcher/service/loop.c).
 * Clients start it on demand; run by hand it is the same. Exit 0 once it runs (or, in the
 * foreground, when it ends), 1 if it cannot (a bad runtime directory, one running already),
 * 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>

#include "launcher/cmd/cmd.h"
#include "launcher/service/service.h"

static const char usage[] =
	"usage: fxt manager [--foreground]\n"
	"Runs the trace manager service of this user: programs started with\n"
	"FXT_REGISTER=1 register with it; fxt list, record, start, stop and snapshot\n"
	"control it (and start it when it is not running).\n"
	"  --foreground    do not become a daemon; log on stderr\n"
	"  -h, --help      this text\n"
	"Its directory: $FXT_RUNTIME_DIR, else $XDG_RUNTIME_DIR/fxtauto, else\n"
	"/tmp/fxtauto-UID (mode 0700, ours). SIGTERM: the running trace is stopped and\n"
	"its archive finished, then it exits.\n";

int cmd_manager(int argc, char **argv)
{
	static const struct option longs[] = { { "foreground", no_argument, NULL, 'f' },
						{ "help", no_argument, NULL, 'h' },
						{ NULL, 0, NULL, 0 } };
	int foreground = 0, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			foreground = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "fxt manager: unknown option '%s'\n"
					"Try 'fxt manager --help'.\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fxt manager: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return fxt_service_run(foreground);
}
