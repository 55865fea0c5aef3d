/* `fxt stop [-o FILE]`: stops the running trace of the manager service; the manager writes its
 * archive into the file fxt start was given, else into FILE (written as FILE.part, renamed when
 * complete), and the summary is printed. Exit 0; 1 when no trace runs or the archive could not
 * be written; 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/cmd.h"
#include "launcher/ctl.h"
#include "launcher/msg.h"

#define ME "fxt stop"

static const char usage[] = "usage: fxt stop [-o FILE]\n"
			    "Stops the running trace and writes its archive: to the file given to\n"
			    "fxt start -o, else to FILE (written as FILE.part until complete).\n";

int cmd_stop(int argc, char **argv)
{
	const char *out = NULL;
	int rc = fxt_ctl_parse_output(ME, usage, argc, argv, &out);
	if (rc >= 0)
		return rc;
	int fd = fxt_ctl_connect(ME, 0);
	if (fd == -2)
		fprintf(stderr, ME ": no trace running (no manager)\n");
	if (fd < 0)
		return 1;
	struct fxt_ctl_file f = { .fd = -1 }, started = { .fd = -1 };
	if (out && fxt_ctl_file_open(ME, &f, out) < 0) {
		close(fd);
		return 1;
	}
	static uint64_t buf[FXT_MSG_MAX / 8];
	int replied = fxt_ctl_end(ME, fd, FXT_END_STOP, f.fd, buf);
	const struct fxt_msg_reply *r = (const void *)buf;
	int ok = replied == 1;
	/* The archive is the start's file when it had one (the manager ignored ours). */
	char path[PATH_MAX];
	uint64_t noted = replied >= 0 && r->status != -ESRCH && r->status != -EINVAL
				 ? fxt_ctl_note_read(path, sizeof(path), 1)
				 : 0;
	if (noted && noted == r->session) {
		snprintf(started.path, sizeof(started.path), "%s", path);
		snprintf(started.part, sizeof(started.part), "%s.part", path);
		rc = fxt_ctl_file_close(ME, &started, ok);
		fxt_ctl_file_close(ME, &f, 0);
		out = started.path;
	} else {
		rc = fxt_ctl_file_close(ME, &f, ok && out);
	}
	if (!ok || rc < 0)
		return 1;
	if (!out) {
		fprintf(stderr, ME ": %s (its archive: the file given to fxt start)\n", r->message);
		return 0;
	}
	fxt_ctl_summary(ME, r, 0, out);
	return 0;
}
