/* Symbolizer: code address -> function name for the running process, through elfutils libdwfl
 * (ELF symbol tables and DWARF, so static functions are named too; separate debuginfo found by
 * build ID or .gnu_debuglink, never over the network). Called by the preload on the slow path
 * (first sight of a function) and by the sampler. Thread-safe (one internal mutex). NEVER call it
 * from a signal handler: it locks, allocates and reads files. Built without instrumentation. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_SYMBOLIZER_H
#define FXT_SYMBOLIZER_H
#include <stddef.h>
#include <stdint.h>

/* Longest name written, in bytes without the NUL (the FXT string limit); longer ones are cut. */
#define FXT_SYM_NAME_MAX 32000

struct fxt_sym;

/* Creates a symbolizer; cheap (no file is read until the first lookup).
 * Fails: NULL with errno (ENOMEM). Thread-safe. */
struct fxt_sym *fxt_sym_new(void);

/* Writes the name of the function covering addr into buf: the demangled C++ name
 * ("ns::Class<int>::method(int) const"), else the C name, else "module+0xoffset" when no symbol
 * covers it: the offset from the module's load base of the function's start by the unwind
 * tables (.eh_frame FDE; stripped objects keep them), or of addr when no FDE covers it; else
 * "0x<addr>" outside every module.
 * Libraries loaded or unloaded since the last lookup are seen automatically (the loader's
 * dlpi_adds/dlpi_subs counters are checked on each lookup). Demangling uses the process's own
 * libstdc++; a C++ name in a process without one loads it once (dlopen, outside the lock).
 * The name is cut to min(buflen - 1, FXT_SYM_NAME_MAX) bytes, always NUL-terminated.
 * Returns the length written. Apart from that one dlopen, no lookup waits on the loader's lock,
 * so an instrumented constructor running inside dlopen may look names up.
 * Fails: -EINVAL (NULL sym/buf, buflen 0), -ENOMEM. Thread-safe; not async-signal-safe; after
 * fork() the child may use sym only if no lookup was running (take a lock of yours around
 * lookups in a pthread_atfork prepare handler). */
int fxt_sym_lookup(struct fxt_sym *sym, uintptr_t addr, char *buf, size_t buflen);

/* An object that was loaded and no longer is: its file, its load bias (dlpi_addr) and the span
 * [lo, hi) it had (its first PT_LOAD segment's start rounded down to the segment's alignment,
 * to the end of its last). */
struct fxt_sym_object {
	const char *path;	/* absolute */
	uintptr_t lo, hi, base;
};

/* As fxt_sym_lookup, for an address of code that obj held while it was loaded (dlclose'd
 * since, maybe replaced by other code at the same address): named from obj's file on disk.
 * An address outside obj, or a file that cannot be read: "0x<addr>". C++ names are demangled
 * as by fxt_sym_lookup when libstdc++ is loaded. The last object asked about stays open until
 * another one is.
 * Fails: -EINVAL (NULL arguments, buflen 0), -ENOMEM. Thread-safe; not async-signal-safe. */
int fxt_sym_lookup_unloaded(struct fxt_sym *sym, const struct fxt_sym_object *obj,
			    uintptr_t addr, char *buf, size_t buflen);

/* Finds the functions called name in every loaded module: their start addresses into
 * out[0, max). name is as fxt_sym_lookup() writes it (demangled "ns::f(int)") or the plain
 * symbol ("f", "_Z1fi"); from the ELF symbol tables (static functions too). Returns how many
 * were found (0: none). Fails: -EINVAL (NULL or empty name). Thread-safe; not
 * async-signal-safe (reads files, locks). */
int fxt_sym_find(struct fxt_sym *sym, const char *name, uintptr_t *out, size_t max);

/* Marks the module map stale; the next lookup rescans it (lookups already notice dlopen and
 * dlclose by themselves). Takes no lock and calls nothing: a dlopen wrapper may call it anywhere.
 * Fails: never. Thread-safe. */
void fxt_sym_refresh(struct fxt_sym *sym);

/* Releases everything; sym may be NULL. No lookup may run concurrently.
 * Fails: never. Not thread-safe with respect to sym. */
void fxt_sym_free(struct fxt_sym *sym);

struct dl_phdr_info;
/* The span [*lo, *hi) of a loaded object's PT_LOAD segments (dl_iterate_phdr's info), lo the
 * first segment's page-aligned start, as libdwfl computes a module's start. Returns 0, or -1
 * when it has none. Async-signal-safe. */
int fxt_object_span(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);

#endif
