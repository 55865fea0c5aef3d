/* Session directories of fxtrun (mkdtemp: 0700; providers create their files 0600), the
 * manager's listening socket, cleanup, and where the preload library lives relative to
 * /proc/self/exe. Nothing here prints: callers report the -errno results. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/session.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/protocol.h"

static int make_dir(char *out, const char *parent)
{
	if (snprintf(out, PATH_MAX, "%s/fxtrun.XXXXXX", parent) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!mkdtemp(out)) {
		out[0] = 0;
		return -errno;
	}
	return 0;
}

static const char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

int fxt_session_create(struct fxt_session *s)
{
	s->dir[0] = 0;
	s->listen_fd = -1;
	/* Buffers on tmpfs when we may: shared file pages there are never written back. */
	int rc = access("/dev/shm", W_OK) == 0 ? make_dir(s->dir, "/dev/shm") : -EACCES;
	if (rc < 0 && (rc = make_dir(s->dir, tmpdir())) < 0)
		return rc;

	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", s->dir, FXT_SESSION_SOCKET) >=
	    (int)sizeof(a.sun_path)) {
		rc = -ENAMETOOLONG;
		goto fail;
	}
	s->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s->listen_fd, 128) < 0) {
		rc = -errno;
		goto fail;
	}
	return 0;
fail:
	fxt_session_remove(s);
	return rc;
}

static void remove_dir(char *dir)
{
	if (!dir[0])
		return;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
	dir[0] = 0;
}

void fxt_session_remove(struct fxt_session *s)
{
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	remove_dir(s->dir);
}

int fxt_session_find_preload(char *out, size_t size)
{
	static const char *const rel[] = {
		"../preload/libfxtauto.so",		/* build tree: build/launcher/fxt */
		"../lib/libfxtauto.so",			/* install: bin/ + lib/ */
		"../lib64/libfxtauto.so",
		"../lib/x86_64-linux-gnu/libfxtauto.so",
		"libfxtauto.so",
	};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	slash[1] = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s%s", exe, rel[i]);
		char real[PATH_MAX];
		if (access(path, R_OK) == 0 && realpath(path, real)) {
			if (strlen(real) >= size)
				return -ENAMETOOLONG;
			strcpy(out, real);
			return 0;
		}
	}
	return -ENOENT;
}
