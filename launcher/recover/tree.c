/* `fxt recover` on the placeholder of an FXT_OUTPUT tree (launcher/recover/recover.h). A root that
 * recorded nothing (a wrapper: timeout, sh -c) waits as <R>.part for the processes it started,
 * and the last of them names the files (preload/transport/outname.c); when one is killed, or the root
 * itself, nobody does, and the program's archive sits in <R>.<pid>.part. Here the naming is
 * finished from the files: every member's own archive names its tree (writer/nametree.h), so
 * the members are the files <R>.* beside R whose word names this root (pid and start). What
 * a member did: a file its process finished says (ENDED, RECORDED); a killed one recorded if
 * its chunks hold a record of its own (own_records: not context switches, not the tracer's
 * stalls), as the live rule counts. Nothing is changed while a member still runs. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "launcher/cmd/cmd.h"
#include "launcher/recover/recover.h"
#include "launcher/recover/tree.h"
#include "writer/fields.h"
#include "writer/nametree.h"
#include "writer/sweep.h"

struct member {
	char path[PATH_MAX];
	unsigned pid;
	int part;	/* still named .part: recovered here (else it was already) */
	int recorded;
	int leftover;	/* a killed wrapper's (or subshell's) file with nothing in it: removed */
};

struct tree {
	struct member *m;
	size_t n, cap;
};

/* Whether the event record at r (n words) is the tracer's own (a stall: category "fxtauto",
 * inline, writer/chunk.c). */
static int tracer_event(const uint64_t *r, uint64_t n)
{
	static const char cat[] = "fxtauto";
	uint64_t ref = fxt_field_get(FXT_EVENT_CATEGORY_REF, r[0]);
	uint64_t at = 2 + (fxt_field_get(FXT_EVENT_THREAD_REF, r[0]) ? 0 : 2);
	return ref == (FXT_STRREF_INLINE | (sizeof(cat) - 1)) && at < n &&
	       !memcmp(r + at, cat, sizeof(cat) - 1);
}

/* Whether chunk c (words) holds a record of the program's own: anything but the thread record
 * opening it, context switches, the tracer's stalls and padding (word 0 is the chunk's). */
static int chunk_own(const uint64_t *c, uint64_t words)
{
	struct fxt_sweep s = fxt_sweep_over(c, 1, words);
	for (size_t n; (n = fxt_sweep_peek(&s)); s.at += n) {
		unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, s.header);
		if (type == FXT_RT_EVENT ? !tracer_event(c + s.at, n)
					 : type != FXT_RT_THREAD && type != FXT_RT_SCHEDULING &&
						   type != FXT_RT_METADATA && type != FXT_RT_BLOB)
			return 1;
	}
	return 0;
}

/* Whether the killed run's file at path (header h, status st) recorded calls or events of its
 * own: one of the chunks it took holds one. Fails: 0 (unreadable). */
static int own_records(const char *path, const struct fxt_buf_hdr *h, const struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t *c = malloc(h->chunk_size);
	int own = 0;
	for (uint64_t i = 0; fd >= 0 && c && !own && i < h->next_chunk; i++) {
		uint64_t off = h->chunks_off + i * h->chunk_size;
		if (off + h->chunk_size > (uint64_t)st->st_size ||
		    pread(fd, c, h->chunk_size, (off_t)off) != (ssize_t)h->chunk_size)
			break;
		own = chunk_own(c, h->chunk_size / 8);
	}
	free(c);
	if (fd >= 0)
		close(fd);
	return own;
}

/* Whether the root's file (path, header h, status st) waits for its members: finished with
 * nothing recorded (DONE) and not named, or killed with members counted and nothing recorded
 * of its own. */
static int is_placeholder(const char *path, const struct fxt_buf_hdr *h, const struct stat *st)
{
	uint64_t w = h->name_tree;
	if (w & (FXT_NT_MEMBER | FXT_NT_KEEP | FXT_NT_DECIDED))
		return 0;
	if (h->state == FXT_BUF_STOPPED)
		return (w & FXT_NT_DONE) != 0;
	return h->state == FXT_BUF_WRITING && !fxt_recover_still_written(h, st) &&
	       (w & (FXT_NT_LIVE | FXT_NT_RECORDERS)) && !own_records(path, h, st);
}

/* path without its ".part" into buf (path ends with it). */
static void strip_part(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)(strlen(path) - 5), path);
}

static int ends_part(const char *path)
{
	size_t n = strlen(path);
	return n > 5 && !strcmp(path + n - 5, ".part");
}

/* Adds the file shown (a path) when it is a member of root's tree; -1 (printed) when its
 * process still runs. */
