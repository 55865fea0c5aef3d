/* Function address -> frame value (string ref, or skip/inline), behind each thread's cache: a
 * shared lock-free open-addressing map (readers never lock; one writer at a time under the
 * intern lock), and on first sight the symbolizer, the FXT_FILTER/FXT_EXCLUDE globs and a
 * string record written to the durable area before any event can use the index. Past 32767
 * strings names are kept in an arena and written inline in events. Slow path only. A name holds
 * while its code stays mapped: dlclose() (wrapped here) forgets the addresses of every object it
 * unloads, in the map (tombstones) and in every thread's cache, so that code loaded there next
 * (another library at the same address) is named afresh; samples taken in it are named from its
 * file at flush (sample-records.c). */
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

#include "preload/hot/emit.h"
#include "preload/base/fxtp.h"
#include "preload/hot/names.h"
#include "preload/base/real.h"
#include "symbolizer/symbolizer.h"
#include "writer/fields.h"

#define MAP_BITS 18u			/* 262144 functions */
#define MAP_SIZE (1u << MAP_BITS)
#define INLINE_MAX (1u << 20)		/* names beyond the string table */
#define ARENA_BYTES (256u << 20)	/* reserved, touched only as used */

#define TOMB ((uintptr_t)1)		/* a forgotten slot: never a function address */

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

/* ---- code unloaded by dlclose (life/unload.c) ---- */

int fxtp_names_ready(void)
{
	return map != NULL;
}

void fxtp_names_forget(uintptr_t lo, uintptr_t hi)
{
	for (uint32_t i = 0; i < MAP_SIZE; i++) {
		uintptr_t f = map[i].fn;
		if (f >= lo && f < hi)
			__atomic_store_n(&map[i].fn, TOMB, __ATOMIC_RELEASE);
	}
}

void fxtp_names_rescan(void)
{
	fxt_sym_refresh(sym);
}
