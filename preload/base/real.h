/* The real libc functions behind the preload's wrappers (real.c): one pointer per entry of
 * FXTP_REAL (interposed.h), resolved lazily, once, by fxtp_real_init(). A wrapper calls
 * fxtp_real_init() before it reads its pointer, and fails with ENOSYS when it stays NULL. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_REAL_H
#define FXT_PRELOAD_REAL_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "preload/base/interposed.h"

#define FXTP_REAL_MEMBER(file, ret, name, version, ...) ret (*name)(__VA_ARGS__);
struct fxtp_real {
	FXTP_REAL(FXTP_REAL_MEMBER)
};
#undef FXTP_REAL_MEMBER
extern struct fxtp_real fxtp_real;

/* Resolves every real function once. Fails: a name not found stays NULL. Thread-safe,
 * idempotent, callable before the constructor. */
void fxtp_real_init(void);

#endif
