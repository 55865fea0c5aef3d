/* The fxt subcommands: each lives in launcher/cmd/<name>.c, exports one
 * int cmd_<name>(int argc, char **argv) returning the process exit status, and has one line
 * in the table of launcher/cmd/main.c (with what several commands share). argv[0] is the
 * command's name. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_CMD_H
#define FXT_LAUNCHER_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_manager(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
/* `fxt record` without a program (record-service.c): a client of the manager service. */
int cmd_record_service(int argc, char **argv);
/* Whether argv asks `fxt record` for the service client: no PROGRAM before any of --duration,
 * --pid, --name, --trigger (record-service.c). Fails: never. */
int cmd_record_is_service(int argc, char **argv);
/* Its usage text, also printed by `fxt record --help` after fxtrun's (record.c). */
extern const char cmd_record_service_usage[];

/* The exit status of every command that reads an archive (check, dump, report, replay, json,
 * stats, recover), decided here and nowhere else:
 *   0  the archive was read whole and is valid (fxt check: warnings allowed);
 *   1  the archive is not valid: empty, not FXT (no magic number record first), truncated,
 *      corrupt, breaks a rule of the format; or a filter matched nothing. What could be read
 *      before the problem is still printed.
 *   2  usage error, or the input cannot be read (missing, a directory, no permission, a pipe
 *      larger than the memory available) or the output cannot be written, out of memory. */
enum cmd_exit {
	CMD_EXIT_OK = 0,
	CMD_EXIT_INVALID = 1,
	CMD_EXIT_ERROR = 2,
};

/* The rule as the last lines of each reading command's usage text. */
#define CMD_EXIT_USAGE                                                                             \
	"FILE may be - (standard input) or a pipe: it is read into memory.\n"                        \
	"Exit 0 ok; 1 the archive is invalid (empty, not FXT, truncated, corrupt)\n"                 \
	"or nothing matched; 2 usage error, or the file cannot be read.\n"

/* The path to open for the FILE argument: "-" is standard input. Fails: never. */
const char *cmd_input(const char *arg);

/* The exit status for an enum fxt_read_result that ended a read (END: 0). Fails: never. */
int cmd_exit_read(int res);

/* The exit status for how a client read ended (client/client.h). Fails: never. */
struct fxt_client_result;
int cmd_exit_client(const struct fxt_client_result *res);

/* Opens FILE (cmd_input() applied) for a reading command; on failure prints
 * "fxt CMD: FILE: reason" and returns NULL (callers exit CMD_EXIT_ERROR). */
struct fxt_reader;
struct fxt_reader *cmd_open_archive(const char *cmd, const char *path, unsigned flags);

/* The end of a reading command's option switch, c being 'h' or an option it does not know:
 * its usage text (whose %s is the selection options', client/client.h) on stdout for 'h', else
 * on stderr. Returns the exit status: 0, or CMD_EXIT_ERROR. */
int cmd_sel_usage(int c, const char *usage);

/* Reads archive path (cmd_input() applied) for a command with a selection, calling fn(ctx)
 * on every record and noting the trace start (the earliest event's time) in *start (UINT64_MAX
 * before): when a bound counts from it, a first read finds it and the records are read again
 * from the same bytes. res as the read leaves it (a first read that could not open the archive
 * or whose callback failed: fn is never called). Returns 0, or -1 after printing "fxt CMD: why"
 * (a window that cannot be). */
struct fxt_sel;
struct fxt_record;
int cmd_sel_read(const char *cmd, struct fxt_sel *sel, const char *path,
		 int (*fn)(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec),
		 void *ctx, uint64_t *start, struct fxt_client_result *res);

/* Opens the temporary that becomes the output file out once complete (common/outpath.h: a
 * device, FIFO or directory is never written over, a name someone planted never opened); its
 * name in tmp, for fxt_outpath_commit() or unlink(). NULL after printing "fxt CMD: -o OUT:
 * reason". */
FILE *cmd_open_out(const char *cmd, const char *out, char *tmp, size_t size);

#endif
