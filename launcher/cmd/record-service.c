/* `fxt record` without a program: a client of the manager service (started on demand). Starts
 * an attached trace of the chosen registered providers with the archive file FILE.part passed
 * to the manager, waits for the duration, Ctrl-C, or the trace's end by a snapshot trigger,
 * stops it, and renames FILE.part to FILE once the manager says it is complete; prints the
 * summary fxtrun prints. The manager dying meanwhile: one line, exit 1, FILE.part removed
 * unless the manager saved records into it (streaming: kept for fxt recover, said so).
 * Exit 0; 1 when the trace could not be made; 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/options.h"
#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"
#include "launcher/manager/msg.h"

#define ME "fxt record"

const char cmd_record_service_usage[] =
	"usage: fxt record [--duration TIME] [options] -o FILE   (no PROGRAM)\n"
	"Traces programs registered with the trace manager (FXT_REGISTER=1; fxt list)\n"
	"for TIME (ns, us, ms, s) or until Ctrl-C, and writes one archive.\n"
	"  --duration TIME       how long (default: until Ctrl-C)\n"
	"  --pid PID             trace only this process\n"
	"  --name NAME           trace only processes of this name\n"
	"  --categories LIST     categories of <fxt/trace.h> events (default all)\n"
	"  --mode MODE           circular (default), oneshot, streaming\n"
	"  --buffer-size SIZE    per process (default 64M)\n"
	"  --trigger KIND@FUNC   start@, stop@ or snapshot@ a function (repeatable;\n"
	"                        snapshot@ ends the trace with what was recorded before)\n"
	"  -o, --output FILE     the archive (default trace.fxt; FILE.part until complete)\n"
	"With a PROGRAM, fxt record runs it traced (as fxtrun).\n";

int cmd_record_is_service(int argc, char **argv)
{
	static const char *const client[] = { "--duration", "--pid", "--name", "--trigger" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !strcmp(a, "--"))
			return 0;	/* PROGRAM (or what follows --) */
		for (size_t k = 0; k < sizeof(client) / sizeof(client[0]); k++) {
			size_t n = strlen(client[k]);
			if (!strncmp(a, client[k], n) && (!a[n] || a[n] == '='))
				return 1;
		}
		/* an option whose value is the next argument */
		int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--mode") ||
			    !strcmp(a, "--trigger");
		for (size_t k = 0; k < fxt_options_count && !takes; k++)
			takes = fxt_options[k].flag && fxt_options[k].arg == FXT_OPT_REQUIRED &&
				a[0] == '-' && a[1] == '-' && !strcmp(a + 2, fxt_options[k].flag);
		i += takes;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for the duration, a signal, or a message from the manager. Returns 1 when the manager
 * spoke first (REPLY in buf: the trace ended) , 0 when it is time to stop, -1 on error. */
static int wait_end(int fd, int sfd, uint64_t duration_ns, void *buf)
{
	double end = duration_ns ? now_s() + (double)duration_ns / 1e9 : 0;
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		double left = end ? end - now_s() : -1;
		if (end && left <= 0)
			return 0;
		int rc = poll(p, 2, end ? (int)(left * 1000) + 1 : -1);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (p[1].revents)
			return 0;
		if (p[0].revents) {
			int type = fxt_ctl_read(ME, fd, buf);
			if (type < 0)
				return -1;
			if (type == FXT_MSG_REPLY)
				return 1;
		}
	}
}

int cmd_record_service(int argc, char **argv)
{
	struct fxt_ctl_trace t;
	int status;
	if (fxt_ctl_parse_trace(ME, argc, argv, 1, cmd_record_service_usage, &t, &status))
		return status;
	t.msg->flags = FXT_TRACE_ATTACHED;
	static uint64_t buf[FXT_MSG_MAX / 8];
	const struct fxt_msg_reply *r = (const void *)buf;
	const char *out = t.output ? t.output : "trace.fxt";
	struct fxt_ctl_file f = { .fd = -1 };
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK), fd = -1, type = -1, ok = 0;
	if (sfd >= 0 && fxt_ctl_file_open(ME, &f, out) == 0 && (fd = fxt_ctl_connect(ME, 1)) >= 0)
		type = fxt_ctl_call(ME, fd, t.msg, t.len, f.fd, buf);
	if (type == FXT_MSG_REPLY && r->status) {
		fprintf(stderr, ME ": %s\n", r->message);
	} else if (type == FXT_MSG_REPLY) {
		fprintf(stderr, ME ": %s\n", r->message);
		int end = wait_end(fd, sfd, t.duration_ns, buf);
		struct fxt_msg_end req = { .h = fxt_msg_hdr(FXT_MSG_END, sizeof(req)),
					   .what = FXT_END_STOP };
		if (end == 0)
			type = fxt_ctl_call(ME, fd, &req, sizeof(req), -1, buf);
		else
			type = end > 0 ? FXT_MSG_REPLY : -1;
		ok = type == FXT_MSG_REPLY && r->status == 0;
		if (type == FXT_MSG_REPLY && !ok)
			fprintf(stderr, ME ": %s\n", r->message);
		if (type < 0)
			fprintf(stderr, ME ": no archive: the manager ended before writing it\n");
	}
	if (fxt_ctl_file_close(ME, &f, ok) < 0)
		ok = 0;
	if (ok)
		fxt_ctl_summary(ME, r, out);
	if (fd >= 0)
		close(fd);
	if (sfd >= 0)
		close(sfd);
	free(t.msg);
	return ok ? 0 : 1;
}
