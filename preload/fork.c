/* fork(): pthread_atfork handlers. The parent holds the name-intern lock across fork so no
 * child inherits it mid-update; the child gets its own buffer (string records copied, so cached
 * indexes stay valid), its own archive path, a fresh thread registry, and marks the frames it
 * inherited as not its own (they pair with exits but are never recorded). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "preload/fxtp.h"
#include "preload/wait.h"

static void prepare(void)
{
	pthread_mutex_lock(&fxtp_names_lock);
}

static void parent(void)
{
	pthread_mutex_unlock(&fxtp_names_lock);
}

static void child(void)
{
	pthread_mutex_unlock(&fxtp_names_lock);
	if (!fxtp_running())
		return;
	struct fxtp_thread *t = &fxtp_self;
	fxtp_spawn_after_fork();
	fxtp.name_seq = 1;	/* FXT_OUTPUT.<pid> */
	int rc = fxtp_open_buffer();
	if (rc < 0) {
		__atomic_store_n(&fxtp_state, FXTP_STATE_STOPPING, __ATOMIC_RELEASE);
		if (rc != -ECANCELED)	/* -ECANCELED: fxtrun --no-follow (provider.c) */
			fxtp_warn("cannot create the buffer of a forked child; tracing off in it",
				  NULL);
		return;
	}
	fxtp_threads_after_fork(t);
}

int fxtp_fork_init(void)
{
	return -pthread_atfork(prepare, parent, child);
}
