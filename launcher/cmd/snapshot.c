/* `fxt snapshot -o FILE`: what the running trace's buffers hold now, written to FILE by the
 * manager service (the flight recorder of a circular trace); the trace goes on. Exit 0; 1 when
 * no trace runs or the snapshot failed (FILE is then not left behind); 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"
#include "launcher/manager/msg.h"

#define ME "fxt snapshot"

static const char usage[] = "usage: fxt snapshot -o FILE\n"
			    "Writes what the running trace's buffers hold now to FILE (written as\n"
			    "FILE.part, renamed when complete); the trace goes on.\n";

int cmd_snapshot(int argc, char **argv)
{
	const char *out = NULL;
	int rc = fxt_ctl_parse_output(ME, usage, argc, argv, &out, NULL);
	if (rc >= 0)
		return rc;
	if (!out) {
		fprintf(stderr, ME ": -o FILE is required\nTry '" ME " --help'.\n");
		return 2;
	}
	int fd = fxt_ctl_connect(ME, 0);
	if (fd == -2)
		fprintf(stderr, ME ": no trace running (no manager)\n");
	if (fd < 0)
		return 1;
	struct fxt_ctl_file f;
	if (fxt_ctl_file_open(ME, &f, out) < 0) {
		close(fd);
		return 1;
	}
	static uint64_t buf[FXT_MSG_MAX / 8];
	int ok = fxt_ctl_end(ME, fd, FXT_END_SNAPSHOT, 0, f.fd, buf) == 1;
	const struct fxt_msg_reply *r = (const void *)buf;
	if (fxt_ctl_file_close(ME, &f, ok) < 0 || !ok)
		return 1;
	fprintf(stderr, ME ": %llu events of %llu process%s written to %s\n",
		(unsigned long long)r->events, (unsigned long long)r->processes,
		r->processes == 1 ? "" : "es", out);
	return 0;
}
