/* `fxt flame FILE -o OUT.svg`: a flame graph of where the time went, from the call tree that
 * `fxt report --tree` prints (launcher/cmd/profread.c reads it, client/flame.c draws it): a
 * self-contained interactive SVG, or with --folded the folded-stack text of flamegraph.pl,
 * inferno and speedscope. Widths are inclusive wall time, or on-CPU time when the archive has
 * context switch records; --sample draws the sampled stacks instead of the calls. Output goes
 * to a temporary renamed to OUT once complete. Exit status (launcher/cmd/cmd.h): 0 ok; 1 invalid
 * archive (the graph of what precedes the problem is still written) or nothing to draw;
 * 2 usage, unreadable file, write error. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "common/outpath.h"
#include "launcher/cmd/cmd.h"
#include "launcher/cmd/profread.h"
#include "writer/fields.h"

static const char usage[] =
	"usage: fxt flame [options] FILE -o OUT.svg\n"
	"A flame graph of an FXT archive: one frame per call path (the call tree of\n"
	"fxt report --tree), as wide as the path's inclusive time; from the bottom: all,\n"
	"the process (NAME [PID]), with --threads its thread (NAME [TID]), then the calls.\n"
	"Wall time, or on-CPU time when the archive has context switch records (fxtrun\n"
	"records them where perf_event allows). The SVG is self-contained: hover a frame\n"
	"for its time and share, click to zoom, Search (or Ctrl-F) highlights frames\n"
	"matching a regular expression, Escape resets.\n"
	"  -o, --output OUT  write to OUT (default: standard output)\n"
	"  --folded          folded stacks instead of SVG: one line per call path with\n"
	"                    time of its own, \"FRAME;FRAME;FRAME NS\" (nanoseconds), the\n"
	"                    input of flamegraph.pl, inferno-flamegraph and speedscope\n"
	"  --sample          the sampled stacks (category sample) instead of the calls\n"
	"  --threads         a frame per thread under its process (default: a process's\n"
	"                    threads merged)\n"
	"  --title TEXT      the SVG's title (default: the archive's name)\n"
	"%s"
	CMD_EXIT_USAGE;

struct flame {
	struct profread pr;
	int threads;
};

/* "NAME [ID]" of a process (tid 0) or thread, "process ID" / "thread ID" when unnamed. */
static void label(void *ctx, uint64_t pid, uint64_t tid, char *buf, size_t len)
{
	struct flame *fl = ctx;
	unsigned type = tid ? FXT_OBJ_TYPE_THREAD : FXT_OBJ_TYPE_PROCESS;
	uint64_t id = tid ? tid : pid;
	struct fxt_sv n = profread_name(&fl->pr, type, id);

	if (n.len)
		snprintf(buf, len, "%.*s [%" PRIu64 "]", (int)(n.len < 200 ? n.len : 200), n.s, id);
	else
		snprintf(buf, len, "%s %" PRIu64, tid ? "thread" : "process", id);
}

/* Whether the profile has a call to draw (a row with calls) of the graph's kinds. */
static int has_calls(struct fxt_prof *p, int sample)
{
	for (int k = 0; k < FXT_PK_COUNT; k++) {
		size_t n;
		struct fxt_prof_row *rows;
		if ((k == FXT_PK_SAMPLE) != sample)
			continue;
		rows = fxt_prof_rows(p, (enum fxt_prof_kind)k, &n);
		for (size_t i = 0; i < n; i++)
			if (rows[i].calls)
				return 1;
	}
	return 0;
}

