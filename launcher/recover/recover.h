/* Recovering what a killed standalone run left (`fxt recover`, launcher/cmd/recover.c): one
 * archive file repaired in place (launcher/recover/recover.c), and the files of an FXT_OUTPUT tree
 * whose root's placeholder is named, finished as its processes would have named them
 * (launcher/recover/tree.c, after preload/outname.c). Each function prints one line per file
 * it repairs, renames or removes ("fxt recover: FILE: ...") and returns a CMD_EXIT_* status
 * (launcher/cmd/cmd.h). Not thread-safe (stdout, stderr). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_RECOVER_H
#define FXT_LAUNCHER_RECOVER_H

#include <stdint.h>
#include <sys/stat.h>

#include "fxt/reader.h"
#include "writer/buffer.h"

/* Repairs the archive file at path in place (a killed run's: every committed record kept; a
 * finished one is left as it was) and renames it to out (NULL: it keeps its name). A file cut
 * short before its string area (a process killed at its start, or a wrapper that never took a
 * chunk) is first lengthened to it. Prints the result line on stdout, or why not on stderr.
 * Returns CMD_EXIT_OK; CMD_EXIT_INVALID not such a file; CMD_EXIT_ERROR it cannot be read or
 * written, or a live process still writes it. */
int fxt_recover_file(const char *path, const char *out);

/* Repairs the archive a killed trace manager left at path (open at fd, read-write): cut after
 * its last record that fxt check accepts, a drop report per provider appended (the manager was
 * killed), renamed to out (NULL: it keeps its name); launcher/recover/stream.c. Prints the
 * result line on stdout, or why not on stderr. Returns a CMD_EXIT_* status as
 * fxt_recover_file(). */
int fxt_recover_manager_file(const char *path, int fd, const char *out);

/* What fxt_recover_verify replaced or cut. */
struct fxt_recover_cut {
	uint64_t padded, padded_bytes;	/* places replaced by padding, and their bytes */
	uint64_t cut_at, cut_bytes;	/* where the archive was last cut, and the bytes cut */
	struct fxt_read_error first;	/* the first problem found */
};

/* Makes the repaired archive words[0, *end) (header h: where its chunks are) one that
 * `fxt check` accepts (launcher/recover/verify.c): each record it rejects becomes padding
 * (in a chunk, up to the chunk's end), or the archive is cut (*end lowered) where a record's
 * size cannot be trusted. *cut says what was done. Returns 0 (valid now), 1 (its first record
 * is bad: not an archive) or -ENOMEM. */
int fxt_recover_verify(uint64_t *words, uint64_t *end, const struct fxt_buf_hdr *h,
		       uint32_t provider_id, struct fxt_recover_cut *cut);

/* The header of the standalone archive file at path, read into page (FXT_BUF_HDR_SIZE bytes,
 * 8-byte aligned), and the file's status into st. Fails: NULL (not a regular file, too short,
 * not such a file, unreadable); prints nothing. */
const struct fxt_buf_hdr *fxt_recover_header(const char *path, uint64_t *page, struct stat *st);

/* Whether the process that writes the file (header h, status st) is alive and maps it: a file
 * recovered while its writer goes on would be corrupted. Fails: 0 (cannot tell). */
int fxt_recover_still_written(const struct fxt_buf_hdr *h, const struct stat *st);

/* When path is the placeholder of an FXT_OUTPUT tree (<FXT_OUTPUT>.part of a root that
 * recorded nothing, or was killed before recording, with processes started under it):
 * finishes the tree as its last process would have (preload/outname.c) with the files its
 * members left beside it, killed or not: the one program that recorded gets out (default
 * FXT_OUTPUT), recovered first if it was killed; with several, each keeps its own name;
 * killed wrappers' empty files and the placeholder go; with none, the placeholder itself is
 * recovered to out. Returns -1 when path is no such placeholder (nothing done, nothing
 * printed), else a CMD_EXIT_* status (CMD_EXIT_ERROR, nothing done: a member still runs). */
int fxt_recover_tree(const char *path, const char *out);

#endif
