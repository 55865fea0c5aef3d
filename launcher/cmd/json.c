/* `fxt json FILE [-o OUT]`: Catapult JSON (Trace Event Format) for chrome://tracing, Perfetto
 * and speedscope, written as the archive streams through the converter (client/json.c); with
 * --pid/--tid/--since/--until (client/selection.c) only those threads and that window, calls
 * crossing a bound cut at it.
 * Exit status (launcher/cmd/cmd.h): 0 ok; 1 invalid archive (the JSON of what precedes the
 * problem is still written); 2 usage, unreadable file, write error. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "common/outpath.h"
#include "launcher/cmd/cmd.h"

static const char usage[] =
	"usage: fxt json [options] [-o OUT] FILE\n"
	"Converts an FXT archive to Catapult JSON (Trace Event Format) on stdout or into OUT:\n"
	"durations (X, B/E), instants (i), counters (C), async (b/n/e), flows (s/t/f), log\n"
	"records (instants with the message), process and thread names (M), typed arguments,\n"
	"pointer arguments named through userspace object records. Times in microseconds:\n"
	"CLOCK_MONOTONIC when the archive has fxtauto's clock record (every archive fxtauto\n"
	"writes), so they line up with the program's own clock_gettime() stamps.\n"
	"  -o, --output OUT  write to OUT instead of stdout\n"
	"%s"
	"With a window, a call (or CPU or off-CPU slice) that crosses a bound is cut at it,\n"
	"with an argument \"clipped\": start, end or both; events outside are left out.\n"
	CMD_EXIT_USAGE;

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	return fxt_json_record(ctx, r, rec);
}

int cmd_json(int argc, char **argv)
{
	static const struct option opts[] = {
		FXT_SEL_OPTIONS,
		{ "output", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	static char obuf[1 << 16];
	const char *out = NULL;
	struct fxt_client_result res = { 0 };
	struct fxt_sel sel = { 0 };
	struct fxt_json *j = NULL;
	uint64_t start = UINT64_MAX;	/* the earliest event read */
	FILE *f = stdout;
	int c, code = 0, err, selecting = 0;
	char msg[320];

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
			if (fxt_sel_option(&sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt json: %s\n", msg);
				fxt_sel_free(&sel);
				return CMD_EXIT_ERROR;
			}
			selecting = 1;
			break;
		case 'h':
		default:
			fxt_sel_free(&sel);
			return cmd_sel_usage(c, usage);
		}
	}
	if (fxt_sel_operands(&sel, "json", argc - optind, 1, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt json: %s\n", msg);
		fxt_sel_free(&sel);
		return CMD_EXIT_ERROR;
	}
	const char *why;
	char tmp[PATH_MAX + 32];
	if (out && !(f = cmd_open_out("json", out, tmp, sizeof(tmp)))) {
		fxt_sel_free(&sel);
		return CMD_EXIT_ERROR;
	}
	setvbuf(f, obuf, _IOFBF, sizeof(obuf));
	if (fxt_json_new(&j, f) < 0) {
		fprintf(stderr, "fxt json: out of memory\n");
		code = CMD_EXIT_ERROR;
	} else {
		if (selecting)
			fxt_json_select(j, &sel);
		if (cmd_sel_read("json", &sel, argv[optind], on_record, j, &start, &res) < 0)
			code = CMD_EXIT_ERROR;
	}
	if (code) {	/* no JSON written: nothing to finish or keep */
		fxt_client_close(&res);
		fxt_json_free(j);
		fxt_sel_free(&sel);
		if (out) {
			fclose(f);
			unlink(tmp);
		}
		return code;
	}
	code = cmd_exit_client(&res);
	if (res.status != FXT_CS_OK)
		fprintf(stderr, "fxt json: %s\n",
			fxt_client_message(&res, argv[optind], msg, sizeof(msg)));
	if (res.status != FXT_CS_OPEN && (err = fxt_json_finish(j)) < 0) {
		fprintf(stderr, "fxt json: %s: %s\n", out ? out : "stdout", strerror(-err));
		code = CMD_EXIT_ERROR;
	}
	if (res.status != FXT_CS_OPEN && fxt_sel_warning(&sel, start, msg, sizeof(msg)))
		fprintf(stderr, "fxt json: %s\n", msg);
	fxt_client_close(&res);
	fxt_json_free(j);
	fxt_sel_free(&sel);
	if (out && fclose(f) && !code) {
		fprintf(stderr, "fxt json: %s: %s\n", out, strerror(errno));
		code = CMD_EXIT_ERROR;
	}
	if (out && (res.status == FXT_CS_OPEN || code == CMD_EXIT_ERROR))
		unlink(tmp);	/* nothing, or a half-written file: not presented as output */
	else if (out && fxt_outpath_commit(tmp, out, &why) < 0) {
		fprintf(stderr, "fxt json: -o %s: %s (the JSON stays in %s)\n", out, why, tmp);
		code = CMD_EXIT_ERROR;
	}
	return code;
}
