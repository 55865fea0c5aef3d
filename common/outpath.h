/* User-named output paths (fxtrun -o, FXT_OUTPUT, fxt json -o, the service clients' -o): one
 * rule for every writer. A path may be written when it is absent or names a regular file (a
 * symbolic link there is replaced, never followed). Devices, FIFOs, sockets and directories are
 * refused before any work is done, and again right before the final rename: a rename replaces
 * whatever node has the name (`fxtrun -o /dev/null` as root used to leave a regular file where
 * the device was). Data goes to a fresh temporary beside the path, the one name of every
 * writer's temporary: "<path>.part" (what `fxt recover` takes), created with O_EXCL|O_NOFOLLOW
 * (a name someone planted is never opened), renamed over the path once complete. No
 * allocation; thread-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_OUTPATH_H
#define FXT_COMMON_OUTPATH_H

#include <stddef.h>

/* 0 when path may be written (absent or a regular file or a link: a missing directory is left
 * to the open to report); else -errno with *why set to a reason in a user's words ("is a
 * device", "is a directory", "is a FIFO", ...). Fails: as said. */
int fxt_outpath_check(const char *path, const char **why);

/* 0 when the descriptor fd, passed to be written as an archive from its start (a service
 * client's file), is an empty regular file open for writing without O_APPEND; else -errno with
 * *why set in a user's words ("is not empty", "is open for appending", ...). Fails: as said. */
int fxt_outfd_check(int fd, const char **why);

/* The temporary's name of path: "<path>.part" in part. Fails: -ENAMETOOLONG. */
int fxt_outpath_part(const char *path, char *part, size_t size);

/* Creates "<path>.part" (read-write, mode 0644 less the umask, close-on-exec), its name in
 * part: for a writer whose temporary is found by that name (the service renames the file of
 * `fxt start -o`). Returns the descriptor, or -errno (-EEXIST: that name is taken; nothing
 * created). */
int fxt_outpath_create_part(const char *path, char *part, size_t size);

/* Creates a temporary beside path: "<path>.part" as above, or "<path>.XXXXXX.part" (0600) when
 * that name is taken; its name in tmp. Returns the descriptor (close-on-exec), or -errno
 * (nothing created). */
int fxt_outpath_open(const char *path, char *tmp, size_t size);

/* As fxt_outpath_open(), telling each name before a file of that name is created: tell(tmp,
 * arg) (fxtrun notes it in its session, so that no kill at any instant leaves a temporary
 * nobody knows). A negative return of tell stops there, returned (nothing created). */
int fxt_outpath_open_told(const char *path, char *tmp, size_t size,
			  int (*tell)(const char *tmp, void *arg), void *arg);

/* Renames the complete temporary tmp to path after checking path once more. Returns 0, or
 * -errno with *why set (tmp is left for the caller to remove or name). */
int fxt_outpath_commit(const char *tmp, const char *path, const char **why);

#endif
