/* The manager service's runtime directory: where it is, made 0700 when missing, refused when
 * another user could have planted it or could reach into it. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "common/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/registry.h"

int fxt_runtime_dir(char *out, size_t size, int create, const char **why)
{
	const char *own = getenv(FXT_ENV_RUNTIME), *xdg = getenv("XDG_RUNTIME_DIR");
	const char *dummy;
	int n;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (own && *own)
		n = snprintf(out, size, "%s", own);
	else if (xdg && *xdg == '/')
		n = snprintf(out, size, "%s/fxtauto", xdg);
	else
		n = snprintf(out, size, "/tmp/fxtauto-%u", (unsigned)getuid());
	if (n < 0 || (size_t)n >= size - 64) {	/* room for "/session.N/..." below it */
		*why = "path too long";
		return -ENAMETOOLONG;
	}
	if (create && mkdir(out, 0700) < 0 && errno != EEXIST) {
		*why = "cannot create it";
		return -errno;
	}
	struct stat st;
	if (lstat(out, &st) < 0) {
		*why = "missing";
		return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		*why = S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory";
	else if (st.st_uid != getuid())
		*why = "owned by another user";
	else if (st.st_mode & 077)
		*why = "open to other users (mode must be 0700)";
	return *why ? -EPERM : 0;
}
