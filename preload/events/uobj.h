/* Labels of synchronisation objects (uobj.c), for the wait records of lock.c. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_UOBJ_H
#define FXT_PRELOAD_UOBJ_H

#include "writer/records.h"

/* The label of synchronisation object obj of kind `kind` ("mutex", ...): the symbol naming it
 * (sym or sym+0xN) for a global or static object, else kind#N (N counts per kind, from 1).
 * The first time obj is seen its userspace object record goes to the durable area, before the
 * caller's event. Returns the label's string ref (s valid until the next call on this
 * thread). Guard held. */
struct fxt_str fxtp_uobj_label(const void *obj, const char *kind);

/* Fork: hold the label table's lock across fork, release it on both sides. Fails: never. */
void fxtp_uobj_fork_prepare(void);
void fxtp_uobj_fork_release(void);

#endif
