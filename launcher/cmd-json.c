/* `fxt json FILE [-o OUT]`: Catapult JSON (Trace Event Format) for chrome://tracing, Perfetto
 * and speedscope, written as the archive streams through the converter (client/json.c).
 * Exit status (launcher/cmd.h): 0 ok; 1 invalid archive (the JSON of what precedes the
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
#include "launcher/cmd.h"

static const char usage[] =
	"usage: fxt json [-o OUT] FILE\n"
	"Converts an FXT archive to Catapult JSON (Trace Event Format) on stdout or into OUT:\n"
	"durations (X, B/E), instants (i), counters (C), async (b/n/e), flows (s/t/f), log\n"
	"records (instants with the message), process and thread names (M), typed arguments,\n"
	"pointer arguments named through userspace object records. Times in microseconds:\n"
	"CLOCK_MONOTONIC when the archive has fxtauto's clock record (every archive fxtauto\n"
	"writes), so they line up with the program's own clock_gettime() stamps.\n"
	"  -o, --output OUT  write to OUT instead of stdout\n" CMD_EXIT_USAGE;

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	return fxt_json_record(ctx, r, rec);
}

/* The temporary that becomes out once complete (common/outpath.h: a device, FIFO or directory
 * is never written over, a name someone planted never opened). NULL after saying why. */
static FILE *open_out(const char *out, char *tmp, size_t size)
{
	const char *why;
	int fd = fxt_outpath_check(out, &why);
	FILE *f;

	if (fd < 0) {
		fprintf(stderr, "fxt json: -o %s: %s\n", out, why);
		return NULL;
	}
	if ((fd = fxt_outpath_open(out, tmp, size)) < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "fxt json: -o %s: %s\n", out, strerror(fd < 0 ? -fd : errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return NULL;
	}
	return f;
}

int cmd_json(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	static char obuf[1 << 16];
	const char *out = NULL;
	struct fxt_client_result res;
	struct fxt_json *j;
	FILE *f = stdout;
	int c, code = 0, err;
	char msg[320];

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return CMD_EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fxt json: expected one archive (try fxt json --help)\n");
		return CMD_EXIT_ERROR;
	}
	const char *why;
	char tmp[PATH_MAX + 32];
	if (out && !(f = open_out(out, tmp, sizeof(tmp))))
		return CMD_EXIT_ERROR;
	setvbuf(f, obuf, _IOFBF, sizeof(obuf));
	if (fxt_json_new(&j, f) < 0) {
		fprintf(stderr, "fxt json: out of memory\n");
		return CMD_EXIT_ERROR;
	}
	fxt_client_read(cmd_input(argv[optind]), on_record, j, &res);
	code = cmd_exit_client(&res);
	if (res.status != FXT_CS_OK)
		fprintf(stderr, "fxt json: %s\n",
			fxt_client_message(&res, argv[optind], msg, sizeof(msg)));
	if (res.status != FXT_CS_OPEN && (err = fxt_json_finish(j)) < 0) {
		fprintf(stderr, "fxt json: %s: %s\n", out ? out : "stdout", strerror(-err));
		code = CMD_EXIT_ERROR;
	}
	fxt_client_close(&res);
	fxt_json_free(j);
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
