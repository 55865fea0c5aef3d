/* lib-fork-sentinel.so: preloaded after libfxtauto.so (LD_PRELOAD="libfxtauto.so:this"), it
 * checks that the tracer's fork child handler unmaps nothing the child has not got. perf's ring
 * mappings (the tracer's context switch rings) are not inherited (VM_DONTCOPY): in a fork child
 * their addresses are free, and the child's own buffer may be mapped there first. In the parent
 * (prepare) it notes every perf_event mapping; in the child (its child handler, which runs
 * before the tracer's: registered first, its constructor running first) it maps sentinel pages
 * at exactly those addresses; at the child's exit it prints to stderr
 * "fork-sentinel: N of M intact" (N: sentinels still mapped with their pattern). It says
 * "fork-sentinel: out of order" if the tracer's child handler ran first (its context switch
 * reader thread exists already), which would leave nothing to test. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define MAX_RANGES 64
#define MAGIC 0x5e471e1f0c0ffee5ULL

static struct { uintptr_t lo, hi; } ranges[MAX_RANGES];
static int nranges, placed, in_child, out_of_order;
static char maps[1 << 16];	/* /proc/self/maps, read without malloc: the prepare handler */

static void note_rings(void)
{
	nranges = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t len = 0;
	for (ssize_t n; len < sizeof(maps) - 1; len += (size_t)n)
		if ((n = read(fd, maps + len, sizeof(maps) - 1 - len)) <= 0)
			break;
	close(fd);
	maps[len] = 0;
	for (char *line = maps, *next; line && *line && nranges < MAX_RANGES; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		unsigned long lo, hi;
		if (strstr(line, "[perf_event]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			ranges[nranges].lo = lo;
			ranges[nranges++].hi = hi;
		}
	}
}

static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void place_sentinels(void)
{
	in_child = 1;
	out_of_order = tasks() != 1;
	for (int i = 0; i < nranges; i++) {
		size_t len = ranges[i].hi - ranges[i].lo;
		uint64_t *p = mmap((void *)ranges[i].lo, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED || (uintptr_t)p != ranges[i].lo)
			continue;
		for (size_t off = 0; off < len; off += 4096)
			p[off / 8] = MAGIC ^ (ranges[i].lo + off);
		placed++;
	}
}

/* Whether sentinel i is still mapped (mincore fails on a hole) and holds its pattern. */
static int intact(int i)
{
	size_t len = ranges[i].hi - ranges[i].lo;
	unsigned char vec[1024];
	if (len / 4096 > sizeof(vec) || mincore((void *)ranges[i].lo, len, vec) < 0)
		return 0;
	for (size_t off = 0; off < len; off += 4096)
		if (((const uint64_t *)ranges[i].lo)[off / 8] != (MAGIC ^ (ranges[i].lo + off)))
			return 0;
	return 1;
}

__attribute__((constructor)) static void sentinel_init(void)
{
	pthread_atfork(note_rings, NULL, place_sentinels);
}

__attribute__((destructor)) static void sentinel_report(void)
{
	if (!in_child)
		return;
	if (out_of_order) {
		fprintf(stderr, "fork-sentinel: out of order\n");
		return;
	}
	int ok = 0;
	for (int i = 0; i < nranges; i++)
		ok += intact(i);
	fprintf(stderr, "fork-sentinel: %d of %d intact (%d placed)\n", ok, nranges, placed);
}
