/* The exec family (execve, execv, execvp, execvpe, execl, execle, execlp, fexecve, execveat):
 * the image being replaced runs the exit flush first (its open frames end at the exec, its
 * archive is finished and named, or handed to fxtrun), and the new image of the same pid learns
 * which name comes next from FXTAUTO_IMAGE=<pid>.<seq>[.m<root>] added to its environment
 * (removed again by its constructor, so the program never sees it; .m<root>: the pid is a
 * member of the FXT_OUTPUT tree of process <root>, preload/transport/outname.c). If the exec fails, the continuing image
 * starts a new buffer as a fork child does (frames still open are its callers: paired, not
 * recorded); in a threaded process tracing stays off then (other threads hold chunks of the
 * finished file). A vfork child (other pid than the buffer's) and an untraced process pass
 * through untouched: no allocation, no flush. Errno is the real exec's. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/transport/buffer.h"
#include "preload/life/exec.h"
#include "preload/base/fxtp.h"
#include "preload/transport/grow.h"
#include "preload/life/flush.h"
#include "preload/transport/outname.h"
#include "preload/transport/provider.h"
#include "preload/base/real.h"
#include "preload/sampling/sampler.h"
#include "preload/sampling/sched.h"
#include "preload/hot/thread.h"

#define IMAGE_VAR "FXTAUTO_IMAGE="
#define IMAGE_LEN (sizeof(IMAGE_VAR) - 1)

int fxtp_exec_image(void)
{
	const char *v = getenv("FXTAUTO_IMAGE");
	int seq = -1;
	if (!v)
		return -1;
	char *end;
	long pid = strtol(v, &end, 10);
	if (*end == '.' && pid == (long)getpid()) {
		long n = strtol(end + 1, &end, 10);
		if (n >= 0 && n < 1000000)
			seq = (int)n;
	}
	long root = 0;
	if (seq >= 0 && *end == '.' && end[1] == 'm')
		root = strtol(end + 2, &end, 10);
	if (seq >= 0 && *end)
		seq = -1;
	else if (root > 0)
		fxtp_outname_set_member((int)root);
	unsetenv("FXTAUTO_IMAGE");
	return seq;
}

/* What before() saved for after(): the caller's frames and the next image's name number. */
struct exec_state {
	int traced;		/* the flush ran: after() restarts tracing */
	int seq;
	struct fxtp_frame *top;
	char var[48];
	char **env;		/* malloc'd environment with var, or NULL */
	int shed;		/* the new image runs without the tracer: noted in the session */
};

/* Whether envp keeps libfxtauto.so in LD_PRELOAD (the new image is traced). */
static int keeps_preload(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "LD_PRELOAD=", 11) && strstr(envp[i] + 11, "libfxtauto"))
			return 1;
	return 0;
}

/* Number of the program's threads (entries of /proc/self/task but the tracer's context switch
 * reader and buffer grower), 0 if unknown. */
static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	/* the tracer's own, ending or not */
	pid_t reader = fxtp_sched_reader(), grower = fxtp_grow_thread();
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.' && (!reader || atoi(e->d_name) != reader) &&
		     (!grower || atoi(e->d_name) != grower);
	closedir(d);
	return n;
}

/* envp with FXTAUTO_IMAGE replaced by st->var (malloc'd array; the strings are envp's), or
 * envp itself when out of memory (the next image then names itself as a first image would). */
static char *const *with_image(struct exec_state *st, char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	st->env = malloc((n + 2) * sizeof(char *));
	if (!st->env)
		return envp;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], IMAGE_VAR, IMAGE_LEN))
			st->env[k++] = envp[i];
	st->env[k++] = st->var;
	st->env[k] = NULL;
	return st->env;
}

/* Runs the exit flush for an exec of what (a path, for the session's note) and returns the
 * environment to exec with. */
static char *const *before(struct exec_state *st, const char *what, char *const envp[])
{
	fxtp_real_init();
	st->traced = 0;
	st->env = NULL;
	st->shed = 0;
	if (!fxtp_traced() || getpid() != fxtp.pid)
		return envp;	/* untraced, or a vfork child: the buffer is its parent's */
	int saved = errno;
	/* An exec that drops the preload (clearenv, unsetenv("LD_PRELOAD")) under fxtrun: said
	 * in the session, so that the summary names it (withdrawn if the exec fails). */
	if (fxtp_provider_managed() && !keeps_preload(envp))
		st->shed = fxtp_provider_note_shed(what) == 0;
	struct fxtp_thread *t = &fxtp_self;
	st->top = t->top;
	fxtp.at_exec = 1;
	fxtp_finish(0);
	fxtp.at_exec = 0;
	st->traced = 1;
	/* The next image: this image's name number when it gave its name up, else the next. */
	st->seq = fxtp.name_freed ? fxtp.name_seq : fxtp.name_seq + 1;
	int root = fxtp_outname_member();
	if (root)
		snprintf(st->var, sizeof(st->var), IMAGE_VAR "%d.%d.m%d", (int)fxtp.pid, st->seq,
			 root);
	else
		snprintf(st->var, sizeof(st->var), IMAGE_VAR "%d.%d", (int)fxtp.pid, st->seq);
	char *const *env = with_image(st, envp);
	errno = saved;
	return env;
}

