/* Lines written to stderr by glibc's own writers, which go through libc's internal stdio (no
 * write, fprintf or fputs call a wrapper could see): perror, error, error_at_line (also with
 * error_one_per_line), warn, warnx, dprintf, vdprintf on fd 2, and fputs_unlocked; one line
 * starts with a fprintf and ends with perror. Exits through error(3, ...) with status 3.
 * For tests/locks (check.py lines). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static void vd(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdprintf(2, fmt, ap);
	va_end(ap);
}

int main(void)
{
	errno = ENOENT;
	perror("k-stderr perror");
	errno = EACCES;
	perror(NULL);
	error(0, EINVAL, "k-stderr error %d", 1);
	error(0, 0, "k-stderr error without errno");
	error_at_line(0, ERANGE, "file.c", 12, "k-stderr error_at_line %s", "x");
	error_at_line(0, 0, NULL, 0, "k-stderr error_at_line without file");
	error_one_per_line = 1;
	for (int i = 0; i < 3; i++)	/* printed once */
		error_at_line(0, 0, "same.c", 7, "k-stderr once %d", i);
	error_one_per_line = 0;
	errno = EPERM;
	warn("k-stderr warn %d", 2);
	warnx("k-stderr warnx %d", 3);
	dprintf(2, "k-stderr dprintf %d\n", 4);
	vd("k-stderr vdprintf %s\n", "five");
	dprintf(2, "k-stderr dprintf in ");	/* one line over two calls */
	dprintf(2, "two calls\n");
	fputs_unlocked("k-stderr fputs_unlocked\n", stderr);
	fprintf(stderr, "k-stderr mixed: ");
	errno = EBADF;
	perror("then perror");
	dprintf(1, "k-stderr stdout (not captured by default)\n");
	error(3, ENOSPC, "k-stderr fatal");
	return 0;
}
