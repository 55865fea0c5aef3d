/* The one list of the functions libfxtauto.so interposes. From it come the members of
 * struct fxtp_real and real.c's dlsym table (FXTP_REAL), and the list in docs/ARCHITECTURE.md
 * (scripts/interposed.sh --write); exports.map stays a linker script, and the ctest
 * `interposed-list` checks that it, the docs and this table name the same functions.
 * Header-only, no state. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_INTERPOSED_H
#define FXT_PRELOAD_INTERPOSED_H

/*
 * FXTP_REAL(X): functions whose wrapper calls the real one through fxtp_real.<name>:
 *   X(file, ret, name, version, params...)   file: the wrapper's preload file (no .c);
 *   version: a symbol version for dlvsym, or NULL for dlsym. FILE * and va_list are void * and
 *   __builtin_va_list here (fxtp.h does not include stdio).
 * FXTP_FORWARD(W): interposed functions that call one of the above (or, for the setjmp
 *   family, nonlocal.c's own trampolines, which resolve their real functions themselves):
 *   W(file, name, via)   via: what the wrapper calls.
 * One name per line, in each file's order; keep exports.map in step (the ctest says where not).
 */
/* The stdio calls wrapped twice with the same signatures, locked and _unlocked (suffix). */
#define FXTP_STDIO(X, suffix)                                                                   \
	X(log, int, fputs##suffix, NULL, const char *, void *)                                  \
	X(log, size_t, fwrite##suffix, NULL, const void *, size_t, size_t, void *)              \
	X(log, int, fputc##suffix, NULL, int, void *)                                           \
	X(log, int, putc##suffix, NULL, int, void *)                                            \
	X(log, int, putchar##suffix, NULL, int)

#define FXTP_REAL(X)                                                                            \
	X(flush, void, _exit, NULL, int)                                                        \
	X(flush, void, _Exit, NULL, int)                                                        \
	X(fork, pid_t, fork, NULL, void)                                                        \
	X(thread, int, pthread_setname_np, NULL, pthread_t, const char *)                       \
	X(thread, int, prctl, NULL, int, unsigned long, unsigned long, unsigned long,           \
	  unsigned long)                                                                        \
	X(dispositions, int, sigaction, NULL, int, const void *, void *)                        \
	X(dispositions, fxtp_sighandler *, signal, NULL, int, fxtp_sighandler *)                \
	X(nonlocal, __attribute__((noreturn)) void, longjmp, NULL, void *, int)                 \
	X(nonlocal, __attribute__((noreturn)) void, _longjmp, NULL, void *, int)                \
	X(nonlocal, __attribute__((noreturn)) void, siglongjmp, NULL, void *, int)              \
	X(nonlocal, __attribute__((noreturn)) void, __longjmp_chk, NULL, void *, int)           \
	/* NULL without libstdc++ */                                                            \
	X(nonlocal, void *, __cxa_begin_catch, NULL, void *)                                    \
	X(lock, int, pthread_mutex_lock, NULL, pthread_mutex_t *)                               \
	X(lock, int, pthread_rwlock_rdlock, NULL, pthread_rwlock_t *)                           \
	X(lock, int, pthread_rwlock_wrlock, NULL, pthread_rwlock_t *)                           \
	X(lock, int, pthread_cond_wait, "GLIBC_2.3.2", pthread_cond_t *, pthread_mutex_t *)     \
	X(lock, int, pthread_cond_timedwait, "GLIBC_2.3.2", pthread_cond_t *, pthread_mutex_t *, \
	  const struct timespec *)                                                              \
	X(lock, int, sem_wait, NULL, void *)                                                    \
	X(lock, int, pthread_barrier_wait, NULL, pthread_barrier_t *)                           \
	X(lock, int, pthread_join, NULL, pthread_t, void **)                                    \
	X(spawn, int, pthread_create, NULL, pthread_t *, const pthread_attr_t *,                \
	  void *(*)(void *), void *)                                                            \
	X(lock, int, pthread_mutex_timedlock, NULL, pthread_mutex_t *, const struct timespec *) \
	X(lock, int, pthread_cond_clockwait, NULL, pthread_cond_t *, pthread_mutex_t *,         \
	  clockid_t, const struct timespec *)                                                   \
	X(lock, int, sem_timedwait, NULL, void *, const struct timespec *)                      \
	X(log, ssize_t, write, NULL, int, const void *, size_t)                                 \
	X(log, ssize_t, writev, NULL, int, const void *, int)                                   \
	X(log, int, vfprintf, NULL, void *, const char *, __builtin_va_list)                    \
	X(log, int, __vfprintf_chk, NULL, void *, int, const char *, __builtin_va_list)         \
	FXTP_STDIO(X, )                                                                         \
	X(log, int, puts, NULL, const char *)                                                   \
	X(log, void, vsyslog, NULL, int, const char *, __builtin_va_list)                       \
	X(log, void, __vsyslog_chk, NULL, int, int, const char *, __builtin_va_list)            \
	X(unload, int, dlclose, NULL, void *)                                                   \
	FXTP_STDIO(X, _unlocked)                                                                \
	X(log, int, vdprintf, NULL, int, const char *, __builtin_va_list)                       \
	X(log, int, __vdprintf_chk, NULL, int, int, const char *, __builtin_va_list)            \
	X(log, void, perror, NULL, const char *)                                                \
	X(log, void, error, NULL, int, int, const char *, ...)                                  \
	X(log, void, error_at_line, NULL, int, int, const char *, unsigned, const char *, ...)  \
	X(log, void, vwarn, NULL, const char *, __builtin_va_list)                              \
	X(log, void, vwarnx, NULL, const char *, __builtin_va_list)                             \
	X(log, void, verr, NULL, int, const char *, __builtin_va_list)                          \
	X(log, void, verrx, NULL, int, const char *, __builtin_va_list)                         \
	X(exec, int, execve, NULL, const char *, char *const[], char *const[])                  \
	X(exec, int, execvpe, NULL, const char *, char *const[], char *const[])                 \
	X(exec, int, fexecve, NULL, int, char *const[], char *const[])                          \
	X(exec, int, execveat, NULL, int, const char *, char *const[], char *const[], int)      \
	X(fd, int, close, NULL, int)                                                            \
	X(fd, int, dup2, NULL, int, int)                                                        \
	X(fd, int, dup3, NULL, int, int, int)                                                   \
	X(fd, int, close_range, NULL, unsigned, unsigned, int)                                  \
	X(fd, void, closefrom, NULL, int)

#define FXTP_FORWARD(W)                                                                         \
	W(nonlocal, setjmp, trampoline)                                                         \
	W(nonlocal, _setjmp, trampoline)                                                        \
	W(nonlocal, __sigsetjmp, trampoline)                                                    \
	W(log, vprintf, vfprintf)                                                               \
	W(log, __vprintf_chk, __vfprintf_chk)                                                   \
	W(log, fprintf, vfprintf)                                                               \
	W(log, printf, vfprintf)                                                                \
	W(log, __fprintf_chk, __vfprintf_chk)                                                   \
	W(log, __printf_chk, __vfprintf_chk)                                                    \
	W(log, syslog, vsyslog)                                                                 \
	W(log, __syslog_chk, __vsyslog_chk)                                                     \
	W(log, dprintf, vdprintf)                                                               \
	W(log, __dprintf_chk, __vdprintf_chk)                                                   \
	W(log, warn, vwarn)                                                                     \
	W(log, warnx, vwarnx)                                                                   \
	W(log, err, verr)                                                                       \
	W(log, errx, verrx)                                                                     \
	W(exec, execv, execve)                                                                  \
	W(exec, execvp, execvpe)                                                                \
	W(exec, execl, execve)                                                                  \
	W(exec, execle, execve)                                                                 \
	W(exec, execlp, execvpe)

/* signal(2)'s handler type, for the table above. */
typedef void fxtp_sighandler(int);

#endif
