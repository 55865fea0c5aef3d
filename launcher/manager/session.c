/* Session directories of fxtrun (mkdtemp: 0700; providers create their files 0600), the
 * manager's listening socket and its identity file, cleanup (its own, and stale sessions of
 * managers that died), and where the preload library lives relative to /proc/self/exe.
 * Nothing here prints: callers report the -errno results. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "common/proc.h"
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

/* FXT_SESSION_MANAGER in dir: "<pid> <start time>" of this process, created exclusively. */
static int write_manager(const char *dir)
{
	char path[PATH_MAX + 32], line[64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_MANAGER, dir);
	int n = snprintf(line, sizeof(line), "%d %llu\n", (int)getpid(),
			 fxt_proc_start_time(getpid()));
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = fxt_write_all(fd, line, (size_t)n) < 0 ? -EIO : 0;
	close(fd);
	return rc;
}

#define STALE_EMPTY_SECONDS 60 /* an identity file still empty after this: its writer died */

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
	if ((rc = write_manager(s->dir)) < 0)
		goto fail;

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
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
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

/* The absolute form of path in abs (PATH_MAX bytes). Fails: -ENAMETOOLONG. */
static int absolute(const char *path, char *abs)
{
	if (path[0] == '/')
		return snprintf(abs, PATH_MAX, "%s", path) < PATH_MAX ? 0 : -ENAMETOOLONG;
	if (!getcwd(abs, PATH_MAX) || strlen(abs) + 1 + strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcat(strcat(abs, "/"), path);
	return 0;
}

/* Makes line (n bytes) the session's archive note, the one before replaced in one rename: a
 * kill at any instant leaves one whole note or the one before. */
static int write_note(const struct fxt_session *s, const char *line, int n)
{
	char file[PATH_MAX + 32], next[PATH_MAX + 32];
	snprintf(file, sizeof(file), "%s/" FXT_SESSION_ARCHIVE, s->dir);
	snprintf(next, sizeof(next), "%s/" FXT_SESSION_ARCHIVE ".next", s->dir);
	unlink(next);	/* a note that was not finished */
	int out = open(next, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return -errno;
	int rc = write(out, line, (size_t)n) == n ? 0 : -EIO;
	close(out);
	if (!rc && rename(next, file) < 0)
		rc = -errno;
	if (rc)
		unlink(next);
	return rc;
}

int fxt_session_note_pending(const struct fxt_session *s, const char *path)
{
	char abs[PATH_MAX], line[PATH_MAX + 16];
	int rc = absolute(path, abs);
	if (rc < 0)
		return rc;
	return write_note(s, line, snprintf(line, sizeof(line), "pending %s\n", abs));
}

int fxt_session_note_archive(const struct fxt_session *s, const char *path, int fd)
{
	struct stat st;
	char abs[PATH_MAX], line[PATH_MAX + 64];
	if (fstat(fd, &st) < 0)
		return -errno;
	int rc = absolute(path, abs);
	if (rc < 0)
		return rc;
	return write_note(s, line, snprintf(line, sizeof(line), "%llu %llu %s\n",
					    (unsigned long long)st.st_dev,
					    (unsigned long long)st.st_ino, abs));
}

static int earlier(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* A killed fxtrun's temporary archive, as noted in session directory name: removed if the file
 * at that path is still the same one (device, inode) and ours. A pending note (fxtrun was
 * killed between noting the name and noting the file made under it) names no file yet: the
 * file at that path is removed only if it can be the one fxtrun made, never one someone
 * planted there: a regular file (not a link) of ours, with no other name, whose inode changed
 * no earlier than the note was written (it was created after). */
static void remove_archive(int parent, const char *name)
{
	char path[NAME_MAX + 32], line[PATH_MAX * 2 + 64] = "", file[PATH_MAX];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_ARCHIVE, name);
	int fd = openat(parent, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat note, st;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	int noted = fstat(fd, &note) == 0;
	close(fd);
	unsigned long long dev, ino;
	if (n <= 0 || !noted)
		return;
	if (sscanf(line, "pending %4095[^\n]", file) == 1) {
		if (lstat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
		    st.st_nlink == 1 && !earlier(st.st_ctim, note.st_mtim))
			unlink(file);
		return;
	}
	if (sscanf(line, "%llu %llu %4095[^\n]", &dev, &ino, file) != 3)
		return;
	if (lstat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
	    (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
		unlink(file);
}

/* Whether session directory name in parent (a directory of ours) belongs to a manager that is
 * gone: its identity file names a pid that is dead or was reused (another start time), or is
 * still empty a minute after it was made (its manager was killed between creating and writing
 * it). A directory without the file is left alone (being created, or not fxtrun's). */
static int stale(int parent, const char *name)
{
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid())
		return 0;
	char path[NAME_MAX + 32], line[64] = "";
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_MANAGER, name);
	int fd = openat(parent, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	struct stat id;
	int old = fstat(fd, &id) == 0 && time(NULL) - id.st_mtime > STALE_EMPTY_SECONDS;
	close(fd);
	int pid;
	unsigned long long t;
	if (n == 0)
		return old;
	if (n < 0 || sscanf(line, "%d %llu", &pid, &t) != 2 || pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	unsigned long long now = fxt_proc_start_time(pid);
	return now && now != t;	/* the pid was reused by another process */
}

int fxt_session_clean(void (*removed)(const char *dir))
{
	const char *parents[] = { "/dev/shm", tmpdir() };
	int count = 0;
	for (size_t i = 0; i < 2; i++) {
		if (i && !strcmp(parents[1], parents[0]))
			break;
		DIR *d = opendir(parents[i]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "fxtrun.", 7) || !stale(dirfd(d), e->d_name))
				continue;
			char dir[PATH_MAX];
			if (snprintf(dir, sizeof(dir), "%s/%s", parents[i], e->d_name) >= PATH_MAX)
				continue;
			if (removed)
				removed(dir);
			remove_archive(dirfd(d), e->d_name);
			remove_dir(dir);
			count++;
		}
		closedir(d);
	}
	return count;
}
