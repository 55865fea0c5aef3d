/* Symbolizer claims: static and exported functions of the program, of a linked library, of
 * dlopen'ed libraries (plain, separate or stale debuginfo, DWARF only), of the vDSO, demangled
 * C++ methods, the module+0xoffset fallback, cut names, names found back as addresses
 * (fxt_sym_find), stability over repeated lookups and 4 threads at once. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"
#include "symbolizer/symbolizer.h"

int lib_exported(int x);
uintptr_t lib_hidden_addr(void);
uintptr_t cpp_method_addr(void);

__attribute__((noinline)) static int static_fn(int x)
{
	return x + 1;
}

__attribute__((noinline, visibility("default"))) int exported_fn(int x)
{
	return static_fn(x) * 2;
}

/* A weak alias at exported_fn's address: the global name must win, whatever the order. */
int aaa_weak_alias(int x) __attribute__((weak, alias("exported_fn")));

/* A function whose symbol is 40000 bytes long: its name must come back cut to the limit. */
#define A10 "aaaaaaaaaa"
#define A100 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#define A1000 A100 A100 A100 A100 A100 A100 A100 A100 A100 A100
#define A10000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000 A1000
__attribute__((noinline)) int long_fn(int x) __asm__(A10000 A10000 A10000 A10000);
__attribute__((noinline)) int long_fn(int x)
{
	return x - 1;
}

static char name[FXT_SYM_NAME_MAX + 1];

static const char *lookup(struct fxt_sym *sym, uintptr_t addr)
{
	int n = fxt_sym_lookup(sym, addr, name, sizeof(name));
	return n < 0 ? "(error)" : name;
}

/* Whether the ELF file at path has name in a symbol table (so a test relying on its absence
 * cannot pass by accident when a build step did not strip it). */
static int has_symbol(const char *path, const char *want)
{
	int fd = open(path, O_RDONLY), found = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)) && !found) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n = gelf_getsym(data, (int)i, &s) ? elf_strptr(elf, sh.sh_link, s.st_name) : NULL;
			found |= n && !strcmp(n, want);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* The main program's ELF header: mapped, covered by no symbol. */
static int main_header(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t *out = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			out[0] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + 16;
			out[1] = info->dlpi_phdr[i].p_vaddr + 16;
			break;
		}
	}
	return 1;
}

struct expect {
	uintptr_t addr;
	const char *name;
};

static struct expect table[6];
static struct fxt_sym *shared_sym;

/* The span and load bias of the loaded object whose bias is o->base (fxt_sym_object's rules). */
static int span_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fxt_sym_object *o = data;
	(void)size;
	if (info->dlpi_addr != o->base)
		return 0;
	o->lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + (ph->p_vaddr & ~(ph->p_align - 1));
		if (a < o->lo)
			o->lo = a;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > o->hi)
			o->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

static void *hammer(void *arg)
{
	char buf[256];
	long bad = 0;
	(void)arg;
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			int n = fxt_sym_lookup(shared_sym, table[i].addr, buf, sizeof(buf));
			bad += n < 0 || strcmp(buf, table[i].name);
		}
		if (round % 50 == 0)
			fxt_sym_refresh(shared_sym);
	}
	return (void *)bad;
}

