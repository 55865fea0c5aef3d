/* The manager service's runtime directory (common/registry.h): found and made safe the same way
 * by the manager, its clients and the providers. No global state; no allocation. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_RUNTIME_H
#define FXT_COMMON_RUNTIME_H

#include <stddef.h>

/* Writes the runtime directory's path into out: $FXT_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/fxtauto, else /tmp/fxtauto-<uid>. With create, makes it (mode 0700) when
 * missing. Then checks it is a directory (not a symlink) owned by this user with no access for
 * group or others, and says in *why (may be NULL) what is wrong when it is not.
 * Fails: -ENOENT (missing, !create), -ENAMETOOLONG, -EPERM (foreign owner, a symlink, not a
 * directory, or open to others), or -errno of mkdir. Thread-safe (getenv aside). */
int fxt_runtime_dir(char *out, size_t size, int create, const char **why);

#endif
