/* Code unloaded by dlclose: the wrapper compares the loaded objects before and after the real
 * call; for each one gone, names.c forgets its names (shared map and every thread's cache), the
 * samples taken in it keep its file's name (sample-records.c), and the symbolizer rescans. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "preload/base/fxtp.h"
#include "preload/base/real.h"
#include "preload/hot/names.h"
#include "preload/hot/thread.h"
#include "preload/sampling/sampler.h"
#include "symbolizer/symbolizer.h"

#define MAX_OBJECTS 1024u		/* loaded objects compared around one dlclose */

struct object {
	uintptr_t lo, hi;	/* PT_LOAD span, from the first segment's aligned start */
	uintptr_t base;		/* load bias */
	uint32_t path;		/* offset of its name in objects.paths; 0: none kept */
};
struct objects {
	struct object o[MAX_OBJECTS];
	uint32_t n, used;
	char paths[MAX_OBJECTS * 64];	/* the names, for the samples of unloaded code */
};

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct objects *s = data;
	uintptr_t lo, hi;
	if (fxt_object_span(info, &lo, &hi) < 0 || s->n == MAX_OBJECTS)
		return 0;
	uint32_t path = 0;
	size_t len = info->dlpi_name ? strlen(info->dlpi_name) : 0;
	if (len && s->used + len + 2 <= sizeof(s->paths)) {
		path = s->used + 1;
		memcpy(s->paths + path, info->dlpi_name, len + 1);
		s->used += (uint32_t)len + 1;
	}
	s->o[s->n++] = (struct object){ lo, hi, info->dlpi_addr, path };
	return 0;
}

static void forget_cache(struct fxtp_thread *t, void *arg)
{
	const struct object *o = arg;
	for (uint32_t i = 0; i < FXTP_CACHE_SIZE; i++)
		if (t->cache[i].fn >= o->lo && t->cache[i].fn < o->hi)
			__atomic_store_n(&t->cache[i].fn, 0, __ATOMIC_RELAXED);
}

/* Forgets every name of code in [o->lo, o->hi): map slots become tombstones (lookups probe
 * past them), cache entries empty. Intern lock held. */
static void forget(const struct object *o)
{
	fxtp_names_forget(o->lo, o->hi);
	forget_cache(&fxtp_self, (void *)o);
	fxtp_threads_each(forget_cache, (void *)o, 1);
}

static struct objects before, after;	/* intern lock held while used */

/* dlclose: the objects it unloads (present before, gone after) have their names forgotten, and
 * the symbolizer rescans. The library's destructors run traced (no guard held across the real
 * call). Fails: as the real dlclose (ENOSYS-like -1 when it cannot be found). Thread-safe. */
FXTP_EXPORT int dlclose(void *handle)
{
	fxtp_real_init();
	if (!fxtp_real.dlclose)
		return -1;
	struct fxtp_thread *t = &fxtp_self;
	if (!fxtp_names_ready() || !fxtp_running() || !fxtp_enter(t))
		return fxtp_real.dlclose(handle);
	pthread_mutex_lock(&fxtp_names_lock);
	before.n = before.used = 0;
	dl_iterate_phdr(add_object, &before);
	pthread_mutex_unlock(&fxtp_names_lock);
	fxtp_leave(t);
	int ret = fxtp_real.dlclose(handle);
	if (!fxtp_enter(t))
		return ret;
	int err = errno;
	pthread_mutex_lock(&fxtp_names_lock);
	after.n = after.used = 0;
	dl_iterate_phdr(add_object, &after);
	for (uint32_t i = 0; i < before.n; i++) {
		uint32_t j = 0;
		while (j < after.n && (after.o[j].lo != before.o[i].lo ||
				       after.o[j].hi != before.o[i].hi))
			j++;
		if (j == after.n) {
			const struct object *o = &before.o[i];
			forget(o);
			fxtp_samples_unloaded(o->path ? before.paths + o->path : NULL, o->lo, o->hi,
					      o->base);
		}
	}
	fxtp_names_rescan();
	pthread_mutex_unlock(&fxtp_names_lock);
	errno = err;
	fxtp_leave(t);
	return ret;
}