static int add_member(struct tree *t, const char *shown, const char *placeholder,
		      const struct fxt_buf_hdr *root)
{
	_Alignas(64) uint64_t page[FXT_BUF_HDR_SIZE / 8];
	struct stat st;
	const struct fxt_buf_hdr *h = fxt_recover_header(shown, page, &st);
	if (!h || !fxt_nt_member_of(h->name_tree, root->pid, root->start_ticks))
		return 0;
	if (fxt_recover_still_written(h, &st)) {
		fprintf(stderr, "fxt recover: %s: still being written by a live process (%llu): "
				"recover %s once it ends\n",
			shown, (unsigned long long)h->pid, placeholder);
		return -1;
	}
	if (FXT_GROW(t->m, &t->cap, t->n + 1) < 0) {
		fprintf(stderr, "fxt recover: %s\n", strerror(ENOMEM));
		return -1;
	}
	struct member *m = &t->m[t->n++];
	uint64_t w = h->name_tree;
	snprintf(m->path, sizeof(m->path), "%s", shown);
	m->pid = (unsigned)h->pid;
	int killed = !(w & FXT_NT_ENDED);	/* not finished by its process */
	m->part = ends_part(shown);
	m->recorded = killed ? own_records(shown, h, &st) : (w & FXT_NT_RECORDED) != 0;
	/* as preload/transport/outname.c's leaves_nothing: a wrapper's switches go with it, a copy's stay */
	m->leftover = killed && m->part && !m->recorded &&
		      ((w & FXT_NT_WRAPPER) || ((w & FXT_NT_COPY) && !h->next_chunk));
	return 0;
}

/* The members of root's tree beside r (FXT_OUTPUT): the files named <r>.*. 0, or -1 (printed:
 * a member still runs, or the directory cannot be read). */
static int find_members(struct tree *t, const char *r, const char *placeholder,
			const struct fxt_buf_hdr *root)
{
	const char *slash = strrchr(r, '/');
	size_t dir_len = slash ? (size_t)(slash - r) + 1 : 0;
	char dir[PATH_MAX], shown[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", dir_len ? (int)dir_len : 1, dir_len ? r : ".");
	const char *base = r + dir_len;
	size_t base_len = strlen(base);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fxt recover: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (strncmp(e->d_name, base, base_len) || e->d_name[base_len] != '.')
			continue;
		snprintf(shown, sizeof(shown), "%.*s%s", (int)dir_len, r, e->d_name);
		if (strcmp(shown, placeholder))
			rc = add_member(t, shown, placeholder, root);
	}
	closedir(d);
	return rc;
}

/* Recovers a member's .part file in place, to its name without ".part". */
static int recover_in_place(const struct member *m)
{
	char to[PATH_MAX];
	strip_part(m->path, to, sizeof(to));
	return fxt_recover_file(m->path, to);
}

/* Removes the file of a wrapper, which holds no calls or events; prints what it removed. */
static int remove_wrapper(const char *path, unsigned pid)
{
	if (unlink(path) < 0) {
		fprintf(stderr, "fxt recover: %s: %s\n", path, strerror(errno));
		return CMD_EXIT_ERROR;
	}
	printf("fxt recover: %s: the archive of process %u, a wrapper that recorded no calls or "
	       "events: removed\n", path, pid);
	return CMD_EXIT_OK;
}

/* The naming of a tree whose members are t: the one that recorded to out, several each in
 * its own name; killed members recovered in place, killed wrappers' files removed; then the
 * placeholder removed (someone recorded) or recovered to out (nobody did). */
static int finish_tree(const struct tree *t, const char *placeholder, unsigned root_pid,
		       const char *out)
{
	size_t recorders = 0, one = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->m[i].recorded)
			recorders++, one = i;
	int status = CMD_EXIT_OK;
	if (recorders == 1 && t->m[one].part) {
		status = fxt_recover_file(t->m[one].path, out);
	} else if (recorders == 1) {
		if (rename(t->m[one].path, out) < 0) {
			fprintf(stderr, "fxt recover: %s: %s\n", t->m[one].path, strerror(errno));
			return CMD_EXIT_ERROR;
		}
		printf("fxt recover: %s: finished already; written to %s\n", t->m[one].path, out);
	}
	for (size_t i = 0; status == CMD_EXIT_OK && i < t->n; i++) {
		const struct member *m = &t->m[i];
		if (m->leftover)
			status = remove_wrapper(m->path, m->pid);
		else if (m->part && (recorders > 1 || !m->recorded))
			status = recover_in_place(m);
	}
	if (status != CMD_EXIT_OK)
		return status;
	if (!recorders)
		return fxt_recover_file(placeholder, out);
	if (recorders > 1)
		printf("fxt recover: %s: %zu programs recorded under this wrapper: each keeps its "
		       "own archive, none is written to %s\n", placeholder, recorders, out);
	return remove_wrapper(placeholder, root_pid);
}

int fxt_recover_tree(const char *path, const char *out)
{
	_Alignas(64) uint64_t page[FXT_BUF_HDR_SIZE / 8];
	struct stat st;
	char r[PATH_MAX];
	if (!ends_part(path) || strlen(path) >= sizeof(r))
		return -1;
	const struct fxt_buf_hdr *h = fxt_recover_header(path, page, &st);
	if (!h || !is_placeholder(path, h, &st))
		return -1;
	strip_part(path, r, sizeof(r));
	struct tree t = { 0 };
	int status = find_members(&t, r, path, h) < 0
			     ? CMD_EXIT_ERROR
			     : finish_tree(&t, path, (unsigned)h->pid, out ? out : r);
	free(t.m);
	return status;
}
