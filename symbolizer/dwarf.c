/* The libdwfl session: modules reported from the module map with their ranges only, files
 * opened lazily on the first lookup in a module (the vDSO read from memory) with descriptors
 * kept out of the program's way, separate debuginfo found locally (build ID, .gnu_debuglink),
 * never through debuginfod, so a lookup never waits on the network. Names come from the ELF
 * symbol table (symtab.c), else from the DWARF subprogram; an unnamed address is placed in its
 * function by the .eh_frame FDE covering it. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

/* libdwfl keeps its files open until the session ends: move each one above the numbers a
 * program expects open() to return, close-on-exec, so the traced program sees the same fds. */
#define PARKED_FD_MIN 64

static int park_fd(int fd)
{
	int high = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, PARKED_FD_MIN) : -1;

	if (high < 0)
		return fd;
	close(fd);
	return high;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	Dwarf_Addr lo, hi;
	(void)userdata;

	if (base && base == getauxval(AT_SYSINFO_EHDR)) {
		/* The vDSO has no file: its whole image is mapped, read it in place. */
		dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
		*elfp = elf_memory((char *)(uintptr_t)lo, hi - lo);
		return -1;
	}
	int fd = park_fd(open(modname, O_RDONLY | O_CLOEXEC));
	if (fd >= 0 && !(*file_name = strdup(modname))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file at fd was built with mod: same GNU build ID, when mod has one. */
static int same_build(Dwfl_Module *mod, int fd)
{
	const unsigned char *id;
	const void *debug_id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);

	if (n <= 0)
		return 1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ssize_t m = elf ? dwelf_elf_gnu_build_id(elf, &debug_id) : -1;
	int same = m == n && !memcmp(id, debug_id, (size_t)n);
	elf_end(elf);
	return same;
}

/* Opens path as mod's debug file unless it is the module's own file or another build's. */
static int open_debug(Dwfl_Module *mod, const char *path, const char *file_name, char **debug_name)
{
	if (file_name && !strcmp(path, file_name))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (!same_build(mod, fd) || !(*debug_name = strdup(path)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Build ID under /usr/lib/debug/.build-id, then the .gnu_debuglink name beside the file, in its
 * .debug/ folder and under /usr/lib/debug (gdb's order), checked against the module's build ID
 * (a callback must: libdwfl trusts what it is given). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debug_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					      crc, debug_name);
	if (fd >= 0 || !debuglink || !file_name || strchr(debuglink, '/'))
		return park_fd(fd);
	char dir[PATH_MAX], path[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", file_name);
	char *d = dirname(dir);
	static const char *const fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && fd < 0; i++) {
		if (snprintf(path, sizeof(path), fmts[i], d, debuglink) < (int)sizeof(path))
			fd = open_debug(mod, path, file_name, debug_name);
	}
	return park_fd(fd);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

Dwfl *fxt_dwfl_new(void)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);

	if (!dwfl)
		errno = ENOMEM;
	return dwfl;
}

static int removed(Dwfl_Module *mod, void *userdata, const char *name, Dwarf_Addr base, void *arg)
{
	(void)userdata, (void)name, (void)base, (void)arg;
	fxt_symtab_free(mod);
	return DWARF_CB_OK;
}

int fxt_dwfl_report(Dwfl *dwfl, const struct fxt_modmap *map)
{
	/* dwfl_report_module keeps a module whose name and range are unchanged, files and
	 * symbol index included; modules not reported again are dropped by dwfl_report_end. */
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < map->n; i++)
		dwfl_report_module(dwfl, map->mods[i].path, map->mods[i].lo, map->mods[i].hi);
	return dwfl_report_end(dwfl, removed, NULL) ? -EIO : 0;
}

static int free_index(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		      void *arg)
{
	(void)userdata, (void)name, (void)base, (void)arg;
	fxt_symtab_free(mod);
	return DWARF_CB_OK;
}

void fxt_dwfl_end(Dwfl *dwfl)
{
	dwfl_getmodules(dwfl, free_index, NULL, 0);
	dwfl_end(dwfl);
}

/* Name of the innermost DWARF subprogram containing addr: linkage name first (mangled, so the
 * demangler gives the full C++ signature), else its plain name. */
