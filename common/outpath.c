/* User-named output paths: the one check, temporary and rename of every writer (outpath.h). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/outpath.h"

/* Why a node of mode m cannot be written as an archive, or NULL when it can. */
static const char *refusal(mode_t m)
{
	if (S_ISREG(m) || S_ISLNK(m))
		return NULL;
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "is a device";
	if (S_ISFIFO(m))
		return "is a FIFO";
	if (S_ISSOCK(m))
		return "is a socket";
	return "is not a regular file";
}

int fxt_outpath_check(const char *path, const char **why)
{
	struct stat st;

	if (!*path) {
		*why = "is empty";
		return -EINVAL;
	}
	if (lstat(path, &st) < 0)
		return 0;	/* absent (a missing directory fails the open: said there) */
	*why = refusal(st.st_mode);
	return !*why ? 0 : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

int fxt_outfd_check(int fd, const char **why)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fstat(fd, &st) < 0) {
		*why = "cannot be examined";
		return -EBADF;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = S_ISFIFO(st.st_mode) ? "is a pipe or FIFO, not a regular file"
					   : "is not a regular file";
		return -EINVAL;
	}
	if ((flags & O_ACCMODE) == O_RDONLY) {
		*why = "is open for reading only";
		return -EBADF;
	}
	if (flags & O_APPEND) {
		*why = "is open for appending (the archive is written from its start)";
		return -EINVAL;
	}
	if (st.st_size) {
		*why = "is not empty (an archive is written into an empty file)";
		return -EEXIST;
	}
	return 0;
}

int fxt_outpath_part(const char *path, char *part, size_t size)
{
	return snprintf(part, size, "%s.part", path) < (int)size ? 0 : -ENAMETOOLONG;
}

int fxt_outpath_create_part(const char *path, char *part, size_t size)
{
	int rc = fxt_outpath_part(path, part, size);
	if (rc < 0)
		return rc;
	int fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

/* Writes "<path>.XXXXXX.part" to tmp, XXXXXX six random letters or digits. */
static int random_name(const char *path, char *tmp, size_t size, unsigned attempt)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;	/* no entropy yet (early boot): the clock, mixed */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned long long x = (unsigned long long)ts.tv_nsec ^ attempt ^
				       (unsigned long long)getpid() << 32;
		for (size_t i = 0; i < sizeof(r); i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			r[i] = (unsigned char)(x >> 56);
		}
	}
	char rand6[7];
	for (size_t i = 0; i < sizeof(r); i++)
		rand6[i] = set[r[i] % (sizeof(set) - 1)];
	rand6[6] = 0;
	return snprintf(tmp, size, "%s.%s.part", path, rand6) < (int)size ? 0 : -ENAMETOOLONG;
}

#define RANDOM_ATTEMPTS 100

int fxt_outpath_open_told(const char *path, char *tmp, size_t size,
			  int (*tell)(const char *tmp, void *arg), void *arg)
{
	int rc = fxt_outpath_part(path, tmp, size);
	for (unsigned attempt = 0; !rc && attempt <= RANDOM_ATTEMPTS; attempt++) {
		/* "<path>.part" first; left by an earlier run (or planted): a fresh name, never
		 * someone else's file */
		if (attempt && (rc = random_name(path, tmp, size, attempt)) < 0)
			break;
		if (tell && (rc = tell(tmp, arg)) < 0)
			break;
		int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      attempt ? 0600 : 0644);
		if (fd >= 0)
			return fd;
		rc = errno == EEXIST ? 0 : -errno;
	}
	return rc ? rc : -EEXIST;
}

int fxt_outpath_open(const char *path, char *tmp, size_t size)
{
	return fxt_outpath_open_told(path, tmp, size, NULL, NULL);
}

int fxt_outpath_commit(const char *tmp, const char *path, const char **why)
{
	int rc = fxt_outpath_check(path, why);

	if (rc < 0)
		return rc;
	if (rename(tmp, path) < 0) {
		*why = strerror(errno);
		return -errno;
	}
	return 0;
}
