/* Internal interfaces between the symbolizer's files: the module map (modmap.c), the libdwfl
 * session (dwarf.c), the symbol index (symtab.c) and the demangler (demangle.c). Everything
 * here runs under the symbolizer's lock. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_SYMBOLIZER_INTERNAL_H
#define FXT_SYMBOLIZER_INTERNAL_H
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

/* One loaded ELF object: [lo, hi) spans its PT_LOAD segments, base is the load bias. */
struct fxt_mod {
	uintptr_t lo, hi, base;
	char *path;		/* absolute file path (the vDSO keeps its loader name) */
	const char *name;	/* basename of path, for "module+0xoffset" */
};

struct fxt_modmap {
	struct fxt_mod *mods;
	size_t n;
	unsigned long long adds, subs;	/* loader counters when scanned (dl_phdr_info) */
};

/* Scans the loaded objects into *map (empty on entry). Fails: -ENOMEM, map left empty. */
int fxt_modmap_scan(struct fxt_modmap *map);
void fxt_modmap_clear(struct fxt_modmap *map);
/* The module whose [lo, hi) holds addr, or NULL. */
const struct fxt_mod *fxt_modmap_find(const struct fxt_modmap *map, uintptr_t addr);
/* Non-zero when objects were loaded or unloaded since map was scanned. */
int fxt_modmap_changed(const struct fxt_modmap *map);

/* A libdwfl session whose files open lazily, on the first lookup in each module. NULL: ENOMEM. */
Dwfl *fxt_dwfl_new(void);
/* Makes the session's modules those of map, keeping the already opened ones. Fails: -EIO. */
int fxt_dwfl_report(Dwfl *dwfl, const struct fxt_modmap *map);
/* Ends the session, symbol indexes included. */
void fxt_dwfl_end(Dwfl *dwfl);
/* The raw (maybe mangled) name of the function covering addr, malloc'ed, cut to
 * FXT_SYM_NAME_MAX bytes; NULL when none covers it (errno ENOENT) or on ENOMEM. */
char *fxt_dwfl_name(Dwfl *dwfl, uintptr_t addr);
/* Start address of the function covering addr by the call frame information (the .eh_frame FDE,
 * which stripped objects keep for unwinding): *start, 0; -ENOENT when no FDE covers addr. */
int fxt_dwfl_func_start(Dwfl *dwfl, uintptr_t addr, uintptr_t *start);

/* __cxa_demangle's C ABI (libstdc++, <cxxabi.h>). */
typedef char *fxt_demangle_fn(const char *mangled, char *out, size_t *len, int *status);

/* Name of the function symbol covering addr in mod, or NULL (none, or ENOMEM). The module's
 * sorted index is built on first use and kept in its userdata slot until fxt_symtab_free. */
const char *fxt_symtab_find(Dwfl_Module *mod, uintptr_t addr);
void fxt_symtab_free(Dwfl_Module *mod);
/* Address of the defined function called name in mod's symbol table, or 0. Linear: rare use. */
uintptr_t fxt_symtab_addr(Dwfl_Module *mod, const char *name);
/* Appends to out[*n, max) the addresses of mod's defined functions whose symbol is name, or
 * whose symbol demangled through fn (NULL: none) is name; each address once. Linear. */
void fxt_symtab_find_all(Dwfl_Module *mod, const char *name, fxt_demangle_fn *fn, uintptr_t *out,
			 size_t max, size_t *n);


/* Non-zero for an Itanium C++ ABI name ("_Z..."). */
int fxt_is_mangled(const char *name);
/* __cxa_demangle of a libstdc++ in map, or NULL when none is loaded; *cache keeps the last
 * answer while its library stays loaded. Takes no loader lock. */
fxt_demangle_fn *fxt_demangler(Dwfl *dwfl, const struct fxt_modmap *map, fxt_demangle_fn **cache);
/* Copies name to buf (buflen > 0), demangled through fn (may be NULL) when it is a C++ name,
 * cut to min(buflen - 1, FXT_SYM_NAME_MAX). Returns the length written. */
size_t fxt_demangle(fxt_demangle_fn *fn, const char *name, char *buf, size_t buflen);

#endif
