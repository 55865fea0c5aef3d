/* C++ demangling through libstdc++'s __cxa_demangle, found at run time: the preload does not
 * pull libstdc++ into C programs, and a process with C++ code nearly always has it loaded
 * (globally, or locally under a dlopen'ed library: RTLD_NOLOAD finds it there). Output capped. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/internal.h"
#include "symbolizer/symbolizer.h"

typedef char *demangle_fn(const char *mangled, char *out, size_t *len, int *status);

/* Resolved once found. Where the program has C++ code but no libstdc++ (linked --as-needed and
 * never used), it is loaded once, locally, as a last resort: C programs never get here. The
 * reference taken by dlopen is kept, so the cached pointer outlives any dlclose of a plugin. */
static demangle_fn *resolve(void)
{
	static _Atomic(demangle_fn *) cached;
	static atomic_flag tried_load = ATOMIC_FLAG_INIT;
	demangle_fn *fn = atomic_load_explicit(&cached, memory_order_acquire);

	if (fn)
		return fn;
	void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
	if (!lib && !atomic_flag_test_and_set(&tried_load))
		lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (lib)
		fn = (demangle_fn *)dlsym(lib, "__cxa_demangle");
	if (fn)
		atomic_store_explicit(&cached, fn, memory_order_release);
	return fn;
}

size_t fxt_demangle(const char *name, char *buf, size_t buflen)
{
	size_t cap = buflen - 1 < FXT_SYM_NAME_MAX ? buflen - 1 : FXT_SYM_NAME_MAX;
	char *out = NULL;
	demangle_fn *fn;
	int status = -1;

	if (name[0] == '_' && name[1] == 'Z' && (fn = resolve()))
		out = fn(name, NULL, NULL, &status);
	const char *src = out && status == 0 ? out : name;
	size_t n = strnlen(src, cap);
	memcpy(buf, src, n);
	buf[n] = '\0';
	free(out);
	return n;
}
