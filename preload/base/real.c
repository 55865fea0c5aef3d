/* The real libc functions behind our wrappers, resolved with dlsym(RTLD_NEXT) once, from a
 * table generated from FXTP_REAL (interposed.h). Lazily, because a wrapper may run before our
 * constructor (another library's constructor can call prctl or _exit first); pthread_once
 * makes the first resolution thread-safe. A name that stays NULL makes its wrapper fail with ENOSYS, never crash. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "preload/base/real.h"

struct fxtp_real fxtp_real;

#define ENTRY(file, ret, name, version, ...) { (void **)&fxtp_real.name, #name, version },
static const struct {
	void **slot;
	const char *name;
	const char *version;	/* dlvsym for a versioned symbol, else NULL: dlsym */
} table[] = { FXTP_REAL(ENTRY) };
#undef ENTRY

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		*table[i].slot = table[i].version
					 ? dlvsym(RTLD_NEXT, table[i].name, table[i].version)
					 : dlsym(RTLD_NEXT, table[i].name);
}

void fxtp_real_init(void)
{
	pthread_once(&once, resolve);
}
