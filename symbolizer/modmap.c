/* Module map of the running process from dl_iterate_phdr: the main program (PIE or not), its
 * shared libraries, dlopen'ed ones and the vDSO, each with its address range, load bias and
 * absolute path. The loader's add/remove counters tell when a rescan is due. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common/grow.h"
#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

/* Path of the main program: dl_iterate_phdr names it "". */
static char *exe_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n > 0) {
		buf[n] = '\0';
		return strdup(buf);
	}
	const char *fn = (const char *)getauxval(AT_EXECFN);
	return fn ? realpath(fn, NULL) : NULL;
}

/* Absolute path of a loaded object (dlopen may have been given a relative one). */
static char *object_path(const struct dl_phdr_info *info, int first)
{
	const char *name = info->dlpi_name;

	if (!name || !name[0])
		return first ? exe_path() : NULL;
	if (name[0] != '/') {
		char *abs = realpath(name, NULL);
		if (abs)
			return abs;
	}
	return strdup(name);
}

struct scan {
	struct fxt_modmap *map;
	size_t cap, seen;
	int err;
};

int fxt_object_span(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t align = ph->p_align ? ph->p_align : 1;
		uintptr_t start = info->dlpi_addr + (ph->p_vaddr & ~(align - 1));
		uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		if (!*hi)
			*lo = start;
		if (end > *hi)
			*hi = end;
	}
	return *hi > *lo ? 0 : -1;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	struct fxt_modmap *map = s->map;
	uintptr_t lo, hi;
	int first = s->seen++ == 0;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		map->adds = info->dlpi_adds;
		map->subs = info->dlpi_subs;
	}
	if (fxt_object_span(info, &lo, &hi) < 0)
		return 0;
	char *path = object_path(info, first);
	if (!path)
		return 0;
	if (FXT_GROW(map->mods, &s->cap, map->n + 1) < 0) {
		free(path);
		s->err = -ENOMEM;
		return 1;
	}
	const char *slash = strrchr(path, '/');
	map->mods[map->n++] = (struct fxt_mod){
		.lo = lo, .hi = hi, .base = info->dlpi_addr,
		.path = path, .name = slash ? slash + 1 : path,
	};
	return 0;
}

int fxt_modmap_scan(struct fxt_modmap *map)
{
	struct scan s = { .map = map };

	*map = (struct fxt_modmap){ 0 };
	dl_iterate_phdr(add_object, &s);
	if (s.err)
		fxt_modmap_clear(map);
	return s.err;
}

void fxt_modmap_clear(struct fxt_modmap *map)
{
	for (size_t i = 0; i < map->n; i++)
		free(map->mods[i].path);
	free(map->mods);
	*map = (struct fxt_modmap){ 0 };
}

const struct fxt_mod *fxt_modmap_find(const struct fxt_modmap *map, uintptr_t addr)
{
	for (size_t i = 0; i < map->n; i++)
		if (addr >= map->mods[i].lo && addr < map->mods[i].hi)
			return &map->mods[i];
	return NULL;
}

/* Reads the counters from the first object only: they are global to the loader. */
static int read_counters(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

int fxt_modmap_changed(const struct fxt_modmap *map)
{
	unsigned long long c[2] = { 0, 0 };

	dl_iterate_phdr(read_counters, c);
	return c[0] != map->adds || c[1] != map->subs || (c[0] == 0 && c[1] == 0);
}
