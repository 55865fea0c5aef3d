/* The archive file of a process traced without fxtrun (preload/transport/standalone.c): the buffer is a
 * shared mapping of the archive file itself, created next to FXT_OUTPUT as "<out>.part"
 * (O_EXCL|O_NOFOLLOW; a random name if that exists), grown as chunks are taken, finished in
 * place at exit and renamed to the output name. A killed run leaves the .part file for
 * `fxt recover`. Called by buffer.c and flush.c with the tracer guard held. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_STANDALONE_H
#define FXT_PRELOAD_STANDALONE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "writer/buffer.h"

/* Creates the file and lays a growing buffer out in it, clock_start in its clock record: map
 * and map_size receive the mapping (a large window of address space; the file grows inside it). Fails: -errno (nothing left
 * behind). Not thread-safe: constructor or fork child. */
int fxtp_standalone_open(struct fxt_buf *b, void **map, size_t *map_size, uint64_t durable,
			 const char *out_path, const char *name, pid_t pid,
			 struct fxt_clock_pair clock_start);

/* Finishes the file in place (ticks per second and the header's clock_end into its
 * initialization and clock records, open chunks and the durable tail become FXT, events
 * stamped after cutoff left out, the trailer with the drop count), truncates it and renames it to out_path
 * (NULL: it stays <out>.part, finished, for preload/transport/outname.c to name). Prints one line when
 * records were dropped, and one when the file cannot be written. Async-signal-safe; once per
 * buffer. */
void fxtp_standalone_finish(struct fxt_buf *b, uint64_t cutoff, uint64_t ticks_per_second,
			    const char *out_path);

/* Removes the unfinished file (an image that recorded nothing gives its name up). Fails:
 * silently. Async-signal-safe; instead of fxtp_standalone_finish(). */
void fxtp_standalone_discard(void);


#endif
