/* Userspace object labels: the first time a synchronisation object appears in a recorded wait,
 * a userspace object record (type 6) names it in the durable area, before any event refers to
 * it. The name is the data symbol covering it (dynamic symbol through dladdr1, else the
 * module's .symtab read with libelf: static objects too; "sym+0xN" inside a larger object),
 * else a stable per-kind label ("mutex#3"). A table of at most TABLE_SIZE objects, under a
 * lock held across fork; beyond it objects get labels but no new record. Guard held. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/hot/names.h"
#include "preload/events/record.h"
#include "preload/events/uobj.h"
#include "writer/fields.h"

#define TABLE_SIZE 4096u	/* power of two; filled to 3/4 at most */
#define LABEL_MAX 120u

struct obj {
	uintptr_t p;		/* 0: empty */
	uint16_t index;		/* string index of the label, 0: inline */
	uint16_t len;
	char label[LABEL_MAX];
};

static struct obj table[TABLE_SIZE];
static uint32_t nobj;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FXTP_TLS char overflow[LABEL_MAX];	/* label of an object the full table lost */

static const char *const kinds[] = { "mutex", "rwlock", "cond", "sem", "barrier" };
static uint32_t kind_count[sizeof(kinds) / sizeof(kinds[0])];

/* Name of the STT_OBJECT symbol covering file address a in the ELF file path (its .symtab,
 * or .dynsym when stripped), with its offset in it; 0 when none. */
static int symtab_name(const char *path, uintptr_t a, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && !n && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
			    a < s.st_value || a >= s.st_value + (s.st_size ? s.st_size : 1))
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			n = a == s.st_value ? snprintf(buf, size, "%s", name)
					    : snprintf(buf, size, "%s+0x%lx", name,
						       (unsigned long)(a - s.st_value));
			break;
		}
	}
	elf_end(e);
	close(fd);
	return n;
}

/* The data symbol naming p, or 0 (heap, stack, or no symbol). */
static int data_symbol(uintptr_t p, char *buf, size_t size)
{
	Dl_info info;
	const ElfW(Sym) *s = NULL;
	struct link_map *lm = NULL;

	if (!dladdr1((void *)p, &info, (void **)&s, RTLD_DL_SYMENT))
		return 0;
	if (info.dli_sname && s && p >= (uintptr_t)info.dli_saddr &&
	    p < (uintptr_t)info.dli_saddr + (s->st_size ? s->st_size : 1)) {
		uintptr_t off = p - (uintptr_t)info.dli_saddr;
		return off ? snprintf(buf, size, "%s+0x%lx", info.dli_sname, (unsigned long)off)
			   : snprintf(buf, size, "%s", info.dli_sname);
	}
	if (!dladdr1((void *)p, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return 0;
	return symtab_name(lm->l_name[0] ? lm->l_name : "/proc/self/exe", p - lm->l_addr, buf,
			   size);
}

static int make_label(uintptr_t p, const char *kind, char *buf, size_t size)
{
	int n = data_symbol(p, buf, size);
	if (n > 0)
		return n < (int)size ? n : (int)size - 1;
	unsigned k = 0;
	while (k + 1 < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kinds[k], kind))
		k++;
	return snprintf(buf, size, "%s#%u", kind, ++kind_count[k]);
}

static void emit_uobj(const struct obj *o, const char *kind)
{
	struct fxt_warg type = fxt_arg_string(fxt_str_inl("type", 4), fxt_str_inl(kind,
						(uint32_t)strlen(kind)));
	struct fxt_uobj u = {
		.pointer = o->p,
		.process = fxt_thread_inl((uint64_t)fxtp.pid, 0),
		.name = o->index ? fxt_str_idx(o->index) : fxt_str_inl(o->label, o->len),
		.args = &type,
		.nargs = 1,
	};
	uint32_t words = fxt_uobj_words(&u);
	uint64_t *r = words ? fxt_buf_durable_reserve(&fxtp.buf, words) : NULL;
	if (r)
		fxt_uobj_write(r, &u);
}

static struct fxt_str ref_of(const struct obj *o)
{
	return o->index ? fxt_str_idx(o->index) : fxt_str_inl(o->label, o->len);
}

struct fxt_str fxtp_uobj_label(const void *obj, const char *kind)
{
	uintptr_t p = (uintptr_t)obj;
	uint32_t i = (uint32_t)(((uint64_t)p * 0x9e3779b97f4a7c15ULL) >> 52) & (TABLE_SIZE - 1);
	struct fxt_str ref;

	pthread_mutex_lock(&lock);
	while (table[i].p && table[i].p != p)
		i = (i + 1) & (TABLE_SIZE - 1);
	struct obj *o = &table[i];
	if (o->p) {
		ref = ref_of(o);
	} else if (nobj < TABLE_SIZE / 4 * 3) {
		o->len = (uint16_t)make_label(p, kind, o->label, sizeof(o->label));
		o->index = (uint16_t)fxtp_name_index(o->label, o->len);
		o->p = p;
		nobj++;
		emit_uobj(o, kind);
		ref = ref_of(o);
	} else {
		ref = fxt_str_inl(overflow, (uint32_t)make_label(p, kind, overflow, LABEL_MAX));
	}
	pthread_mutex_unlock(&lock);
	return ref;
}

/* fork.c's handlers (uobj.h): no label half-made in a child. */
void fxtp_uobj_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

void fxtp_uobj_fork_release(void)
{
	pthread_mutex_unlock(&lock);
}
