/* Who takes FXT_OUTPUT in a tree of processes traced without fxtrun (outname.c): the first
 * process (the root) if it recorded anything; else the one descendant that recorded, if only
 * one did; else nobody (the descendants keep FXT_OUTPUT.<pid>, the root's empty archive goes).
 * A descendant that recorded nothing and started processes (a wrapper: timeout, sh -c; its
 * context switches go with it) leaves no file, nor does a fork copy that holds nothing (a
 * subshell), so a chain of wrappers leaves only the program's archive. Called by init.c (constructor), flush.c (finish), buffer.c, fork.c (the fork wrapper) and
 * exec.c. Not covered (names then as without a tree, nothing lost): a SIGKILLed root or member
 * (the root's archive stays FXT_OUTPUT.part: `fxt recover` on it finishes the naming,
 * launcher/recover/tree.c); a member that execs an image the tracer does not run in (static,
 * setuid, LD_PRELOAD removed: the tree waits for it as for a killed one); a program started
 * without fork (vfork, posix_spawn) whose starter's whole tree ended before its constructor ran,
 * or whose starter ended first (the starter keeps its empty archive); a root whose
 * FXT_OUTPUT.part name was taken by a leftover file. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_OUTNAME_H
#define FXT_PRELOAD_OUTNAME_H

#include <stdint.h>

#include "writer/buffer.h"

/* Constructor, after the buffer is open, standalone with FXT_OUTPUT set: the root maps its
 * archive's header page (the tree's shared word); a later image of a member pid maps the
 * root's again; a program started by a traced process without fork (vfork or posix_spawn and
 * exec) joins the tree. Nothing when the root's file is not <FXT_OUTPUT>.part (a leftover took
 * the name: names then as without a tree). Fails: silently. Not thread-safe (constructor). */
void fxtp_outname_attach(void);

/* A member's buffer was replaced (a failed exec: exec.c, through fxtp_open_buffer): the new
 * archive carries the member word of the old one (header old, still mapped). Fails: never. */
void fxtp_outname_reopened(const struct fxt_buf_hdr *old);

/* FXTAUTO_IMAGE (exec.c): the root's pid when this image is a counted member of its tree (0:
 * not one), to pass on at exec; and the value the image it replaced passed (also 0 in a fork
 * child before the wrapper counts it). Fails: never. Async-signal-safe. */
int fxtp_outname_member(void);
void fxtp_outname_set_member(int root);

/* The fork wrapper (fork.c): fork_prepare counts the child to come as a member (returns 1 if
 * it did: the tree still decides nothing, the caller runs); fork_done(counted, pid) after the
 * fork: the child becomes a member, or the parent takes the count back when fork failed.
 * Fails: 0 from prepare (no tree, or the name is decided). Thread-safe. */
int fxtp_outname_fork_prepare(void);
void fxtp_outname_fork_done(int counted, int pid);

/* The standalone archive at the exit flush or an exec, in place of fxtp_standalone_finish:
 * recorded says whether the image recorded calls or events of its own (samples aside). An
 * image that recorded nothing at exec removes its file and returns 1 (its name goes to the next
 * image); the root that recorded nothing at exit leaves its archive finished as
 * <FXT_OUTPUT>.part until the last member ends; whoever ends the tree last names the files.
 * Returns 0 otherwise. Fails: silently (one line on stderr, as fxtp_standalone_finish).
 * Async-signal-safe; once per image. */
int fxtp_outname_finish(struct fxt_buf *b, uint64_t cutoff, uint64_t tps, const char *out_path,
			int recorded, int at_exec);

/* The archive name of sequence number seq (fxtp_ctx.name_seq) for this pid, absolute, into buf.
 * Fails: never (cut to size). Async-signal-safe (no allocation). */
void fxtp_out_name(int seq, char *buf, size_t size);
/* Makes path absolute against the working directory, into buf (cut to size - 1 bytes). Fails:
 * never (a path getcwd cannot give stays relative). Async-signal-safe. */
void fxtp_absolute(const char *path, char *buf, size_t size);

#endif
