/* Function address -> frame value (string ref, or skip/inline), behind each thread's cache: a
 * shared lock-free open-addressing map (readers never lock; one writer at a time under the
 * intern lock), and on first sight the symbolizer, the FXT_FILTER/FXT_EXCLUDE globs and a
 * string record written to the durable area before any event can use the index. Past 32767
 * strings names are kept in an arena and written inline in events. Slow path only. A name holds
 * while its code stays mapped: dlclose() (wrapped here) forgets the addresses of every object it
 * unloads, in the map (tombstones) and in every thread's cache, so that code loaded there next
 * (another library at the same address) is named afresh; samples taken in it are named from its
 * file at flush (samples.c). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/emit.h"
#include "preload/fxtp.h"
#include "preload/names.h"
#include "preload/real.h"
#include "preload/sample.h"
#include "preload/trigger.h"
#include "preload/thread.h"
#include "symbolizer/symbolizer.h"
#include "writer/fields.h"

#define MAP_BITS 18u			/* 262144 functions */
#define MAP_SIZE (1u << MAP_BITS)
#define INLINE_MAX (1u << 20)		/* names beyond the string table */
#define ARENA_BYTES (256u << 20)	/* reserved, touched only as used */

#define TOMB ((uintptr_t)1)		/* a forgotten slot: never a function address */
#define MAX_OBJECTS 1024u		/* loaded objects compared around one dlclose */

struct slot {
	uintptr_t fn;	/* 0: empty; TOMB: forgotten; stored last with release */
	uint32_t v;
};
struct inl {
	uint64_t off;
	uint32_t len;
};

static struct slot *map;
static struct inl *inl;
static char *arena;
static uint64_t arena_used;
static uint32_t ninl, nmap;
static uint32_t next_index = 1;
static struct fxt_sym *sym;
static char namebuf[FXT_SYM_NAME_MAX + 1];
pthread_mutex_t fxtp_names_lock = PTHREAD_MUTEX_INITIALIZER;

