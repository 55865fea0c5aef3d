/* Chunk policies of a buffer shared with a trace manager (fxtrun): oneshot (chunks in order until
 * they run out), circular (reuse the oldest chunk its writer left) and streaming (two rolling
 * halves; a half is reused only once the manager acknowledged its save). The policies are pure
 * buffer arithmetic; what they need from outside goes through struct fxt_policy_ops: backing the
 * file before a chunk is first handed out, asking for a save, and waiting for it (back-pressure)
 * or not (drop and count). Invariants: a chunk is handed to a new writer only after its previous
 * writer left it (word 0 closed bit), and in streaming mode only once a save made after it was
 * left is acknowledged, so every committed record is saved exactly once.
 * Thread-safe, lock-free, async-signal-safe (as far as the ops are). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_POLICY_H
#define FXT_WRITER_POLICY_H

#include <stdint.h>

#include "writer/buffer.h"

struct fxt_policy_ops {
	/* Makes the mapping backed up to end (a chunk never handed out before).
	 * Returns 0, or -errno: the chunk is refused (counted as FXT_DROP_FILE_SIZE for -EFBIG,
	 * else FXT_DROP_NO_SPACE). */
	int (*back)(struct fxt_buf *b, uint64_t end);
	/* Streaming: the half filled during wrap w is full; ask for its save. */
	void (*request_save)(struct fxt_buf *b, uint32_t w, uint64_t durable_used);
	/* Streaming: how many saves were acknowledged (requests 0 .. n-1), looking for new
	 * acknowledgements without waiting. */
	uint32_t (*acked)(struct fxt_buf *b);
	/* Streaming: waits until acked() >= w; 1 if it is, 0 if the caller must drop (no waiting
	 * wanted, or the manager did not answer). The drop reason is the ops' to note. */
	int (*wait)(struct fxt_buf *b, uint32_t w);
};

/* Process-local state of a policy (b->ctx). */
struct fxt_policy_state {
	const struct fxt_policy_ops *ops;
	/* streaming: wrap count << 32 | chunks taken in the current half */
	_Atomic uint64_t roll;
	/* circular: the next chunk to try, in ring order (value % nchunks) */
	_Atomic uint64_t cursor;
};

/* Installs the policy of mode (oneshot, circular or streaming) on b with its state st (zeroed
 * here) and ops. Fails: -EINVAL (another mode). Not thread-safe: before the buffer is used. */
int fxt_policy_install(struct fxt_buf *b, struct fxt_policy_state *st,
		       const struct fxt_policy_ops *ops);

/* The wrap count of a streaming buffer (how many halves were switched). Thread-safe. */
uint32_t fxt_policy_wrap(const struct fxt_buf *b);

#endif
