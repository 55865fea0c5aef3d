/* C++ demangling through libstdc++'s __cxa_demangle, found in the process without the loader:
 * by name in the symbol table of a loaded libstdc++ (global, or local under a dlopen'ed
 * plugin), so looking a name up never waits on the loader's lock, which a thread running an
 * instrumented constructor inside dlopen holds. The preload does not pull libstdc++ into C
 * programs; fxt_sym_lookup loads it only for a C++ name in a process that has none. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

int fxt_is_mangled(const char *name)
{
	return name[0] == '_' && name[1] == 'Z';
}

/* A module of libstdc++ still holds the cached function (libraries come and go). */
static int in_libstdcxx(const struct fxt_modmap *map, uintptr_t addr)
{
	const struct fxt_mod *mod = fxt_modmap_find(map, addr);

	return mod && !strncmp(mod->name, "libstdc++.so", 12);
}

fxt_demangle_fn *fxt_demangler(Dwfl *dwfl, const struct fxt_modmap *map, fxt_demangle_fn **cache)
{
	if (*cache && in_libstdcxx(map, (uintptr_t)*cache))
		return *cache;
	*cache = NULL;
	for (size_t i = 0; i < map->n && !*cache; i++) {
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, map->mods[i].lo);
		if (mod && in_libstdcxx(map, map->mods[i].lo))
			*cache = (fxt_demangle_fn *)fxt_symtab_addr(mod, "__cxa_demangle");
	}
	return *cache;
}

size_t fxt_demangle(fxt_demangle_fn *fn, const char *name, char *buf, size_t buflen)
{
	size_t cap = buflen - 1 < FXT_SYM_NAME_MAX ? buflen - 1 : FXT_SYM_NAME_MAX;
	char *out = NULL;
	int status = -1;

	if (fn && fxt_is_mangled(name))
		out = fn(name, NULL, NULL, &status);
	const char *src = out && status == 0 ? out : name;
	size_t n = strnlen(src, cap);
	memcpy(buf, src, n);
	buf[n] = '\0';
	free(out);
	return n;
}
