/* Vetting of a provider's records before the trace manager commits them to the archive
 * (launcher/manager/saver.c): every record copied out of a provider's buffer is decoded by a STRICT
 * reader holding that provider's string and thread tables and fed to a validator holding its
 * threads' open durations and complete events, exactly what `fxt check` will apply to the
 * provider's part of the archive (a call whose header word was decoded before, with no string
 * or thread record since that changed the tables, is judged by its stamps alone: the same
 * result, cheaper). A provider's records are untrusted bytes (it may scribble over its own
 * buffer): the first bad record ends its data. Works on private copies only (the bytes checked
 * are the bytes written). One vet per provider; single-threaded. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_VET_H
#define FXT_LAUNCHER_VET_H

#include <stddef.h>
#include <stdint.h>

struct fxt_vet;

/* A vet for the provider of archive id provider_id. Fails: NULL (ENOMEM). Not thread-safe. */
struct fxt_vet *fxt_vet_new(uint32_t provider_id);

void fxt_vet_free(struct fxt_vet *v);

/* Vets the records of p[0, words) (a private copy) that go into the archive at byte offset
 * `offset`, in order, compacting in place: records stamped after cutoff (0: none) are left out
 * (a duration complete event counts by its end). Stops at the first bad record (a size that
 * runs past `words`, a record type a provider never writes — metadata, initialization, unknown
 * — or any rule of the strict reader and the validator; the validator's warnings, complete
 * events overlapping without nesting, are spec-valid and kept, as `fxt check` accepts them):
 * its reason is kept
 * (fxt_vet_problem()) and every later call keeps nothing. *events: event records kept.
 * With walked (not NULL), a zero header ends the records instead (nothing committed from
 * there: a chunk copied whole) and *walked gets where the walk stopped (words when it did not).
 * Returns the words kept. Fails: as said (out of memory counts as a bad record). */
size_t fxt_vet_records(struct fxt_vet *v, uint64_t *p, size_t words, uint64_t offset,
		       uint64_t cutoff, uint64_t *events, size_t *walked);

/* Records a problem found outside the records (a buffer header changed under the manager);
 * the first problem is kept. Fails: never. */
void fxt_vet_fail(struct fxt_vet *v, const char *why);

/* The end-of-provider rules of the validator (durations ended, async and flow ids paired).
 * Returns 0, or -1 with the reason in fxt_vet_problem() (unpaired records need the provider's
 * "records dropped" note for `fxt check` to accept them). Fails: as said. */
int fxt_vet_finish(struct fxt_vet *v);

/* From now on, duration complete events ending exactly at ticks (0: none) are left out as if
 * stamped after the cutoff: a snapshot trigger's cut of open calls (fxt_buf_hdr.snapshot_cut)
 * in any save but that snapshot's. Fails: never. */
void fxt_vet_skip_end(struct fxt_vet *v, uint64_t ticks);

/* The latest stamp (fxt_sweep_stamp()) of the records kept so far, 0 for none. Fails: never. */
uint64_t fxt_vet_last_stamp(const struct fxt_vet *v);

/* How many records were decoded by the strict reader so far (the others were calls of a
 * remembered header). Fails: never. */
uint64_t fxt_vet_decoded(const struct fxt_vet *v);

/* Why the provider's data ended early: one line, or NULL while all is well. */
const char *fxt_vet_problem(const struct fxt_vet *v);

/* The provider's last records were vetted: the memory kept for speed (the headers known, 16
 * KiB) is given back; later records are still vetted, the slow way. Fails: never. */
void fxt_vet_rest(struct fxt_vet *v);

#endif
