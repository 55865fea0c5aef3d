/* The fxt subcommands: each lives in launcher/cmd-<name>.c, exports one
 * int cmd_<name>(int argc, char **argv) returning the process exit status, and has one line
 * in the table of launcher/main.c. argv[0] is the command's name. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_CMD_H
#define FXT_LAUNCHER_CMD_H

int cmd_dump(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_clean(int argc, char **argv);

/* Opens FILE for a reading command; on failure prints "fxt CMD: FILE: reason" and returns
 * NULL (callers exit 2). */
struct fxt_reader;
struct fxt_reader *cmd_open_archive(const char *cmd, const char *path, unsigned flags);

#endif
