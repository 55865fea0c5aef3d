/* `fxt start [options]`: starts a trace of registered providers in the manager service (started
 * on demand) and returns once every chosen provider records (the manager's barrier: the time it
 * took is printed, and who was not recording in time); `fxt stop` ends it, `fxt snapshot` saves
 * what it holds meanwhile. Default mode circular (the flight recorder). With -o FILE the
 * archive is FILE (written as FILE.part; the manager renames it when the trace ends, however it
 * ends); streaming and snapshot triggers need it. Exit 0; 1 when the trace cannot start (one
 * running already, or no registered program matches); 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"

#define ME "fxt start"

static const char usage[] =
	"usage: fxt start [options] [-o FILE]\n"
	"Starts a trace of the registered programs (fxt list) and returns.\n"
	"  --mode MODE           circular (default: keeps the latest records), oneshot,\n"
	"                        streaming (needs -o)\n"
	"  --categories LIST     categories of <fxt/trace.h> events (default all)\n"
	"  --pid PID             trace only this process\n"
	"  --name NAME           trace only processes of this name\n"
	"  --buffer-size SIZE    per process (default 64M)\n"
	"  --trigger KIND@FUNC   start@, stop@ or snapshot@ a function (repeatable;\n"
	"                        snapshot@ needs -o and ends the trace)\n"
	"  -o, --output FILE     the archive (written as FILE.part until complete)\n"
	"Then: fxt snapshot -o FILE (the trace goes on), fxt stop [-o FILE].\n";

int cmd_start(int argc, char **argv)
{
	struct fxt_ctl_trace t;
	int status;
	if (fxt_ctl_parse_trace(ME, argc, argv, 0, usage, &t, &status))
		return status;
	struct fxt_ctl_file f = { .fd = -1 };
	int fd = -1, type = -1;
	static uint64_t buf[FXT_MSG_MAX / 8];
	const struct fxt_msg_reply *r = (const void *)buf;
	if (t.output && fxt_ctl_abspath(t.output, t.msg->output, sizeof(t.msg->output)) < 0) {
		fprintf(stderr, ME ": -o %s: cannot make it an absolute path\n", t.output);
		free(t.msg);
		return 1;
	}
	if ((!t.output || fxt_ctl_file_open(ME, &f, t.msg->output) == 0) &&
	    (fd = fxt_ctl_connect(ME, 1)) >= 0)
		type = fxt_ctl_call(ME, fd, t.msg, t.len, f.fd, buf);
	int ok = type == FXT_MSG_REPLY && r->status == 0;
	if (type == FXT_MSG_REPLY && !ok)
		fprintf(stderr, ME ": %s\n", r->message);
	if (ok && t.output)
		fprintf(stderr, ME ": %s; the archive: %s once the trace ends (%s.part meanwhile)\n",
			r->message, t.output, t.output);
	else if (ok)
		fprintf(stderr, ME ": %s\n", r->message);
	/* The manager holds the file now and renames it when the trace ends. */
	if (f.fd >= 0 && ok)
		close(f.fd);
	else
		fxt_ctl_file_close(ME, &f, 0);
	if (fd >= 0)
		close(fd);
	free(t.msg);
	return ok ? 0 : 1;
}
