/* Recovering what a killed standalone run left (`fxt recover`, launcher/cmd/recover.c): one
 * archive file repaired in place (recover.c, over verify.c; a killed trace manager's file:
 * stream.c), and the files of an FXT_OUTPUT tree whose root's placeholder is named (tree.c,
 * over recover.c). Each function that repairs prints one line per file it repairs, renames or
 * removes ("fxt recover: FILE: ...") and returns a CMD_EXIT_* status (launcher/cmd/cmd.h). Not
 * thread-safe (stdout, stderr). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_RECOVER_H
#define FXT_LAUNCHER_RECOVER_H

#include <stdint.h>
#include <sys/stat.h>

#include "writer/buffer.h"

/* Repairs the archive file at path in place (a killed run's: every committed record kept; a
 * finished one is left as it was) and renames it to out (NULL: it keeps its name). A file cut
 * short before its string area (a process killed at its start, or a wrapper that never took a
 * chunk) is first lengthened to it. Prints the result line on stdout, or why not on stderr.
 * Returns CMD_EXIT_OK; CMD_EXIT_INVALID not such a file; CMD_EXIT_ERROR it cannot be read or
 * written, or a live process still writes it. */
int fxt_recover_file(const char *path, const char *out);

/* The header of the standalone archive file at path, read into page (FXT_BUF_HDR_SIZE bytes,
 * 8-byte aligned), and the file's status into st. Fails: NULL (not a regular file, too short,
 * not such a file, unreadable); prints nothing. */
const struct fxt_buf_hdr *fxt_recover_header(const char *path, uint64_t *page, struct stat *st);

/* Whether the process that writes the file (header h, status st) is alive and maps it: a file
 * recovered while its writer goes on would be corrupted. Fails: 0 (cannot tell). */
int fxt_recover_still_written(const struct fxt_buf_hdr *h, const struct stat *st);

#endif
