/* Public API of the symbolizer: one mutex around the module map, the libdwfl session and the
 * demangler; the map rescanned when marked stale or when the loader added or removed objects.
 * Nothing under the mutex waits on the loader's lock (a thread inside dlopen may be running an
 * instrumented constructor that looks a name up): the only loader call, dlopen of libstdc++
 * as a last resort, happens after the mutex is released. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

struct fxt_sym {
	pthread_mutex_t lock;
	atomic_int stale;		/* set by fxt_sym_refresh, cleared by the rescan */
	atomic_flag loaded_cxx;		/* libstdc++ dlopen'ed by us, at most once */
	Dwfl *dwfl;			/* guarded by lock, as are the fields below */
	struct fxt_modmap map;
	fxt_demangle_fn *demangler;
	Dwfl *past;			/* objects no longer loaded (fxt_sym_lookup_unloaded), or
					 * NULL until the first such lookup */
};

struct fxt_sym *fxt_sym_new(void)
{
	struct fxt_sym *sym = calloc(1, sizeof(*sym));

	if (!sym)
		return NULL;
	sym->dwfl = fxt_dwfl_new();
	if (!sym->dwfl) {
		free(sym);
		return NULL;
	}
	pthread_mutex_init(&sym->lock, NULL);
	atomic_init(&sym->stale, 1);
	atomic_flag_clear(&sym->loaded_cxx);
	return sym;
}

/* Rescans the loaded objects; on failure the previous map stays in use. */
static void rescan(struct fxt_sym *sym)
{
	struct fxt_modmap map;

	if (fxt_modmap_scan(&map))
		return;
	fxt_modmap_clear(&sym->map);
	sym->map = map;
	fxt_dwfl_report(sym->dwfl, &sym->map);
}

/* snprintf's result as the length written into buflen bytes. */
static int cut(int n, size_t buflen)
{
	return n < 0 ? -EINVAL : (size_t)n >= buflen ? (int)(buflen - 1) : n;
}

/* The name of addr in mod (NULL: none holds it) of the session dwfl, lock held. *need_cxx: a
 * C++ name met a process without libstdc++. */
static int name_in(struct fxt_sym *sym, Dwfl *dwfl, const struct fxt_mod *mod, uintptr_t addr,
		   char *buf, size_t buflen, int *need_cxx)
{
	if (!mod)
		return cut(snprintf(buf, buflen, "0x%" PRIxPTR, addr), buflen);
	char *raw = fxt_dwfl_name(dwfl, addr);
	if (!raw && errno == ENOMEM)
		return -ENOMEM;
	if (!raw) {
		/* No symbol (a stripped object): the start of the function by its FDE, so the
		 * addresses of one function share one name; addr itself when no FDE covers it. */
		uintptr_t start = addr;
		if (fxt_dwfl_func_start(dwfl, addr, &start) || start < mod->base)
			start = addr;
		return cut(snprintf(buf, buflen, "%s+0x%" PRIxPTR, mod->name, start - mod->base), buflen);
	}
	fxt_demangle_fn *fn = NULL;
	if (fxt_is_mangled(raw) && !(fn = fxt_demangler(sym->dwfl, &sym->map, &sym->demangler)))
		*need_cxx = 1;
	int len = (int)fxt_demangle(fn, raw, buf, buflen);
	free(raw);
	return len;
}

/* The lookup proper, lock held. */
static int lookup_locked(struct fxt_sym *sym, uintptr_t addr, char *buf, size_t buflen,
			 int *need_cxx)
{
	/* The loader's counters cost one dl_iterate_phdr step: checked on every lookup, so a
	 * library dlclose'd and replaced at the same address is never named after the old one. */
	if (atomic_exchange(&sym->stale, 0) || fxt_modmap_changed(&sym->map))
		rescan(sym);
	return name_in(sym, sym->dwfl, fxt_modmap_find(&sym->map, addr), addr, buf, buflen,
		       need_cxx);
}

int fxt_sym_lookup(struct fxt_sym *sym, uintptr_t addr, char *buf, size_t buflen)
{
	int len, need_cxx = 0;

	if (!sym || !buf || !buflen)
		return -EINVAL;
	pthread_mutex_lock(&sym->lock);
	len = lookup_locked(sym, addr, buf, buflen, &need_cxx);
	pthread_mutex_unlock(&sym->lock);
	/* C++ code without libstdc++ loaded (linked --as-needed and never used): load it once
	 * and for good, so its names are demangled like everyone else's. */
	if (need_cxx && !atomic_flag_test_and_set(&sym->loaded_cxx) &&
	    dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)) {
		pthread_mutex_lock(&sym->lock);
		len = lookup_locked(sym, addr, buf, buflen, &need_cxx);
		pthread_mutex_unlock(&sym->lock);
	}
	return len;
}

int fxt_sym_lookup_unloaded(struct fxt_sym *sym, const struct fxt_sym_object *obj,
			    uintptr_t addr, char *buf, size_t buflen)
{
	int len, need_cxx = 0;

	if (!sym || !obj || !obj->path || !buf || !buflen)
		return -EINVAL;
	const char *slash = strrchr(obj->path, '/');
	struct fxt_mod mod = {
		.lo = obj->lo, .hi = obj->hi, .base = obj->base,
		.path = (char *)obj->path, .name = slash ? slash + 1 : obj->path,
	};
	struct fxt_modmap one = { .mods = &mod, .n = 1 };
	pthread_mutex_lock(&sym->lock);
	if (!sym->past)
		sym->past = fxt_dwfl_new();
	/* The session keeps the object's file and index while it is asked about again. */
	if (!sym->past || fxt_dwfl_report(sym->past, &one) < 0)
		len = name_in(sym, NULL, NULL, addr, buf, buflen, &need_cxx);
	else
		len = name_in(sym, sym->past, addr >= mod.lo && addr < mod.hi ? &mod : NULL, addr,
			      buf, buflen, &need_cxx);
	pthread_mutex_unlock(&sym->lock);
	return len;
}

struct find {
	const char *name;
	fxt_demangle_fn *fn;
	uintptr_t *out;
	size_t max, n;
};

static int find_in(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr start,
		   void *arg)
{
	struct find *f = arg;
	(void)userdata, (void)modname, (void)start;
	fxt_symtab_find_all(mod, f->name, f->fn, f->out, f->max, &f->n);
	return f->n < f->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int fxt_sym_find(struct fxt_sym *sym, const char *name, uintptr_t *out, size_t max)
{
	if (!sym || !name || !*name || !out)
		return -EINVAL;
	struct find f = { name, NULL, out, max, 0 };
	pthread_mutex_lock(&sym->lock);
	if (atomic_exchange(&sym->stale, 0) || fxt_modmap_changed(&sym->map))
		rescan(sym);
	/* A C++ name as written by fxt_sym_lookup ("ns::f(int)") is compared demangled. */
	if (strpbrk(name, "(:<"))
		f.fn = fxt_demangler(sym->dwfl, &sym->map, &sym->demangler);
	if (max)
		dwfl_getmodules(sym->dwfl, find_in, &f, 0);
	pthread_mutex_unlock(&sym->lock);
	return (int)f.n;
}

void fxt_sym_refresh(struct fxt_sym *sym)
{
	if (sym)
		atomic_store(&sym->stale, 1);
}

void fxt_sym_free(struct fxt_sym *sym)
{
	if (!sym)
		return;
	fxt_dwfl_end(sym->dwfl);
	if (sym->past)
		fxt_dwfl_end(sym->past);
	fxt_modmap_clear(&sym->map);
	pthread_mutex_destroy(&sym->lock);
	free(sym);
}
