/* fork(): the one set of pthread_atfork handlers of the preload, registered once by fxtp_init,
 * and the fork wrapper, which counts the child in the FXT_OUTPUT tree (outname.c) before the
 * fork so that no process ends the tree while a child is not counted yet.
 * The parent holds every intern lock across fork so no child inherits one mid-update; the child
 * gets its own buffer (string records copied, so cached indexes stay valid), its own archive
 * path, a fresh thread registry, and marks the frames it inherited as not its own (they pair
 * with exits but are never recorded); then each part that keeps state starts over.
 * Left out: sampler.c registers its own child handler when sampling starts (it runs after
 * these: a handler registered later runs later in the child). A registered child (FXT_REGISTER)
 * then registers anew: manager-link.c starts its own provider thread last. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "preload/transport/buffer.h"
#include "preload/base/fxtp.h"
#include "preload/events/api.h"
#include "preload/events/uobj.h"
#include "preload/life/fork.h"
#include "preload/hot/names.h"
#include "preload/transport/outname.h"
#include "preload/base/real.h"
#include "preload/transport/manager-link.h"
#include "preload/sampling/sched.h"
#include "preload/hot/thread.h"
#include "preload/events/spawn.h"

/* The order. prepare takes the locks outermost first, as the code that holds them nests them:
 * uobj.c's label lock (a label is interned under it), api.c's intern lock, then names.c's
 * (taken last by both). parent and child release them innermost first. The child then sets up
 * the process's own buffer before any part writes into it: sched.c restarts its reader (it
 * writes records), api.c starts a new site generation. This is the order the separate
 * registrations ran in before they were merged (prepare handlers run in reverse order of
 * registration, parent and child handlers in order). */
static void prepare(void)
{
	fxtp_uobj_fork_prepare();
	fxtp_api_fork_prepare();
	pthread_mutex_lock(&fxtp_names_lock);
}

static void parent(void)
{
	pthread_mutex_unlock(&fxtp_names_lock);
	fxtp_api_fork_parent();
	fxtp_uobj_fork_release();
}

/* The child's own buffer, name and thread registry (tracing stops in it if that fails). */
static void child_buffer(void)
{
	if (!fxtp_traced())
		return;
	struct fxtp_thread *t = &fxtp_self;
	fxtp_spawn_after_fork();
	fxtp.name_seq = 1;	/* FXT_OUTPUT.<pid> */
	fxtp_outname_set_member(0);	/* the fork wrapper counts it; other forks do not */
	int rc = fxtp_open_buffer();
	if (rc < 0) {
		fxtp_state_move(fxtp_state_word(), FXTP_STATE_STOPPING);
		if (rc != -ECANCELED)	/* -ECANCELED: fxtrun --no-follow (provider.c) */
			fxtp_warn("cannot create the buffer of a forked child; tracing off in it",
				  NULL);
		return;
	}
	fxtp_threads_after_fork(t);
}

static void child(void)
{
	pthread_mutex_unlock(&fxtp_names_lock);
	fxtp_thread_forked();	/* traced or not: the parent's other threads are not here */
	child_buffer();
	fxtp_sched_fork_child();
	fxtp_api_fork_child();
	fxtp_uobj_fork_release();
	fxtp_link_fork_child();
}

int fxtp_fork_init(void)
{
	return -pthread_atfork(prepare, parent, child);
}

FXTP_EXPORT pid_t fork(void)
{
	fxtp_real_init();
	int counted = fxtp_outname_fork_prepare();
	pid_t pid = -1;
	if (fxtp_real.fork)
		pid = fxtp_real.fork();
	else
		errno = ENOSYS;
	int saved = errno;
	fxtp_outname_fork_done(counted, pid);
	errno = saved;
	return pid;
}
