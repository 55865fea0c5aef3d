/* A recording session of fxtrun: a private directory (0700) holding the manager's socket and
 * one shared buffer file per traced process, placed on tmpfs (/dev/shm) when possible so the
 * buffers cost no disk writeback (else $TMPDIR); and the path of the preload library to inject.
 * Everything is removed by fxt_session_remove(). Used by cmd/record.c and the service's trace
 * (service/trace.c); not thread-safe. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_SESSION_H
#define FXT_LAUNCHER_SESSION_H

#include <limits.h>
#include <stddef.h>

struct fxt_session {
	char dir[PATH_MAX];	/* buffers and socket; "" until created */
	int listen_fd;		/* manager socket (SOCK_SEQPACKET, cloexec), -1 if none */
};

/* Creates the directory and the listening socket.
 * Fails: -errno (nothing left behind). Not thread-safe. */
int fxt_session_create(struct fxt_session *s);

/* Closes the socket, deletes every file of the directory and the directory.
 * Fails: never (best effort). Not thread-safe. */
void fxt_session_remove(struct fxt_session *s);

/* Removes the session directories (fxtrun.*, in /dev/shm and $TMPDIR) of this user whose
 * manager is dead: the pid in their FXT_SESSION_MANAGER file is gone, or is another process
 * now (its start time differs). A live session is never removed. removed (may be NULL) is
 * told each directory before it goes. Returns how many were removed.
 * Fails: never (best effort). Not thread-safe. */
int fxt_session_clean(void (*removed)(const char *dir));

/* Notes in the session the name path of the temporary archive fxtrun is about to create, before
 * it creates it: a cleanup of the session after fxtrun was killed before the file was noted
 * (fxt_session_note_archive()) removes the file at path only if it can be the one fxtrun
 * made (a regular file of this user, not a link, with one name, created after the note). The
 * note replaces the one before (another name tried). Fails: -errno. Not thread-safe. */
int fxt_session_note_pending(const struct fxt_session *s, const char *path);

/* Notes in the session the temporary archive file fd (at path) that fxtrun writes, so that a
 * cleanup of the session after fxtrun was killed removes it too (only that very file: device,
 * inode and owner must match). Replaces the pending note. Fails: -errno. Not thread-safe. */
int fxt_session_note_archive(const struct fxt_session *s, const char *path, int fd);

/* Finds libfxtauto.so beside the running executable: the build tree (launcher/../preload/)
 * or an install (bin/../lib/ and its variants). Writes its absolute path to out.
 * Fails: -ENOENT (not found), -ENAMETOOLONG. Thread-safe. */
int fxt_session_find_preload(char *out, size_t size);

#endif
