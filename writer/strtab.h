/* String interning for one producer: string -> FXT string index in [1,32767], so events can use
 * indexed string refs. When all 32767 slots are taken, a slot is recycled (CLOCK: second chance
 * for strings looked up since the hand last passed) and the caller is told to (re)emit a string
 * record before using the index; a string just interned is never recycled by the next intern
 * call (two strings of one record are safe). The table keeps the caller's pointer, not a copy: a string must
 * stay valid and unchanged while interned. Fixed-size storage inside the struct (about 1 MiB;
 * the caller allocates it once: static, mmap); no malloc, no I/O, async-signal-safe.
 * NOT thread-safe: use under the caller's lock or from one thread. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_WRITER_STRTAB_H
#define FXT_WRITER_STRTAB_H

#include <stdint.h>

#include "writer/fields.h"

#define FXT_STRTAB_SLOTS FXT_STRING_MAX_INDEX /* 32767: indexes 1..32767 */
#define FXT_STRTAB_BUCKETS 65536u	      /* power of two, load <= 1/2 */

struct fxt_strtab_ent {
	uint64_t hash;
	const char *s;
	uint32_t len; /* already cut to 32000 bytes */
};

struct fxt_strtab {
	uint32_t used;	/* slots handed out so far, in [0,32767] */
	uint32_t hand;	/* CLOCK hand: next slot considered for recycling, in [1,32767] */
	uint64_t recycled; /* slots recycled so far (statistics) */
	struct fxt_strtab_ent ent[FXT_STRTAB_SLOTS + 1]; /* by index; ent[0] unused */
	uint8_t ref[FXT_STRTAB_SLOTS + 1];		  /* CLOCK bit: looked up since the hand passed */
	uint16_t bucket[FXT_STRTAB_BUCKETS];		  /* open addressing: index, 0 = empty */
};

/* Empties t. Fails: never. Not thread-safe (caller's lock). */
void fxt_strtab_init(struct fxt_strtab *t);

/* Index of s[0..len) (cut to 32000 bytes at a UTF-8 boundary, the same cut the string record
 * makes), interning it if absent. *fresh is set to 1 when the slot is new or recycled: emit
 * fxt_string_write(dst, index, s, len) before any record uses the index; else 0.
 * Returns the index in [1,32767]; 0 for the empty string (len 0: empty ref, no record needed);
 * -EINVAL if s is NULL with len > 0. Not thread-safe (caller's lock); async-signal-safe. */
int fxt_strtab_intern(struct fxt_strtab *t, const char *s, uint32_t len, int *fresh);

/* Index of s[0..len) if interned, else 0; does not touch the CLOCK bit.
 * Fails: never. Not thread-safe with writers. */
int fxt_strtab_find(const struct fxt_strtab *t, const char *s, uint32_t len);

/* The string in slot index (to re-emit its record), its length in *len; NULL if the slot is
 * free or index out of range. Fails: NULL as said. Not thread-safe with writers. */
const char *fxt_strtab_str(const struct fxt_strtab *t, uint32_t index, uint32_t *len);

#endif
