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
	const char *version;	/* dlvsym for a versioned symbol, else NULL: dlsym */
} table[] = {
	{ (void **)&fxtp_real._exit, "_exit", NULL },
	{ (void **)&fxtp_real._Exit, "_Exit", NULL },
	{ (void **)&fxtp_real.pthread_setname_np, "pthread_setname_np", NULL },
	{ (void **)&fxtp_real.prctl, "prctl", NULL },
	{ (void **)&fxtp_real.sigaction, "sigaction", NULL },
	{ (void **)&fxtp_real.signal, "signal", NULL },
	{ (void **)&fxtp_real.longjmp, "longjmp", NULL },
	{ (void **)&fxtp_real._longjmp, "_longjmp", NULL },
	{ (void **)&fxtp_real.siglongjmp, "siglongjmp", NULL },
	{ (void **)&fxtp_real.__longjmp_chk, "__longjmp_chk", NULL },
	{ (void **)&fxtp_real.__cxa_begin_catch, "__cxa_begin_catch", NULL },
	{ (void **)&fxtp_real.pthread_mutex_lock, "pthread_mutex_lock", NULL },
	{ (void **)&fxtp_real.pthread_rwlock_rdlock, "pthread_rwlock_rdlock", NULL },
	{ (void **)&fxtp_real.pthread_rwlock_wrlock, "pthread_rwlock_wrlock", NULL },
	{ (void **)&fxtp_real.pthread_cond_wait, "pthread_cond_wait", "GLIBC_2.3.2" },
	{ (void **)&fxtp_real.pthread_cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2" },
	{ (void **)&fxtp_real.sem_wait, "sem_wait", NULL },
	{ (void **)&fxtp_real.pthread_barrier_wait, "pthread_barrier_wait", NULL },
	{ (void **)&fxtp_real.pthread_join, "pthread_join", NULL },
	{ (void **)&fxtp_real.pthread_create, "pthread_create", NULL },
	{ (void **)&fxtp_real.pthread_mutex_timedlock, "pthread_mutex_timedlock", NULL },
	{ (void **)&fxtp_real.pthread_cond_clockwait, "pthread_cond_clockwait", NULL },
	{ (void **)&fxtp_real.sem_timedwait, "sem_timedwait", NULL },
	{ (void **)&fxtp_real.write, "write", NULL },
	{ (void **)&fxtp_real.writev, "writev", NULL },
	{ (void **)&fxtp_real.vfprintf, "vfprintf", NULL },
	{ (void **)&fxtp_real.__vfprintf_chk, "__vfprintf_chk", NULL },
	{ (void **)&fxtp_real.fputs, "fputs", NULL },
	{ (void **)&fxtp_real.puts, "puts", NULL },
	{ (void **)&fxtp_real.fwrite, "fwrite", NULL },
	{ (void **)&fxtp_real.fputc, "fputc", NULL },
	{ (void **)&fxtp_real.putc, "putc", NULL },
	{ (void **)&fxtp_real.putchar, "putchar", NULL },
	{ (void **)&fxtp_real.vsyslog, "vsyslog", NULL },
	{ (void **)&fxtp_real.__vsyslog_chk, "__vsyslog_chk", NULL },
	{ (void **)&fxtp_real.dlclose, "dlclose", NULL },
	{ (void **)&fxtp_real.fputs_unlocked, "fputs_unlocked", NULL },
	{ (void **)&fxtp_real.fwrite_unlocked, "fwrite_unlocked", NULL },
	{ (void **)&fxtp_real.fputc_unlocked, "fputc_unlocked", NULL },
	{ (void **)&fxtp_real.putc_unlocked, "putc_unlocked", NULL },
	{ (void **)&fxtp_real.putchar_unlocked, "putchar_unlocked", NULL },
	{ (void **)&fxtp_real.vdprintf, "vdprintf", NULL },
	{ (void **)&fxtp_real.__vdprintf_chk, "__vdprintf_chk", NULL },
	{ (void **)&fxtp_real.perror, "perror", NULL },
	{ (void **)&fxtp_real.error, "error", NULL },
	{ (void **)&fxtp_real.error_at_line, "error_at_line", NULL },
	{ (void **)&fxtp_real.vwarn, "vwarn", NULL },
	{ (void **)&fxtp_real.vwarnx, "vwarnx", NULL },
	{ (void **)&fxtp_real.verr, "verr", NULL },
	{ (void **)&fxtp_real.verrx, "verrx", NULL },
	{ (void **)&fxtp_real.execve, "execve", NULL },
	{ (void **)&fxtp_real.execvpe, "execvpe", NULL },
	{ (void **)&fxtp_real.fexecve, "fexecve", NULL },
	{ (void **)&fxtp_real.execveat, "execveat", NULL },
};

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
