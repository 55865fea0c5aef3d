/* Per-module function index: the module's symbol table (whichever libdwfl picked: .symtab,
 * the debug file's, or .dynsym) read once, sorted by address, then searched in O(log n);
 * libdwfl's own dwfl_module_addrinfo scans every symbol on each call (45 us in libc).
 * The index hangs off the module's userdata slot and lives as long as the module. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/order.h"
#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

struct fsym {
	uintptr_t lo, hi;	/* hi = lo + 1 for a sizeless symbol: it names its own address only */
	const char *name;	/* in the ELF string table, alive with the module */
	int rank;		/* 0 global, 1 weak, 2 local: the preferred of aliases comes first */
};

struct symidx {
	size_t n;
	struct fsym v[];
};

static int rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* By address, then preferred binding, then fewer leading underscores, then name: a stable
 * choice among aliases. */
static int cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	int c = fxt_cmp_u64(x->lo, y->lo);

	if (!c)
		c = x->rank - y->rank;
	if (!c)
		c = fxt_cmp_u64(strspn(x->name, "_"), strspn(y->name, "_"));
	return c ? c : strcmp(x->name, y->name);
}

static struct symidx *build(Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);
	struct symidx *idx = malloc(sizeof(*idx) + (n > 0 ? (size_t)n : 0) * sizeof(struct fsym));

	if (!idx)
		return NULL;
	idx->n = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE))
			continue;
		idx->v[idx->n++] = (struct fsym){
			.lo = addr, .hi = addr + (sym.st_size ? sym.st_size : 1),
			.name = name, .rank = rank(sym.st_info),
		};
	}
	qsort(idx->v, idx->n, sizeof(idx->v[0]), cmp);
	return idx;
}

const char *fxt_symtab_find(Dwfl_Module *mod, uintptr_t addr)
{
	void **slot;

	dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*slot && !(*slot = build(mod)))
		return NULL;
	const struct symidx *idx = *slot;
	size_t lo = 0, hi = idx->n;
	while (lo < hi) {	/* first entry with v.lo > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (idx->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Entries starting at or below addr, nearest first: the first that covers it wins; a
	 * bounded look back catches a large symbol that encloses small ones. */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 8; seen++) {
		size_t first = i;
		while (first > 0 && idx->v[first - 1].lo == idx->v[i].lo)
			first--;
		for (size_t j = first; j <= i; j++)
			if (addr < idx->v[j].hi)
				return idx->v[j].name;
		i = first;
	}
	return NULL;
}

void fxt_symtab_free(Dwfl_Module *mod)
{
	void **slot;

	dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
	free(*slot);
	*slot = NULL;
}

uintptr_t fxt_symtab_addr(Dwfl_Module *mod, const char *name)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *s = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (s && shndx != SHN_UNDEF && GELF_ST_TYPE(sym.st_info) == STT_FUNC && !strcmp(s, name))
			return addr;
	}
	return 0;
}

void fxt_symtab_find_all(Dwfl_Module *mod, const char *name, fxt_demangle_fn *fn, uintptr_t *out,
			 size_t max, size_t *n)
{
	int count = dwfl_module_getsymtab(mod);
	char buf[FXT_SYM_NAME_MAX + 1];

	for (int i = 1; i < count && *n < max; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *s = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (!s || shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !addr)
			continue;
		if (strcmp(s, name) &&
		    !(fn && fxt_is_mangled(s) && fxt_demangle(fn, s, buf, sizeof(buf)) &&
		      !strcmp(buf, name)))
			continue;
		size_t j = 0;
		while (j < *n && out[j] != (uintptr_t)addr)
			j++;
		if (j == *n)
			out[(*n)++] = (uintptr_t)addr;
	}
}
