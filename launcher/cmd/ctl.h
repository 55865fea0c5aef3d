/* What the manager service's clients (`fxt list|record|start|stop|snapshot`) share: the control
 * connection (the manager started on demand), one request and its reply, the archive file a
 * client creates as FILE.part and passes to the manager (renamed once complete, removed
 * otherwise; fxt start's is renamed by the manager, which is told its path), the trace options of record and start, and the summary of a REPLY. Errors are
 * printed here as one line prefixed by the command's name. Single-threaded. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_CTL_H
#define FXT_LAUNCHER_CTL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/registry.h"

/* Connects to the manager's control socket (checking the runtime directory and that the
 * manager runs as our user). When none answers: with start, starts `fxt manager` and connects
 * again; without, returns -2 having printed nothing. Returns the connection (cloexec), -1 after
 * printing why, or -2. Not thread-safe. */
int fxt_ctl_connect(const char *me, int start);

/* Sends req (len bytes, with file unless -1) and waits for the reply into buf (FXT_MSG_MAX
 * bytes, 8-aligned), vetted. Returns its type; -1 after printing why (the manager closed the
 * connection: it died; or it is stopped or dead after a slice of no answer). Not thread-safe. */
int fxt_ctl_call(const char *me, int fd, const void *req, size_t len, int file, void *buf);

/* Reads one reply that arrived on fd (poll said readable) into buf, vetted: its type, or -1
 * after printing why. */
int fxt_ctl_read(const char *me, int fd, void *buf);

/* Parses the arguments of `fxt stop` and `fxt snapshot`: -o/--output FILE into *out (left as
 * it is when absent), --force into *force (force NULL: refused), --help (prints usage). Returns -1 to go on, else the exit status (0 after
 * the help, 2 after a one-line error). Fails: see above. */
int fxt_ctl_parse_output(const char *me, const char *usage, int argc, char **argv,
			 const char **out, int *force);

/* Sends END (what: FXT_END_STOP or FXT_END_SNAPSHOT; flags: FXT_END_*; with file unless -1) on
 * fd, closes fd and
 * reads the reply into buf (FXT_MSG_MAX bytes, 8-aligned), printing the manager's message when
 * it refused. Returns 1 when the manager says done, 0 when it refused, -1 when no reply came
 * (printed). Not thread-safe. */
int fxt_ctl_end(const char *me, int fd, uint32_t what, uint32_t flags, int file, void *buf);

/* The archive a client passes to the manager: created as path.part (O_EXCL, never following a
 * link), renamed to path when the manager says it is complete. */
struct fxt_ctl_file {
	char path[PATH_MAX];
	char part[PATH_MAX + 8];	/* "": none of ours */
	int fd;			/* -1: none open here */
};

/* Creates f->part for path. Fails: -1 after printing why. */
int fxt_ctl_file_open(const char *me, struct fxt_ctl_file *f, const char *path);

/* Closes the file (if open here) and renames f->part to its path (ok), or removes it (not ok)
 * unless the manager saved records into it (streaming): then it stays for fxt recover, said
 * in one line. Fails: -1 after printing why (the rename failed). */
int fxt_ctl_file_close(const char *me, struct fxt_ctl_file *f, int ok);

/* Prints what a REPLY says the archive at out holds (launcher/manager/summary.c; out NULL: a file the
 * client cannot name), and for how long it recorded. Fails: never. */
void fxt_ctl_summary(const char *me, const struct fxt_msg_reply *r, const char *out);

/* The trace options of `fxt record` (service client) and `fxt start`. */
struct fxt_ctl_trace {
	struct fxt_msg_trace *msg;	/* TRACE, triggers after it (malloc'd, FXT_MSG_MAX) */
	size_t len;
	const char *output;		/* -o, or NULL */
	uint64_t duration_ns;		/* --duration (record), 0: until Ctrl-C */
};

/* Parses argv (options only, no operands) into t, its TRACE allocated (help: the --help text);
 * with_duration: --duration is allowed. Returns 0 to go on (the caller frees t->msg), or 1 to
 * exit with *exit_status (2 after a one-line error, 1 out of memory, 0 after the help; nothing
 * left to free). Not thread-safe (getopt). */
int fxt_ctl_parse_trace(const char *me, int argc, char **argv, int with_duration,
			const char *help, struct fxt_ctl_trace *t, int *exit_status);

/* path made absolute (the current directory's) into out (size bytes). Fails: -1 (too long, or
 * no current directory). */
int fxt_ctl_abspath(const char *path, char *out, size_t size);

#endif
