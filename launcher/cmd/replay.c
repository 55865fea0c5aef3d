/* `fxt replay FILE`: what each thread did, in time order: its calls indented by depth with
 * their durations (and on-CPU time when context switches were recorded), its log lines and
 * events in place (client/replay.c), streamed as the archive is read. Filters: threads, time
 * window (client/selection.c), function subtrees, depth, shortest call. Exit status
 * (launcher/cmd/cmd.h): 0 ok; 1 invalid archive (what precedes the problem is printed) or filters
 * that match nothing; 2 usage, unreadable file, write error. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "launcher/cmd/cmd.h"

static const char usage[] =
	"usage: fxt replay [options] FILE\n"
	"What each thread did, in time order: one line per call, indented by depth, with its\n"
	"start (seconds of the archive's clock), duration and, when context switches were\n"
	"recorded, on-CPU time; log lines and events (instants, counters, async, flows) in place.\n"
	"Lines appear as the archive is read: a call is written into the archive when it ends,\n"
	"so a thread's lines wait for the calls around them; when more than --hold events wait,\n"
	"the thread holding the most is printed at once (a note says so) and a call read after\n"
	"lines it encloses follows them, marked ^.\n"
	"  --function GLOBS only these functions' calls and what they called (comma-separated;\n"
	"                   repeatable); depths then count from the function\n"
	"  --depth N        only lines less than N calls deep\n"
	"  --min TIME       only calls that took at least TIME (10us, 1ms...)\n"
	"  --hold N         events that may wait before a thread is printed early (262144)\n"
	"%s" CMD_EXIT_USAGE;

static int on_record(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	return fxt_replay_record(ctx, r, rec);
}

static int parse_count(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || !*v ? -1 : 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		FXT_SEL_OPTIONS,
		{ "function", required_argument, 0, 'f' }, { "depth", required_argument, 0, 'd' },
		{ "min", required_argument, 0, 'm' },      { "hold", required_argument, 0, 'H' },
		{ "help", no_argument, 0, 'h' },           { 0, 0, 0, 0 },
	};
	static char globs[4096];	/* --function's lists, joined by commas */
	static char obuf[1 << 16];
	struct fxt_sel sel = { 0 };
	struct fxt_replay_opts o = { .sel = &sel, .hold = FXT_REPLAY_HOLD };
	struct fxt_client_result res = { 0 };
	struct fxt_replay *rp = NULL;
	uint64_t v, late, start = UINT64_MAX;	/* the earliest event read */
	int c, code = 0, rc;
	char msg[320], what[256];

	optind = 1;
	globs[0] = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
			if (fxt_sel_option(&sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt replay: %s\n", msg);
				code = CMD_EXIT_ERROR;
				goto out;
			}
			break;
		case 'f': {
			size_t at = strlen(globs);
			if (at + 1 + strlen(optarg) >= sizeof(globs)) {
				fprintf(stderr, "fxt replay: --function: too many globs\n");
				code = CMD_EXIT_ERROR;
				goto out;
			}
			snprintf(globs + at, sizeof(globs) - at, "%s%s", at ? "," : "", optarg);
			o.glob = globs;
			break;
		}
		case 'd':
		case 'H':
			if (parse_count(optarg, &v) < 0 || v > UINT32_MAX) {
				fprintf(stderr, "fxt replay: --%s %s: expected a positive number\n",
					c == 'd' ? "depth" : "hold", optarg);
				code = CMD_EXIT_ERROR;
				goto out;
			}
			if (c == 'd')
				o.depth = (unsigned)v;
			else
				o.hold = (size_t)v;
			break;
		case 'm':
			if (fxt_time_parse(optarg, &o.min_ns) < 0) {
				fprintf(stderr, "fxt replay: --min %s: expected a duration like "
					"10us, 1.5ms or 2s\n", optarg);
				code = CMD_EXIT_ERROR;
				goto out;
			}
			break;
		case 'h':
		default:
			code = cmd_sel_usage(c, usage);
			goto out;
		}
	}
	if (fxt_sel_operands(&sel, "replay", argc - optind, 1, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt replay: %s\n", msg);
		code = CMD_EXIT_ERROR;
		goto out;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (fxt_replay_new(&rp, &o, stdout) < 0)
		goto nomem;
	if (cmd_sel_read("replay", &sel, argv[optind], on_record, rp, &start, &res) < 0) {
		code = CMD_EXIT_ERROR;
		goto out;
	}
	if (res.status == FXT_CS_OPEN || res.status == FXT_CS_CALLBACK)
		goto done;
	if ((rc = fxt_replay_finish(rp)) < 0) {
		if (rc == -ENOMEM)
			goto nomem;
		fprintf(stderr, "fxt replay: stdout: %s\n", strerror(-rc));
		code = CMD_EXIT_ERROR;
		goto out;
	}
	if (!fxt_replay_stats(rp)->lines) {
		if (fxt_sel_threads(&sel) || fxt_sel_window(&sel) || o.glob || o.depth ||
		    o.min_ns) {
			fprintf(stderr, "fxt replay: %s: nothing matches%s%s%s\n", argv[optind],
				fxt_sel_describe(&sel, what, sizeof(what)),
				o.glob ? " --function " : "", o.glob ? o.glob : "");
			code = CMD_EXIT_INVALID;
		} else if (res.status == FXT_CS_OK) {
			printf("%s: no calls or events recorded\n", argv[optind]);
		}
	}
	if (fxt_sel_warning(&sel, start, msg, sizeof(msg)))
		fprintf(stderr, "fxt replay: %s\n", msg);
	late = fxt_replay_stats(rp)->late;
	if (late) {
		uint64_t waited = fxt_replay_stats(rp)->waited;
		fprintf(stderr, "fxt replay: %" PRIu64 " call%s printed after lines %s encloses "
			"(marked ^): more than --hold %zu events waited; --hold %" PRIu64
			" prints every line in order (at least %" PRIu64 " MiB)\n", late,
			late == 1 ? "" : "s", late == 1 ? "it" : "each", o.hold, waited,
			(waited * fxt_replay_event_bytes() + (1u << 20) - 1) >> 20);
	}
done:
	if (res.status != FXT_CS_OK) {
		fflush(stdout);
		fprintf(stderr, "fxt replay: %s\n",
			fxt_client_message(&res, argv[optind], msg, sizeof(msg)));
		if (cmd_exit_client(&res) > code)
			code = cmd_exit_client(&res);
	}
	if (fflush(stdout) && !code) {
		fprintf(stderr, "fxt replay: stdout: %s\n", strerror(errno));
		code = CMD_EXIT_ERROR;
	}
out:
	fxt_client_close(&res);
	fxt_replay_free(rp);
	fxt_sel_free(&sel);
	return code;
nomem:
	fprintf(stderr, "fxt replay: out of memory\n");
	code = CMD_EXIT_ERROR;
	goto out;
}
