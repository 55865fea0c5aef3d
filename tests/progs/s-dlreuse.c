/* A load address reused by another library: dlopen liba, call a_entry(20), dlclose; dlopen
 * libb (same layout, other names), call b_entry(20), dlclose; dlopen liba again, call
 * a_entry(20). Usage: s-dlreuse LIBA LIBB [N]: entry(N) instead (default 20; large for a
 * sampler to see them). Calls: main 1, run 3, a_entry 2, a_helper 2*N, b_entry 1, b_helper N.
 * Says on stderr whether libb was mapped where liba had been. */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int run(const char *path, const char *sym, int n, void **where)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "s-dlreuse: %s\n", dlerror());
		exit(1);
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, sym);
	if (!entry) {
		fprintf(stderr, "s-dlreuse: no %s\n", sym);
		exit(1);
	}
	*where = (void *)entry;
	int r = entry(n);
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int n = argc > 3 ? atoi(argv[3]) : 20;
	void *a1, *b, *a2;
	run(argv[1], "a_entry", n, &a1);
	run(argv[2], "b_entry", n, &b);
	run(argv[1], "a_entry", n, &a2);
	int same = a1 == b && b == a2;
	printf("s-dlreuse: done\n");
	fprintf(stderr, "s-dlreuse: %s\n", same ? "same address" : "other address");
	return 0;
}