static void *reserve(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int fxtp_names_init(void)
{
	map = reserve(sizeof(*map) * MAP_SIZE);
	inl = reserve(sizeof(*inl) * INLINE_MAX);
	arena = reserve(ARENA_BYTES);
	sym = fxt_sym_new();
	if (!map || !inl || !arena || !sym)
		return -ENOMEM;
	return 0;
}

static uint32_t hash(uintptr_t fn)
{
	return (uint32_t)(((uint64_t)fn * 0x9e3779b97f4a7c15ULL) >> (64 - MAP_BITS));
}

static int lookup(uintptr_t fn, uint32_t *v)
{
	for (uint32_t i = hash(fn), n = 0; n < MAP_SIZE; i = (i + 1) & (MAP_SIZE - 1), n++) {
		uintptr_t f = __atomic_load_n(&map[i].fn, __ATOMIC_ACQUIRE);
		if (f == fn) {
			*v = map[i].v;
			return 1;
		}
		if (!f)
			return 0;
	}
	return 0;
}

/* Writer side, intern lock held. A full map (3/4) stores nothing: the name is looked up again. */
static void insert(uintptr_t fn, uint32_t v)
{
	if (nmap >= MAP_SIZE / 4 * 3)
		return;
	uint32_t i = hash(fn);
	while (map[i].fn)
		i = (i + 1) & (MAP_SIZE - 1);
	map[i].v = v;
	__atomic_store_n(&map[i].fn, fn, __ATOMIC_RELEASE);
	nmap++;
}

/* Does name match one of the comma-separated globs? */
static int match_any(const char *globs, const char *name)
{
	char pat[1024];
	while (*globs) {
		size_t n = strcspn(globs, ",");
		if (n && n < sizeof(pat)) {
			memcpy(pat, globs, n);
			pat[n] = 0;
			if (fnmatch(pat, name, 0) == 0)
				return 1;
		}
		globs += n + (globs[n] == ',');
	}
	return 0;
}

static uint32_t intern(const char *name, uint32_t len)
{
	if (next_index <= FXT_STRING_MAX_INDEX) {
		if (fxtp_emit_string(next_index, name, len) < 0)
			return FXTP_V_SKIP;	/* durable area full: tracing of new names stops */
		return next_index++;
	}
	if (ninl >= INLINE_MAX || arena_used + len > ARENA_BYTES)
		return FXTP_V_SKIP;
	inl[ninl].off = arena_used;
	inl[ninl].len = len;
	memcpy(arena + arena_used, name, len);
	arena_used += len;
	return FXTP_V_INLINE | ninl++;
}

/* A string that is not a function name (<fxt/trace.h>, api.c): the next string index with its
 * string record written, or 0 when the table or the durable area is full (the caller writes
 * the string inline). Takes the intern lock. */
uint32_t fxtp_name_index(const char *s, uint32_t len)
{
	uint32_t index = 0;
	pthread_mutex_lock(&fxtp_names_lock);
	if (next_index <= FXT_STRING_MAX_INDEX && fxtp_emit_string(next_index, s, len) == 0)
		index = next_index++;
	pthread_mutex_unlock(&fxtp_names_lock);
	return index;
}

static uint32_t first_sight(uintptr_t fn)
{
	uint32_t v;
	pthread_mutex_lock(&fxtp_names_lock);
	if (!lookup(fn, &v)) {
		int n = fxt_sym_lookup(sym, fn, namebuf, sizeof(namebuf));
		if (n <= 0)
			n = snprintf(namebuf, sizeof(namebuf), "0x%lx", (unsigned long)fn);
		if ((fxtp.filter && !match_any(fxtp.filter, namebuf)) ||
		    (fxtp.exclude && match_any(fxtp.exclude, namebuf)))
			v = FXTP_V_SKIP;
		else
			v = intern(namebuf, (uint32_t)n);
		insert(fn, v);
	}
	pthread_mutex_unlock(&fxtp_names_lock);
	return v;
}

uint32_t fxtp_name_value(uintptr_t fn, int symbolize)
{
	uint32_t v;
	if (!lookup(fn, &v))
		v = symbolize ? first_sight(fn) : FXTP_V_DEFER;
	return v;
}

uint64_t fxtp_name_tag(const struct fxtp_thread *t, uint32_t v)
{
	return v < t->fastlimit ? t->hdr_base | fxt_field_prep(FXT_EVENT_NAME_REF, v)
				: fxtp_tag_slow(v);
}

__attribute__((noinline)) uint64_t fxtp_name_miss(struct fxtp_thread *t, uintptr_t fn,
						  struct fxtp_cache_ent *c)
{
	uint64_t tag = fxtp_name_tag(t, fxtp_name_value(fn, 1));
	if (fxtp_trigger_kind(fn))
		return tag;	/* never cached: its entries must reach the slow path */
	c->tag = tag;
	c->fn = fn;
	return tag;
}

int fxtp_names_find(const char *name, uintptr_t *out, size_t max)
{
	pthread_mutex_lock(&fxtp_names_lock);
	int n = fxt_sym_find(sym, name, out, max);
	pthread_mutex_unlock(&fxtp_names_lock);
	return n < 0 ? 0 : n;
}

const char *fxtp_name_slot(uint32_t v, uint32_t *len)
{
	const struct inl *e = &inl[v & FXTP_V_SLOT_MASK];
	*len = e->len;
	return arena + e->off;
}

/* ---- code unloaded by dlclose ---- */

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
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t align = ph->p_align ? ph->p_align : 1;
		uintptr_t a = info->dlpi_addr + (ph->p_vaddr & ~(align - 1));
		if (a < lo)
			lo = a;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo || s->n == MAX_OBJECTS)
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
	for (uint32_t i = 0; i < MAP_SIZE; i++) {
		uintptr_t f = map[i].fn;
		if (f >= o->lo && f < o->hi)
			__atomic_store_n(&map[i].fn, TOMB, __ATOMIC_RELEASE);
	}
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
	if (!map || !fxtp_running() || !fxtp_enter(t))
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
	fxt_sym_refresh(sym);
	pthread_mutex_unlock(&fxtp_names_lock);
	errno = err;
	fxtp_leave(t);
	return ret;
}
