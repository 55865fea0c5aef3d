/* The real libc functions behind our wrappers, resolved with dlsym(RTLD_NEXT) once, from a
 * table. Lazily, because a wrapper may run before our constructor (another library's
 * constructor can call prctl or _exit first); pthread_once makes the first resolution
 * thread-safe. A name that stays NULL makes its wrapper fail with ENOSYS, never crash. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "preload/fxtp.h"

struct fxtp_real fxtp_real;

static const struct {
	void **slot;
	const char *name;
} table[] = {
	{ (void **)&fxtp_real._exit, "_exit" },
	{ (void **)&fxtp_real._Exit, "_Exit" },
	{ (void **)&fxtp_real.pthread_setname_np, "pthread_setname_np" },
	{ (void **)&fxtp_real.prctl, "prctl" },
	{ (void **)&fxtp_real.sigaction, "sigaction" },
	{ (void **)&fxtp_real.signal, "signal" },
	{ (void **)&fxtp_real.longjmp, "longjmp" },
	{ (void **)&fxtp_real._longjmp, "_longjmp" },
	{ (void **)&fxtp_real.siglongjmp, "siglongjmp" },
	{ (void **)&fxtp_real.__longjmp_chk, "__longjmp_chk" },
	{ (void **)&fxtp_real.__cxa_begin_catch, "__cxa_begin_catch" },
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		*table[i].slot = dlsym(RTLD_NEXT, table[i].name);
}

void fxtp_real_init(void)
{
	pthread_once(&once, resolve);
}
