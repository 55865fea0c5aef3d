/* Public API of the symbolizer: one mutex around the module map and the libdwfl session, the
 * map rescanned when marked stale or when the loader added or removed objects, demangling done
 * after the mutex is released (it may enter the loader, which must never wait on our lock). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

struct fxt_sym {
	pthread_mutex_t lock;
	atomic_int stale;	/* set by fxt_sym_refresh, cleared by the rescan */
	Dwfl *dwfl;		/* guarded by lock */
	struct fxt_modmap map;	/* guarded by lock */
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
	return sym;
}

/* Rescans the loaded objects; on failure the previous map stays in use. Called under lock. */
static void rescan(struct fxt_sym *sym)
{
	struct fxt_modmap map;

	if (fxt_modmap_scan(&map))
		return;
	fxt_modmap_clear(&sym->map);
	sym->map = map;
	fxt_dwfl_report(sym->dwfl, &sym->map);
}

int fxt_sym_lookup(struct fxt_sym *sym, uintptr_t addr, char *buf, size_t buflen)
{
	char *raw = NULL;
	int len = 0;

	if (!sym || !buf || !buflen)
		return -EINVAL;
	pthread_mutex_lock(&sym->lock);
	/* The loader's counters cost one dl_iterate_phdr step: checked on every lookup, so a
	 * library dlclose'd and replaced at the same address is never named after the old one. */
	if (atomic_exchange(&sym->stale, 0) || fxt_modmap_changed(&sym->map))
		rescan(sym);
	const struct fxt_mod *mod = fxt_modmap_find(&sym->map, addr);
	if (mod && !(raw = fxt_dwfl_name(sym->dwfl, addr)) && errno == ENOMEM)
		len = -ENOMEM;
	else if (mod && !raw)
		len = snprintf(buf, buflen, "%s+0x%" PRIxPTR, mod->name, addr - mod->base);
	else if (!mod)
		len = snprintf(buf, buflen, "0x%" PRIxPTR, addr);
	pthread_mutex_unlock(&sym->lock);

	if (raw) {
		len = (int)fxt_demangle(raw, buf, buflen);
		free(raw);
	} else if (len > 0 && (size_t)len >= buflen) {
		len = (int)buflen - 1;	/* snprintf cut the name */
	}
	return len;
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
	fxt_modmap_clear(&sym->map);
	pthread_mutex_destroy(&sym->lock);
	free(sym);
}
