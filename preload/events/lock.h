/* The pthread wait wrappers (lock.c): their one setting, taken by the constructor. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_LOCK_H
#define FXT_PRELOAD_LOCK_H

/* Takes FXT_LOCK_LABELS. Fails: never. Not thread-safe (constructor). */
void fxtp_lock_init(void);

#endif
