/* The files of an FXT_OUTPUT tree finished (`fxt recover` on a placeholder,
 * launcher/recover/tree.c, after preload/transport/outname.c), over recover.c. Not thread-safe (stdout,
 * stderr). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_RECOVER_TREE_H
#define FXT_LAUNCHER_RECOVER_TREE_H

/* When path is the placeholder of an FXT_OUTPUT tree (<FXT_OUTPUT>.part of a root that
 * recorded nothing, or was killed before recording, with processes started under it):
 * finishes the tree as its last process would have (preload/transport/outname.c) with the files its
 * members left beside it, killed or not: the one program that recorded gets out (default
 * FXT_OUTPUT), recovered first if it was killed; with several, each keeps its own name;
 * killed wrappers' empty files and the placeholder go; with none, the placeholder itself is
 * recovered to out. Returns -1 when path is no such placeholder (nothing done, nothing
 * printed), else a CMD_EXIT_* status (CMD_EXIT_ERROR, nothing done: a member still runs). */
int fxt_recover_tree(const char *path, const char *out);

#endif