int cmd_flame(int argc, char **argv)
{
	static const struct option opts[] = {
		FXT_SEL_OPTIONS,
		{ "output", required_argument, 0, 'o' }, { "folded", no_argument, 0, 'F' },
		{ "sample", no_argument, 0, 'S' },      { "threads", no_argument, 0, 'T' },
		{ "title", required_argument, 0, 'L' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	static char obuf[1 << 16];
	struct flame fl = { .pr.start_ns = UINT64_MAX };
	struct fxt_prof_opts po = { 0 };
	struct fxt_flame_stats st;
	struct fxt_flame_opts fo = { .kind = FXT_PK_FUNC, .label = label, .ctx = &fl };
	const char *out = NULL, *title = NULL, *why, *path;
	int c, code = 0, folded = 0, sample = 0, err;
	char msg[320], what[256], sub[512], tmp[PATH_MAX + 32];
	FILE *f = stdout;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'F': folded = 1; break;
		case 'S': sample = 1; break;
		case 'T': fl.threads = 1; break;
		case 'L': title = optarg; break;
		case FXT_SEL_PID: case FXT_SEL_TID: case FXT_SEL_SINCE: case FXT_SEL_UNTIL:
			if (fxt_sel_option(&fl.pr.sel, c, optarg, msg, sizeof(msg)) < 0) {
				fprintf(stderr, "fxt flame: %s\n", msg);
				fxt_sel_free(&fl.pr.sel);
				return CMD_EXIT_ERROR;
			}
			break;
		case 'h':
		default:
			fxt_sel_free(&fl.pr.sel);
			return cmd_sel_usage(c, usage);
		}
	}
	path = argv[optind];
	if (fxt_sel_operands(&fl.pr.sel, "flame", argc - optind, 1, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt flame: %s\n", msg);
		fxt_sel_free(&fl.pr.sel);
		return CMD_EXIT_ERROR;
	}
	if (out && fxt_outpath_check(out, &why) < 0) {
		fprintf(stderr, "fxt flame: -o %s: %s\n", out, why);
		fxt_sel_free(&fl.pr.sel);
		return CMD_EXIT_ERROR;
	}
	po.per_thread = fl.threads;
	po.tree = 1;
	/* the whole archive is read before OUT is made: bad input leaves nothing behind */
	if ((code = profread_load(&fl.pr, "flame", path, &po)))
		goto out;
	if (!has_calls(fl.pr.prof, sample)) {
		struct fxt_sel window = fl.pr.sel;	/* the window alone */
		window.pids.n = window.tids.n = 0;
		if (fxt_sel_window(&window))
			fprintf(stderr, "fxt flame: %s: no calls match%s\n", path,
				fxt_sel_describe(&window, what, sizeof(what)));
		else
			fprintf(stderr, "fxt flame: %s: no %s recorded%s\n", path,
				sample ? "sampled stacks" : "function calls",
				sample ? "" : " (fxt flame --sample draws sampled stacks)");
		code = CMD_EXIT_INVALID;
		goto out;
	}
	if (out && !(f = cmd_open_out("flame", out, tmp, sizeof(tmp)))) {
		code = CMD_EXIT_ERROR;
		goto out;
	}
	setvbuf(f, obuf, _IOFBF, sizeof(obuf));
	fo.kind = sample ? FXT_PK_SAMPLE : FXT_PK_FUNC;
	fo.threads = fl.threads;
	fo.title = title ? title : path;
	snprintf(sub, sizeof(sub), "%s by call path%s, fxt flame", sample
		 ? "sampled stacks (time estimated from slices)"
		 : fl.pr.oncpu ? "on-CPU time (from context switches)" : "inclusive wall time",
		 fxt_sel_describe(&fl.pr.sel, what, sizeof(what)));
	fo.subtitle = sub;
	err = folded ? fxt_flame_folded(f, fl.pr.prof, &fo, &st)
		     : fxt_flame_svg(f, fl.pr.prof, &fo, &st);
	if (out && fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "fxt flame: %s: %s\n", out ? out : "stdout",
			err == -ENOMEM ? "out of memory" : strerror(-err));
		code = CMD_EXIT_ERROR;
	}
	if (out && code == CMD_EXIT_ERROR)
		unlink(tmp);	/* a half-written file is not presented as output */
	else if (out && fxt_outpath_commit(tmp, out, &why) < 0) {
		fprintf(stderr, "fxt flame: -o %s: %s (the graph stays in %s)\n", out, why, tmp);
		code = CMD_EXIT_ERROR;
	}
	if (code == CMD_EXIT_ERROR)
		goto out;
	if (st.cut)
		fprintf(stderr, "fxt flame: %" PRIu64 " call path%s deeper than %d frames: %s "
			"time is shown in the frame at that depth\n", st.cut, st.cut == 1 ? "" : "s",
			FXT_FLAME_MAX_DEPTH, st.cut == 1 ? "its" : "their");
	if (fxt_prof_unclosed(fl.pr.prof))
		fprintf(stderr, "fxt flame: %" PRIu64 " begin events never ended (not counted)\n",
			fxt_prof_unclosed(fl.pr.prof));
	profread_print_loss(&fl.pr, stderr);
	if (fxt_sel_warning(&fl.pr.sel, fl.pr.start_ns, msg, sizeof(msg)))
		fprintf(stderr, "fxt flame: %s\n", msg);
out:
	code = profread_status(&fl.pr, "flame", path, code);
	profread_free(&fl.pr);
	fxt_sel_free(&fl.pr.sel);
	return code;
}
