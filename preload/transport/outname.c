/* FXT_OUTPUT among a tree of processes traced without fxtrun (outname.h): a wrapper (timeout,
 * sh -c, xargs) records nothing and the program it runs does, so the name goes to the program;
 * a parent that records keeps it. The root (the first process, FXT_OUTPUT.part) and every
 * member (a process forked or started by one of them) share one word in the root's archive
 * header page, mapped shared by each (a fork child inherits the mapping, a new image maps the
 * file again by name). Invariants: each change of the word is one compare-and-swap; the change
 * that ends the tree (root ended with nothing recorded, no member left) also marks it decided,
 * so exactly one process renames files, and only after every member finished its own archive;
 * once the root keeps the name or the names are decided nobody writes the word again (the page
 * may then belong to a finished archive). Files are only renamed onto FXT_OUTPUT, which in one
 * tree only that one process or the root that recorded does; a member removes only its own
 * file. A member's own archive header carries its own word (below), written by itself, and
 * WRAPPER or-ed in by the programs it starts without fork. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outpath.h"
#include "common/proc.h"
#include "preload/base/fxtp.h"
#include "preload/transport/outname.h"
#include "preload/transport/provider.h"
#include "preload/sampling/sched.h"
#include "preload/transport/standalone.h"
#include "writer/nametree.h"
#include "writer/outfile.h"

/*
 * The root's word (writer/nametree.h): members counted and not ended (LIVE), how many of them
 * recorded (RECORDERS) and the first one's pid (FIRST), whether the root ended with nothing
 * recorded (DONE), the naming begun (DECIDED), the root keeping R (KEEP: it recorded or
 * exec'd). R is FXT_OUTPUT. A member's first recording image always writes R.<pid>: an image
 * that recorded nothing gives its number to the next (exec.c).
 * A member's own archive carries its own word: the tree it belongs to (so that `fxt recover`
 * finds the members of a killed tree), whether it ended and recorded, and WRAPPER: it started
 * a traced process. A member that ends with no calls or events of its own leaves no file
 * when it is a wrapper (unless it has samples: its context switches are its waiting) or a copy
 * that holds nothing at all (a fork child that did not exec: a subshell; leaves_nothing):
 * programs keep their archives, and R is always someone's.
 */
#define LIVE FXT_NT_LIVE
#define REC_MASK FXT_NT_RECORDERS
#define DONE FXT_NT_DONE
#define DECIDED FXT_NT_DECIDED
#define KEEP FXT_NT_KEEP

_Static_assert(FXT_OUTFILE_HDR_OFF + sizeof(struct fxt_buf_hdr) <= FXT_OUTFILE_SLOTS_OFF,
	       "the header, with the word, sits before the open-chunk table");

static _Atomic uint64_t *tree;	/* the word in the root's page, or NULL: no tree */
static uint64_t root_pid;	/* pid of the root (the page's writer) */
static uint64_t root_start;	/* its start_ticks: with the pid, the tree's identity */
static int member;		/* this pid is counted in live */
static int member_of;		/* before attach: root of the tree the last image was in */
static int copy;		/* this image is a fork child's that did not exec (yet) */