int main(void)
{
	struct fxt_sym *sym = fxt_sym_new();
	char small[8];
	uintptr_t hdr[2] = { 0, 0 };
	char want[64];

	int fd_before = dup(0);

	close(fd_before);
	ok(sym != NULL, "fxt_sym_new creates a symbolizer");
	if (!sym)
		return done();
	ok(!strcmp(lookup(sym, (uintptr_t)static_fn), "static_fn"),
	   "a static function of the program is named (got %s)", name);
	ok(!strcmp(lookup(sym, (uintptr_t)exported_fn), "exported_fn"),
	   "an exported function of the program is named (got %s)", name);
	ok((uintptr_t)aaa_weak_alias == (uintptr_t)exported_fn &&
	   !strcmp(lookup(sym, (uintptr_t)aaa_weak_alias), "exported_fn"),
	   "of a global and a weak alias at one address, the global name is given (got %s)", name);
	ok(!strcmp(lookup(sym, (uintptr_t)lib_exported), "lib_exported"),
	   "an exported function of a linked shared library is named (got %s)", name);
	ok(!strcmp(lookup(sym, lib_hidden_addr()), "lib_hidden"),
	   "a static function of a linked shared library is named (got %s)", name);
	int fd_after = dup(0);
	close(fd_after);
	ok(fd_after == fd_before, "files opened by lookups leave the program's next descriptor "
	   "unchanged (%d then %d)", fd_before, fd_after);
	ok(!strcmp(lookup(sym, (uintptr_t)static_fn + 1), "static_fn"),
	   "an address inside a function names that function (got %s)", name);
	ok(!strcmp(lookup(sym, cpp_method_addr()), "ns::Class<int>::method(int) const"),
	   "a C++ method comes back demangled (got %s)", name);

	dl_iterate_phdr(main_header, hdr);
	snprintf(want, sizeof(want), "test-symbolizer+0x%lx", (unsigned long)hdr[1]);
	ok(!strcmp(lookup(sym, hdr[0]), want),
	   "an address covered by no symbol is named module+0xoffset (got %s, want %s)", name, want);
	/* The vDSO has no file: its image is read from memory. */
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	int vdso_named = 0;
	for (uintptr_t a = vdso; vdso && a < vdso + 8192 && !vdso_named; a += 16)
		vdso_named = !strcmp(lookup(sym, a), "__vdso_clock_gettime");
	ok(vdso_named, "__vdso_clock_gettime is found in the vDSO");
	void *heap = malloc(64);
	snprintf(want, sizeof(want), "0x%lx", (unsigned long)(uintptr_t)heap);
	ok(!strcmp(lookup(sym, (uintptr_t)heap), want),
	   "an address outside every module is named by its value (got %s)", name);
	free(heap);

	int n = fxt_sym_lookup(sym, (uintptr_t)long_fn, name, sizeof(name));
	ok(n == FXT_SYM_NAME_MAX && strlen(name) == FXT_SYM_NAME_MAX && name[0] == 'a',
	   "a 40000-byte name is cut to %d bytes (got %d)", FXT_SYM_NAME_MAX, n);
	n = fxt_sym_lookup(sym, (uintptr_t)static_fn, small, sizeof(small));
	ok(n == 7 && !strcmp(small, "static_"), "a name is cut to the buffer, NUL included (got %d)", n);
	n = fxt_sym_lookup(sym, hdr[0], small, sizeof(small));
	ok(n == 7 && strlen(small) == 7, "a module+0xoffset name is cut to the buffer too (got %d)", n);
	ok(fxt_sym_lookup(sym, 0, NULL, 10) == -EINVAL && fxt_sym_lookup(NULL, 0, small, 8) == -EINVAL &&
	   fxt_sym_lookup(sym, 0, small, 0) == -EINVAL, "bad arguments fail with -EINVAL");

	/* Names to addresses (triggers): plain symbols, static ones, demangled C++ names. */
	uintptr_t found[4];
	ok(fxt_sym_find(sym, "static_fn", found, 4) == 1 && found[0] == (uintptr_t)static_fn,
	   "fxt_sym_find finds a static function by its name");
	ok(fxt_sym_find(sym, "exported_fn", found, 4) == 1 && found[0] == (uintptr_t)exported_fn,
	   "and an exported one, once (its weak alias is another name)");
	ok(fxt_sym_find(sym, "ns::Class<int>::method(int) const", found, 4) == 1 &&
	   found[0] == cpp_method_addr(), "a C++ method by the name fxt_sym_lookup gives it");
	ok(fxt_sym_find(sym, "no_such_function_here", found, 4) == 0, "an unknown name: none");
	ok(fxt_sym_find(sym, "", found, 4) == -EINVAL && fxt_sym_find(sym, NULL, found, 4) == -EINVAL,
	   "an empty or NULL name fails with -EINVAL");

	/* Libraries loaded after the first lookups, with no fxt_sym_refresh: seen by themselves. */
	void *plain = dlopen(PLAIN_LIB, RTLD_NOW | RTLD_LOCAL);
	ok(plain != NULL, "the plain test library loads (%s)", plain ? "" : dlerror());
	if (plain) {
		uintptr_t exp = (uintptr_t)dlsym(plain, "lib_exported");
		uintptr_t (*hidden)(void) = (uintptr_t(*)(void))dlsym(plain, "lib_hidden_addr");
		ok(!strcmp(lookup(sym, exp), "lib_exported"),
		   "an exported function of a dlopen'ed library is named (got %s)", name);
		ok(!strcmp(lookup(sym, hidden()), "lib_hidden"),
		   "a static function of a dlopen'ed library is named (got %s)", name);
		uintptr_t hid = hidden();
		struct link_map *lm = NULL;
		dlinfo(plain, RTLD_DI_LINKMAP, &lm);
		struct fxt_sym_object o = { .path = PLAIN_LIB, .base = lm ? lm->l_addr : 0 };
		dl_iterate_phdr(span_of, &o);
		dlclose(plain);
		char buf[256];
		ok(o.hi > o.lo && fxt_sym_lookup_unloaded(sym, &o, exp, buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "lib_exported"),
		   "after dlclose, an exported function is named from the unloaded file (got %s)", buf);
		ok(fxt_sym_lookup_unloaded(sym, &o, hid, buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "lib_hidden"), "and a static one too (got %s)", buf);
		ok(fxt_sym_lookup_unloaded(sym, &o, o.hi, buf, sizeof(buf)) > 0 && !strncmp(buf, "0x", 2),
		   "an address past the unloaded object's span is 0x<addr> (got %s)", buf);
		ok(fxt_sym_lookup_unloaded(sym, NULL, exp, buf, sizeof(buf)) == -EINVAL,
		   "no object: -EINVAL");
	}
	void *split = dlopen(SPLIT_LIB, RTLD_NOW | RTLD_LOCAL);
	ok(split && !has_symbol(SPLIT_LIB, "lib_hidden") && has_symbol(SPLIT_LIB ".debug", "lib_hidden"),
	   "the split library keeps its symbol table only in its .debug file");
	if (split) {
		uintptr_t (*hidden)(void) = (uintptr_t(*)(void))dlsym(split, "lib_hidden_addr");
		ok(!strcmp(lookup(sym, hidden()), "lib_hidden"),
		   "a static function is named from separate debuginfo (.gnu_debuglink) (got %s)", name);
	}
	void *stale = dlopen(STALE_LIB, RTLD_NOW | RTLD_LOCAL);
	ok(stale && has_symbol(STALE_LIB ".debug", "lib_hidden"),
	   "the stale library's debuglink names a debug file that has lib_hidden");
	if (stale) {
		uintptr_t (*hidden)(void) = (uintptr_t(*)(void))dlsym(stale, "lib_hidden_addr");
		ok(!strncmp(lookup(sym, hidden()), "libtest-sym-stale.so+0x", 23),
		   "a debug file of another build (build ID differs) is not used (got %s)", name);
		dlclose(stale);
	}
	void *dwarf = dlopen(DWARF_LIB, RTLD_NOW | RTLD_LOCAL);
	ok(dwarf && !has_symbol(DWARF_LIB, "lib_hidden"), "the DWARF library has no lib_hidden symbol");
	if (dwarf) {
		uintptr_t (*hidden)(void) = (uintptr_t(*)(void))dlsym(dwarf, "lib_hidden_addr");
		ok(!strcmp(lookup(sym, hidden()), "lib_hidden"),
		   "a function with no symbol is named from its DWARF subprogram (got %s)", name);
	}

	/* Stability: the same answers after refreshes and many lookups, alone and from 4 threads. */
	table[0] = (struct expect){ (uintptr_t)static_fn, "static_fn" };
	table[1] = (struct expect){ (uintptr_t)exported_fn, "exported_fn" };
	table[2] = (struct expect){ (uintptr_t)lib_exported, "lib_exported" };
	table[3] = (struct expect){ lib_hidden_addr(), "lib_hidden" };
	table[4] = (struct expect){ cpp_method_addr(), "ns::Class<int>::method(int) const" };
	table[5] = (struct expect){ (uintptr_t)main, "main" };
	shared_sym = sym;
	ok(hammer(NULL) == NULL, "200 rounds of lookups with refreshes give the same names");
	pthread_t th[4];
	long bad = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		bad += (long)r;
	}
	ok(bad == 0, "4 threads looking up at once all get the right names (%ld wrong)", bad);

	if (split)
		dlclose(split);
	if (dwarf)
		dlclose(dwarf);
	fxt_sym_free(sym);
	fxt_sym_free(NULL);
	return done();
}
