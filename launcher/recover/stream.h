/* A killed trace manager's archive repaired (`fxt recover`, launcher/recover/stream.c), for
 * recover.c. Not thread-safe (stdout, stderr). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_RECOVER_STREAM_H
#define FXT_LAUNCHER_RECOVER_STREAM_H

/* Repairs the archive a killed trace manager left at path (open at fd, read-write): cut after
 * its last record that fxt check accepts, a drop report per provider appended (the manager was
 * killed), renamed to out (NULL: it keeps its name); launcher/recover/stream.c. Prints the
 * result line on stdout, or why not on stderr. Returns a CMD_EXIT_* status as
 * fxt_recover_file(). */
int fxt_recover_manager_file(const char *path, int fd, const char *out);

#endif
