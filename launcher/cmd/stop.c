/* `fxt stop [--force] [-o FILE]`: stops the running trace of the manager service; the manager
 * writes its archive into the file fxt start was given (and renames it), else into FILE
 * (written as FILE.part, renamed here when the manager says it holds the archive, removed
 * otherwise), and the summary names the file that holds it. A trace an fxt record runs is
 * stopped only with --force. Exit 0; 1 when no trace runs or the archive could not
 * be written; 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"
#include "common/runtime.h"
#include "launcher/manager/msg.h"

#define ME "fxt stop"

static const char usage[] =
	"usage: fxt stop [--force] [-o FILE]\n"
	"Stops the running trace and writes its archive: to the file given to\n"
	"fxt start -o, else to FILE (written as FILE.part until complete).\n"
	"  --force    stop a trace that an fxt record runs (it gets the archive)\n";

/* No manager: says so, and names the archives a manager stopped during a trace left in the
 * runtime directory. */
static void no_manager(void)
{
	char dir[PATH_MAX], pat[PATH_MAX + 32];
	glob_t g;
	fprintf(stderr, ME ": no trace running (no manager)\n");
	if (fxt_runtime_dir(dir, sizeof(dir), 0, NULL) < 0 ||
	    snprintf(pat, sizeof(pat), "%s/trace-*.fxt", dir) >= (int)sizeof(pat) ||
	    glob(pat, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		fprintf(stderr, ME ": a manager stopped during a trace left its archive in %s\n",
			g.gl_pathv[i]);
	globfree(&g);
}

int cmd_stop(int argc, char **argv)
{
	const char *out = NULL;
	int force = 0;
	int rc = fxt_ctl_parse_output(ME, usage, argc, argv, &out, &force);
	if (rc >= 0)
		return rc;
	int fd = fxt_ctl_connect(ME, 0);
	if (fd == -2)
		no_manager();
	if (fd < 0)
		return 1;
	struct fxt_ctl_file f = { .fd = -1 };
	if (out && fxt_ctl_file_open(ME, &f, out) < 0) {
		close(fd);
		return 1;
	}
	static uint64_t buf[FXT_MSG_MAX / 8];
	int ok = fxt_ctl_end(ME, fd, FXT_END_STOP, force ? FXT_END_FORCE : 0, f.fd, buf) == 1;
	const struct fxt_msg_reply *r = (const void *)buf;
	/* Ours is the archive only when the manager says so. */
	int ours = ok && (r->flags & FXT_REPLY_IN_FILE);
	if (fxt_ctl_file_close(ME, &f, ours) < 0 || !ok)
		return 1;
	if (out && !ours)
		fprintf(stderr, ME ": -o %s not used: the trace had its archive file from its start\n",
			out);
	if (ours)
		fxt_ctl_summary(ME, r, out);
	else if (r->archive[0])
		fxt_ctl_summary(ME, r, r->archive);
	else	/* an fxt record's, stopped by force: it renames its file */
		fxt_ctl_summary(ME, r, NULL);
	return 0;
}