/* The parent of pid from /proc/<pid>/stat, or 0. */
static int parent_of(int pid)
{
	char buf[512];
	const char *p = fxt_proc_stat(pid, buf, sizeof(buf));
	int ppid = 0;
	if (!p || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	for (p += 3; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

/* Whether pid is an ancestor of this process (at most 64 levels up). */
static int is_ancestor(uint64_t pid)
{
	int p = (int)getppid();
	for (int i = 0; i < 64 && p > 1; i++, p = parent_of(p))
		if ((uint64_t)p == pid)
			return 1;
	return 0;
}

/* Maps the header page of the growing archive file at path, read-write, when it is one of this
 * version owned by this user; else NULL. Unmap with unmap_hdr. */
static struct fxt_buf_hdr *map_hdr(const char *path)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	void *m = MAP_FAILED;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    st.st_size >= (off_t)FXT_BUF_HDR_SIZE)
		m = mmap(NULL, FXT_BUF_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	struct fxt_buf_hdr *h = (struct fxt_buf_hdr *)((uint8_t *)m + FXT_OUTFILE_HDR_OFF);
	if (h->magic == FXT_BUF_MAGIC && h->version == FXT_BUF_VERSION &&
	    h->mode == FXT_BUF_GROWING)
		return h;
	munmap(m, FXT_BUF_HDR_SIZE);
	return NULL;
}

static void unmap_hdr(struct fxt_buf_hdr *h)
{
	munmap((uint8_t *)h - FXT_OUTFILE_HDR_OFF, FXT_BUF_HDR_SIZE);
}

/* A buffer that "<FXT_OUTPUT>.part" always fits. */
#define PART_SIZE (sizeof(fxtp.output_opt) + sizeof(".part"))

/* Maps the header page of <FXT_OUTPUT>.part when it is a live growing archive of ours written
 * by this process (own: the same buffer), by process `root` (a member's later image: the root
 * may have ended), or else by an ancestor; else NULL. */
static struct fxt_buf_hdr *map_root(int own, int root)
{
	char path[PART_SIZE];
	fxt_outpath_part(fxtp.output_opt, path, sizeof(path));	/* fits: PART_SIZE */
	struct fxt_buf_hdr *h = map_hdr(path);
	int ok = h != NULL;
	if (ok && own)
		ok = h->pid == (uint64_t)fxtp.pid && h->start_ticks == fxtp.buf.hdr->start_ticks;
	else if (ok && root)
		ok = h->pid == (uint64_t)root;
	else if (ok)
		ok = h->pid != (uint64_t)fxtp.pid && is_ancestor(h->pid);
	if (h && !ok) {
		unmap_hdr(h);
		return NULL;
	}
	return h;
}

/* The word of this member's own archive (the current buffer's). */
static _Atomic uint64_t *own_word(void)
{
	return &fxtp.buf.hdr->name_tree;
}

/* A program started without fork (vfork or posix_spawn, then exec) joined: its parent, when a
 * member, is a wrapper. The parent's own archive is the one of its mappings named
 * <FXT_OUTPUT>.<...>.part whose member word names it in this tree (its name number is not known
 * here, nor whether it fell back to a random name). A parent that ended before this ran keeps
 * its file (it decided at its end). Fails: silently. */
static void mark_parent(void)
{
	char maps[64], *line = NULL;
	size_t cap = 0, rlen = strlen(fxtp.output_opt);
	int ppid = (int)getppid();
	if ((uint64_t)ppid == root_pid)
		return;	/* the root: the tree word decides for it */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", ppid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return;
	int done = 0;
	while (!done && getline(&line, &cap, f) > 0) {
		char *p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		size_t n = strlen(p);
		if (n < rlen + 6 || strncmp(p, fxtp.output_opt, rlen) || p[rlen] != '.' ||
		    strcmp(p + n - 5, ".part"))
			continue;
		struct fxt_buf_hdr *h = map_hdr(p);
		if (!h)
			continue;
		if (h->pid == (uint64_t)ppid &&
		    fxt_nt_member_of(__atomic_load_n(&h->name_tree, __ATOMIC_ACQUIRE), root_pid,
				     root_start)) {
			__atomic_fetch_or(&h->name_tree, FXT_NT_WRAPPER, __ATOMIC_ACQ_REL);
			done = 1;
		}
		unmap_hdr(h);
	}
	free(line);
	fclose(f);
}

/* Adds a member: live + 1 unless the name is kept or decided. 1 if counted. */
static int join(void)
{
	uint64_t w = __atomic_load_n(tree, __ATOMIC_ACQUIRE);
	do {
		if ((w & (DECIDED | KEEP)) || (w & LIVE) == LIVE)
			return 0;
	} while (!__atomic_compare_exchange_n(tree, &w, w + 1, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return 1;
}

/* Gives the names once the tree ended: the root's empty archive becomes R if no member
 * recorded, the one member's archive if one did; with two or more nothing is at R. */
static void name_files(uint64_t w)
{
	char part[PART_SIZE], one[4200];
	const char *r = fxtp.output_opt;
	fxt_outpath_part(r, part, sizeof(part));	/* fits: PART_SIZE */
	uint64_t recorders = fxt_field_get(REC_MASK, w);
	int rc = 0;
	if (!recorders) {
		rc = rename(part, r);
	} else {
		if (recorders == 1) {
			snprintf(one, sizeof(one), "%.4000s.%u", r,
				 (unsigned)fxt_field_get(FXT_NT_FIRST, w));
			rc = rename(one, r);
		}
		unlink(part);
	}
	if (rc < 0)
		fxtp_warn("cannot name the trace", strerror(errno));
}

/* A member's image ended (ends: the process, not an exec) having recorded or not. */
static void leave(int recorded, int ends)
{
	uint64_t w = __atomic_load_n(tree, __ATOMIC_ACQUIRE), n;
	do {
		if (w & (DECIDED | KEEP))
			return;
		n = w - (uint64_t)!!ends;
		if (recorded) {
			uint64_t r = fxt_field_get(REC_MASK, w);
			if (!r)
				n |= fxt_field_prep(FXT_NT_FIRST, (uint64_t)fxtp.pid);
			if (r < 2)
				n += fxt_field_prep(REC_MASK, 1);
		}
		if ((n & DONE) && !(n & LIVE))
			n |= DECIDED;
	} while (!__atomic_compare_exchange_n(tree, &w, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (n & DECIDED)
		name_files(n);
}

static int is_root(void)
{
	return tree && root_pid == (uint64_t)fxtp.pid;
}

void fxtp_outname_attach(void)
{
	if (!fxtp.output_set || fxtp_provider_managed())
		return;
	struct fxt_buf_hdr *h = NULL;
	if (!fxtp.name_seq)
		h = map_root(1, 0);
	else if (member_of || fxtp.parent_traced)
		h = map_root(0, member_of);
	member = member_of && h;
	if (!h)
		return;
	tree = &h->name_tree;
	root_pid = h->pid;
	root_start = h->start_ticks;
	/* A program started without fork (vfork or posix_spawn, then exec) joins here. */
	if (fxtp.name_seq && !member) {
		if (!(member = join())) {
			unmap_hdr(h);
			tree = NULL;
			return;
		}
		mark_parent();
	}
	if (member)
		__atomic_store_n(own_word(), fxt_nt_member(root_pid, root_start), __ATOMIC_RELEASE);
}

void fxtp_outname_reopened(const struct fxt_buf_hdr *old)
{
	if (tree && member)
		__atomic_store_n(own_word(),
				 __atomic_load_n(&old->name_tree, __ATOMIC_ACQUIRE) &
					 ~(FXT_NT_ENDED | FXT_NT_RECORDED),
				 __ATOMIC_RELEASE);
}

int fxtp_outname_member(void)
{
	return tree && member ? (int)root_pid : 0;
}

void fxtp_outname_set_member(int root)
{
	member = member_of = root;
}

int fxtp_outname_fork_prepare(void)
{
	if (!tree || !fxtp_running() || getpid() != fxtp.pid || (!member && !is_root()))
		return 0;
	return join();
}

void fxtp_outname_fork_done(int counted, int pid)
{
	if (!pid) {
		member = counted;	/* (the fork handler cleared member_of) */
		copy = 1;
		if (counted && fxtp_running())	/* (else the buffer is not the child's own) */
			__atomic_store_n(own_word(),
					 fxt_nt_member(root_pid, root_start) | FXT_NT_COPY,
					 __ATOMIC_RELEASE);
	} else if (pid < 0 && counted) {
		leave(0, 1);
	} else if (counted && member) {
		__atomic_fetch_or(own_word(), FXT_NT_WRAPPER, __ATOMIC_ACQ_REL);
	}
}

/* Whether a member's image that ends having recorded no calls or events leaves no file: a
 * wrapper without samples (its context switches are its waiting for its programs), or a copy
 * that holds nothing at all (a subshell; one that was switched out keeps its switches, as a
 * program forked to work does). */
static int leaves_nothing(const struct fxt_buf *b, int recorded, int at_exec)
{
	if (recorded || at_exec || !(tree && member))
		return 0;
	uint64_t taken = __atomic_load_n(&b->hdr->next_chunk, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(own_word(), __ATOMIC_ACQUIRE) & FXT_NT_WRAPPER)
		return !fxtp_sched_others(b->hdr, 1);
	return copy && !taken;
}

int fxtp_outname_finish(struct fxt_buf *b, uint64_t cutoff, uint64_t tps, const char *out_path,
			int recorded, int at_exec)
{
	if (is_root() && !recorded && !at_exec &&
	    !(__atomic_load_n(tree, __ATOMIC_ACQUIRE) & KEEP)) {
		fxtp_standalone_finish(b, cutoff, tps, NULL);	/* stays R.part for now */
		uint64_t w = __atomic_load_n(tree, __ATOMIC_ACQUIRE), n;
		do {
			n = w | DONE;
			if (!(n & LIVE))
				n |= DECIDED;
		} while (!__atomic_compare_exchange_n(tree, &w, n, 0, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE));
		if (n & DECIDED)
			name_files(n);
		return 0;
	}
	if (is_root())
		__atomic_fetch_or(tree, KEEP, __ATOMIC_ACQ_REL);
	if (!recorded && at_exec) {
		fxtp_standalone_discard();
		return 1;
	}
	if (leaves_nothing(b, recorded, at_exec)) {
		fxtp_standalone_discard();
	} else {
		if (tree && member)
			__atomic_fetch_or(own_word(),
					  FXT_NT_ENDED | (recorded ? FXT_NT_RECORDED : 0),
					  __ATOMIC_ACQ_REL);
		fxtp_standalone_finish(b, cutoff, tps, out_path);
	}
	if (tree && member)
		leave(recorded, !at_exec);
	return 0;
}

void fxtp_absolute(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	if (path[0] != '/' && getcwd(buf, size - 1)) {
		n = strlen(buf);
		buf[n++] = '/';
	}
	snprintf(buf + n, size - n, "%s", path);
}

void fxtp_out_name(int seq, char *buf, size_t size)
{
	char name[4200];
	int pid = (int)fxtp.pid;
	if (!fxtp.output_set && seq < 2)
		snprintf(name, sizeof(name), "fxtauto.%d.fxt", pid);
	else if (!fxtp.output_set)
		snprintf(name, sizeof(name), "fxtauto.%d.%d.fxt", pid, seq);
	else if (!seq)
		snprintf(name, sizeof(name), "%s", fxtp.output_opt);
	else if (seq == 1)
		snprintf(name, sizeof(name), "%.4000s.%d", fxtp.output_opt, pid);
	else
		snprintf(name, sizeof(name), "%.4000s.%d.%d", fxtp.output_opt, pid, seq);
	if (fxtp.output_set)
		snprintf(buf, size, "%s", name);
	else
		fxtp_absolute(name, buf, size);
}
