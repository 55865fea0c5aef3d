/* Function names (names.c): the shared lock-free map from address to name value, the
 * per-thread cache miss path, and string interning for names that are not functions. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_NAMES_H
#define FXT_PRELOAD_NAMES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/base/fxtp.h"

/* The name value of fn from the shared map, or FXTP_V_DEFER when it is not there yet
 * (symbolize = 0: a signal handler, lock-free) / after symbolizing it (symbolize = 1).
 * Touches no cache. */
uint32_t fxtp_name_value(uintptr_t fn, int symbolize);
/* The frame tag of name value v for t. */
uint64_t fxtp_name_tag(const struct fxtp_thread *t, uint32_t v);
/* The start addresses of the functions called name (as the symbolizer names them, or their
 * plain symbol) in every loaded module, into out[0, max): how many (0: none). Takes the intern
 * lock. Fails: 0. */
int fxtp_names_find(const char *name, uintptr_t *out, size_t max);
/* Name of an FXTP_V_INLINE slot, and its length. */
const char *fxtp_name_slot(uint32_t v, uint32_t *len);
int fxtp_names_init(void);
/* Index of a string that is not a function name, with its string record; 0: write it inline. */
uint32_t fxtp_name_index(const char *s, uint32_t len);
/* Serializes interning (and fork: held across it by the atfork handlers). */
extern pthread_mutex_t fxtp_names_lock;

/* dlclose (life/unload.c), intern lock held: whether the map exists; forgets the names of
 * code in [lo, hi) (map slots become tombstones, lookups probe past them); makes the
 * symbolizer rescan the loaded objects. */
int fxtp_names_ready(void);
void fxtp_names_forget(uintptr_t lo, uintptr_t hi);
void fxtp_names_rescan(void);

#endif
