/* The FXT_OUTPUT tree word (struct fxt_buf_hdr.name_tree) of a standalone archive, as data:
 * preload/transport/outname.c writes it while the processes of a tree run, `fxt recover` reads it to
 * finish the naming of a tree that was killed (launcher/recover/tree.c). Two layouts, one per
 * kind of file: the root's archive (FXT_OUTPUT.part: the word the whole tree shares) and a
 * member's own archive (FXT_OUTPUT.<pid>[.<n>]: which tree it belongs to, what it did).
 * Header-only, no state. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_NAMETREE_H
#define FXT_WRITER_NAMETREE_H

#include <stdint.h>

#include "writer/fields.h"

/* The root's word, changed by compare-and-swap only (preload/transport/outname.c says who and when). */
#define FXT_NT_LIVE FXT_BITS(0, 23)	 /* members counted and not ended (the root is not one) */
#define FXT_NT_RECORDERS FXT_BITS(24, 25) /* members whose image recorded: 0, 1, 2 (or more) */
#define FXT_NT_DONE FXT_BITS(26, 26)	 /* the root ended having recorded nothing: its finished
					  * archive waits at FXT_OUTPUT.part for the members */
#define FXT_NT_DECIDED FXT_BITS(27, 27) /* the last one to end is naming the files */
#define FXT_NT_KEEP FXT_BITS(28, 28)	 /* the root keeps FXT_OUTPUT: members change nothing */
#define FXT_NT_FIRST FXT_BITS(32, 63)	 /* pid of the first member that recorded */

/* A member's word in its own archive, written by that process alone (one atomic or), except
 * WRAPPER, which a program it started without fork (vfork, posix_spawn) may or in. A root's
 * word never has MEMBER (its FIRST field holds a pid below 2^22, the kernel's limit). */
#define FXT_NT_ROOT_PID FXT_BITS(0, 31)	 /* pid of the tree's root */
#define FXT_NT_ROOT_TAG FXT_BITS(32, 58) /* low bits of the root's start_ticks: its identity
					  * with the pid (a pid is reused, a tag as well) */
#define FXT_NT_ENDED FXT_BITS(59, 59)	 /* this file was finished by its process (not killed) */
#define FXT_NT_RECORDED FXT_BITS(60, 60) /* ... having recorded calls or events of its own */
#define FXT_NT_WRAPPER FXT_BITS(61, 61)	 /* the process started a traced process of the tree */
#define FXT_NT_COPY FXT_BITS(62, 62)	 /* a fork child's image, not exec'd (a subshell) */
#define FXT_NT_MEMBER FXT_BITS(63, 63)	 /* this is a member's word */

/* The member word naming the tree of the root (pid, start_ticks). Fails: never. */
static inline uint64_t fxt_nt_member(uint64_t root_pid, uint64_t root_start_ticks)
{
	return FXT_NT_MEMBER | fxt_field_prep(FXT_NT_ROOT_PID, root_pid) |
	       fxt_field_prep(FXT_NT_ROOT_TAG, root_start_ticks);
}

/* Whether member word w belongs to the tree of root (pid, start_ticks). Fails: never. */
static inline int fxt_nt_member_of(uint64_t w, uint64_t root_pid, uint64_t root_start_ticks)
{
	const uint64_t id = FXT_NT_MEMBER | FXT_NT_ROOT_PID | FXT_NT_ROOT_TAG;
	return (w & id) == fxt_nt_member(root_pid, root_start_ticks);
}

#endif
