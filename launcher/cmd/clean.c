/* `fxt clean`: removes the session directories (buffers, socket) that a killed fxtrun left in
 * /dev/shm or $TMPDIR, and the temporary archive (FILE.part) each names: those of this user
 * whose manager process is gone (pid dead, or reused: its start time differs). Live sessions
 * are never touched. fxtrun does the same, silently, each time it starts. Exit 0 (also when
 * there was nothing to remove), 2 usage error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "launcher/cmd/cmd.h"
#include "launcher/manager/session.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: fxt clean\n"
		   "Removes the session directories (/dev/shm/fxtrun.*, $TMPDIR/fxtrun.*) left by a\n"
		   "killed fxtrun, those whose manager process is gone, and the temporary archive\n"
		   "(FILE.part) each names. Live sessions are kept.\n"
		   "Exit 0 done, 2 usage error.\n");
}

static void removed(const char *dir)
{
	printf("removed %s\n", dir);
}

int cmd_clean(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "fxt clean: unexpected argument '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	int n = fxt_session_clean(removed);
	printf("%d stale session%s removed\n", n, n == 1 ? "" : "s");
	return 0;
}