static const char *dwarf_name(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;

	/* dwfl_module_addrdie needs .debug_aranges, which clang does not emit: walk the CUs. */
	if (!cu)
		while ((cu = dwfl_module_nextcu(mod, cu, &bias)) && dwarf_haspc(cu, addr - bias) <= 0)
			;
	if (!cu)
		return NULL;
	int n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && !name; i++) {
		static const unsigned attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
		Dwarf_Attribute attr;
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]) && !name; a++)
			name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], attrs[a], &attr));
	}
	free(scopes);
	return name;
}

char *fxt_dwfl_name(Dwfl *dwfl, uintptr_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	const char *name = NULL;

	if (mod) {
		name = fxt_symtab_find(mod, addr);
		if (!name)
			name = dwarf_name(mod, addr);
	}
	if (!name || !name[0]) {
		errno = ENOENT;
		return NULL;
	}
	/* Symbol versions ("memcpy@@GLIBC_2.14") are not part of the name. */
	size_t n = strcspn(name, "@");
	return strndup(name, n < FXT_SYM_NAME_MAX ? n : FXT_SYM_NAME_MAX);
}

/* Bytes of a DW_EH_PE value of format enc (low nibble), or 0 when not fixed-size. */
static size_t eh_size(unsigned char enc)
{
	switch (enc & 0x0f) {
	case 0x02: case 0x0a: return 2;		/* udata2, sdata2 */
	case 0x03: case 0x0b: return 4;		/* udata4, sdata4 */
	case 0x04: case 0x0c: return 8;		/* udata8, sdata8 */
	default: return 0;
	}
}

/* Greatest FDE start at or below the file address a in the module's .eh_frame_hdr search table
 * (the PT_GNU_EH_FRAME segment; LSB 3.0 "Exception Frame Header"): *lo, 0; -ENOENT without a
 * table of the usual encoding (datarel|sdata4 pairs, as ld, gold and lld write it). */
static int hdr_start(Elf *elf, Dwarf_Addr a, Dwarf_Addr *lo)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || strcmp(name, ".eh_frame_hdr") || sh.sh_type != SHT_PROGBITS)
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		const unsigned char *h = d ? d->d_buf : NULL;
		if (!h || d->d_size < 4 || h[0] != 1 || h[3] != 0x3b)
			return -ENOENT;
		size_t ptr = eh_size(h[1]), cnt = eh_size(h[2]);
		if (!ptr || cnt != 4 || 4 + ptr + cnt > d->d_size)
			return -ENOENT;
		uint32_t n;
		memcpy(&n, h + 4 + ptr, 4);
		const unsigned char *t = h + 4 + ptr + cnt;
		if (n > (d->d_size - (size_t)(t - h)) / 8)
			return -ENOENT;
		size_t l = 0, r = n;	/* first entry starting above a */
		while (l < r) {
			size_t m = l + (r - l) / 2;
			int32_t start;
			memcpy(&start, t + 8 * m, 4);
			if (sh.sh_addr + (Dwarf_Addr)(int64_t)start <= a)
				l = m + 1;
			else
				r = m;
		}
		if (!l)
			return -ENOENT;
		int32_t start;
		memcpy(&start, t + 8 * (l - 1), 4);
		*lo = sh.sh_addr + (Dwarf_Addr)(int64_t)start;
		return 0;
	}
	return -ENOENT;
}

int fxt_dwfl_func_start(Dwfl *dwfl, uintptr_t addr, uintptr_t *start)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias, lo;
	Dwarf_Frame *frame = NULL;

	/* .eh_frame only: .debug_frame would load the debug file, and a module with one has
	 * symbols or DWARF names already. dwarf_cfi_addrframe says whether an FDE covers addr
	 * (its frame's range is a row of the FDE, not the function); FDEs do not overlap, so the
	 * function starts at the nearest FDE start below, from .eh_frame_hdr's sorted table. */
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
		return -ENOENT;
	free(frame);
	Dwarf_Addr elf_bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &elf_bias);
	if (hdr_start(elf, addr - elf_bias, &lo))
		return -ENOENT;
	*start = (uintptr_t)(lo + elf_bias);
	return 0;
}
