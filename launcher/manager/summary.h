/* The summary a recording prints on stderr once its archive is written (fxtrun, and the
 * service's clients `fxt record` and `fxt stop`): what the archive holds, what was dropped or
 * refused and why, where it is. One implementation for every recording command. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_SUMMARY_H
#define FXT_LAUNCHER_SUMMARY_H

#include "launcher/manager/stats.h"

/* Prints the summary of st (an archive written to out, or NULL: the file given at the start,
 * after secs seconds of recording), each
 * line prefixed with "me: "; nothing: the reason printed when no process was traced.
 * Fails: never. Not thread-safe (stderr). */
void fxt_summary_print(const char *me, const struct fxt_manager_stats *st, double secs,
		       const char *out, const char *nothing);

#endif