/* The exec failed (errno is its error): trace the continuing image into a new buffer. */
static void after(struct exec_state *st)
{
	int saved = errno;
	free(st->env);
	if (st->shed)
		fxtp_provider_note_shed(NULL);
	if (!st->traced)
		return;
	struct fxtp_thread *t = &fxtp_self;
	if (thread_count() != 1) {
		fxtp_warn("exec failed in a threaded process; tracing stops here", NULL);
		errno = saved;
		return;
	}
	fxtp_enter(t);
	fxtp.name_seq = st->seq;
	if (t->base)
		t->top = st->top;	/* the frames written as ending at the exec: callers now */
	int rc = fxtp_open_buffer();
	if (rc < 0) {
		if (rc != -ECANCELED)
			fxtp_warn("cannot create a buffer after a failed exec; tracing off", NULL);
	} else {
		fxtp_threads_after_fork(t);
		fxtp_state_move(fxtp_state_word(), FXTP_STATE_RUNNING);
		fxtp_sample_start();
		fxtp_sched_start();
	}
	fxtp_leave(t);
	errno = saved;
}

/* One exec wrapper: the exit flush and the next image's environment before (before(), what
 * names the program), the real call (env: the environment to pass; ENOSYS or the raw system
 * call when the real function is missing), and tracing taken up again when it returns (a
 * failed exec: after()). */
#define EXEC(name, what, params, call)                               \
	FXTP_EXPORT int name params                                  \
	{                                                            \
		struct exec_state st;                                \
		char *const *env = before(&st, what, envp);          \
		int rc = call;                                       \
		after(&st);                                          \
		return rc;                                           \
	}
/* The real function, or -1 with errno ENOSYS. */
#define REAL_OR_ENOSYS(name, args) (fxtp_real.name ? fxtp_real.name args : (errno = ENOSYS, -1))

EXEC(execve, path, (const char *path, char *const argv[], char *const envp[]),
     fxtp_real.execve ? fxtp_real.execve(path, argv, env)
		      : (int)syscall(SYS_execve, path, argv, env))

FXTP_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXEC(execvpe, file, (const char *file, char *const argv[], char *const envp[]),
     REAL_OR_ENOSYS(execvpe, (file, argv, env)))

FXTP_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

EXEC(fexecve, argv[0] ? argv[0] : "(fexecve)", (int fd, char *const argv[], char *const envp[]),
     REAL_OR_ENOSYS(fexecve, (fd, argv, env)))
EXEC(execveat, path,
     (int dirfd, const char *path, char *const argv[], char *const envp[], int flags),
     fxtp_real.execveat ? fxtp_real.execveat(dirfd, path, argv, env, flags)
			: (int)syscall(SYS_execveat, dirfd, path, argv, env, flags))

/* Arguments of execl/execle/execlp counted, then copied into a stack array (no allocation: the
 * caller may be a vfork child), as glibc does. */
#define COLLECT_ARGS(arg, out)                                            \
	size_t n_ = 1;                                                   \
	va_list ap_;                                                     \
	va_start(ap_, arg);                                              \
	while (va_arg(ap_, const char *))                                \
		n_++;                                                    \
	va_end(ap_);                                                     \
	char *out[n_ + 1];                                               \
	out[0] = (char *)(arg);                                          \
	va_start(ap_, arg);                                              \
	for (size_t i_ = 1; i_ <= n_; i_++)                              \
		out[i_] = va_arg(ap_, char *);                           \
	va_end(ap_)

FXTP_EXPORT int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, argv);
	return execve(path, argv, environ);
}

FXTP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(arg, argv);
	return execvpe(file, argv, environ);
}

FXTP_EXPORT int execle(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, argv);
	/* the environment follows the terminating NULL */
	va_list ap;
	va_start(ap, arg);
	while (va_arg(ap, const char *))
		;
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
