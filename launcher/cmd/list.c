/* `fxt list`: the providers registered with the manager service (started on demand): pid, name,
 * state (idle; starting: not recording yet; armed: waiting for its start@ trigger; recording;
 * stopping; fired: its stop@ trigger fired) and buffer use, and the running trace. Exit 0; 1 when the manager cannot be reached;
 * 2 for a usage error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"

#define ME "fxt list"

static const char usage[] = "usage: fxt list\n"
			    "Lists the programs registered with the trace manager (started with\n"
			    "FXT_REGISTER=1): pid, name, state, buffer use. Starts the manager\n"
			    "when it is not running.\n";

static const char *state_name(uint32_t s)
{
	static const char *const names[] = { "?",	 "idle",  "armed",   "recording",
					     "stopping", "fired", "starting" };
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int cmd_list(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, ME ": unexpected argument '%s'\nTry '" ME " --help'.\n", argv[1]);
		return 2;
	}
	int fd = fxt_ctl_connect(ME, 1);
	if (fd < 0)
		return 1;
	static uint64_t buf[FXT_MSG_MAX / 8];
	struct fxt_msg req = { .type = FXT_MSG_LIST, .version = FXT_REGISTRY_VERSION,
			       .size = sizeof(req) };
	int type = fxt_ctl_call(ME, fd, &req, sizeof(req), -1, buf);
	close(fd);
	if (type != FXT_MSG_LIST_REPLY) {
		if (type == FXT_MSG_REPLY)
			fprintf(stderr, ME ": %s\n", ((struct fxt_msg_reply *)buf)->message);
		return 1;
	}
	const struct fxt_msg_list *l = (const void *)buf;
	const struct fxt_list_entry *e = (const void *)(l + 1);
	if (l->session_state)
		printf("trace %llu running\n", (unsigned long long)l->session);
	if (!l->count) {
		printf("no providers\n");
		return 0;
	}
	printf("%-8s %-16s %-9s %s\n", "PID", "NAME", "STATE", "BUFFER");
	for (uint32_t i = 0; i < l->count; i++) {
		printf("%-8u %-16s %-9s", e[i].pid, e[i].name, state_name(e[i].state));
		if (e[i].buffer_size)
			printf(" %.1f of %.1f MB", (double)e[i].buffer_used / 1e6,
			       (double)e[i].buffer_size / 1e6);
		else
			printf(" -");
		putchar('\n');
	}
	return 0;
}
