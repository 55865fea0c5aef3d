/* lib-fork-orphan.so: preloaded after libfxtauto.so (LD_PRELOAD="libfxtauto.so:this"), it holds
 * a fork child in its child handler (which runs before the tracer's: registered first, its
 * constructor running first) until the parent has ended (at most 60 s), so that the tracer's
 * child handler runs only after the parent finished its archive: a parent that exits right
 * after fork (`sh -c 'prog &'`) has compacted and truncated the file whose string records the
 * child copies. Without a parent that ends, it changes nothing. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static pid_t parent;

static void prepare(void)
{
	parent = getpid();
}

static void child(void)
{
	struct timespec tick = { 0, 1000000 };
	for (int i = 0; i < 60000 && getppid() == parent; i++)
		nanosleep(&tick, NULL);
}

__attribute__((constructor)) static void init(void)
{
	pthread_atfork(prepare, NULL, child);
}
