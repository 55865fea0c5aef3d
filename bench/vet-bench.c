/* bench/vet-bench: the manager's vetting (launcher/manager/vet.c) alone, in records per second, over
 * buffer contents as a provider writes them: string records (the durable area), then chunks of
 * CHUNK bytes, each opening with its thread record and filled with duration complete events
 * (3 words, no arguments). Two workloads: "flat" (one function called in a loop, as
 * tests/rprogs/r-spin) and "tree" (a call tree of 5 levels over 64 names, callees written
 * before their callers as the exit hook writes them). Each pass vets a fresh copy whose stamps
 * follow the previous pass's, so the vet's state grows as over a long run. Prints figures only.
 * Times are the thread's CPU time. Usage: vet-bench [MIB_PER_PASS [PASSES]]   (default 64 MiB, 5 passes) */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "launcher/manager/vet.h"
#include "writer/fields.h"
#include "writer/records.h"

#define CHUNK (64u * 1024u)
#define NAMES 64u
#define PID 4242u

struct gen {
	uint64_t *p;
	size_t at, cap, chunk_at;
	uint64_t ts;
	int tree;
	unsigned next_name;
};

static void thread_rec(struct gen *g)
{
	g->at += (size_t)fxt_thread_write(g->p + g->at, 1, PID, PID + 1);
}

/* One complete event of name `name`, starting a new chunk when this one is full. */
static int event(struct gen *g, unsigned name, uint64_t start, uint64_t end)
{
	if (g->at + 3 > g->cap)
		return 0;
	if ((g->at - g->chunk_at + 3) * 8 > CHUNK) {
		g->chunk_at = g->at;
		thread_rec(g);
		if (g->at + 3 > g->cap)
			return 0;
	}
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1),
					     fxt_str_idx((uint16_t)(2 + name)), start, end);
	g->at += (size_t)fxt_event_write(g->p + g->at, &e);
	return 1;
}

/* A call of depth levels: its callees' events, then its own. */
static int call(struct gen *g, int depth)
{
	unsigned name = g->next_name++ % NAMES;
	uint64_t start = g->ts++;
	for (int i = 0; depth > 1 && i < 4; i++)
		if (!call(g, depth - 1))
			return 0;
	return event(g, name, start, g->ts++);
}

/* Fills p[0, cap) with the workload's chunks; returns the words written. */
static size_t fill(uint64_t *p, size_t cap, int tree, uint64_t *ts)
{
	struct gen g = { .p = p, .cap = cap, .ts = *ts, .tree = tree };
	thread_rec(&g);
	while (tree ? call(&g, 5) : event(&g, 0, g.ts, g.ts + 1))
		g.ts += tree ? 0 : 2;
	*ts = g.ts + 1;
	return g.at;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);	/* CPU time: the machine may be shared */
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run(const char *what, int tree, size_t words, int passes)
{
	uint64_t *p = malloc(words * 8), strs[64 * NAMES];
	struct fxt_vet *v = fxt_vet_new(1);
	if (!p || !v) {
		fprintf(stderr, "vet-bench: out of memory\n");
		return 1;
	}
	size_t n = 0;
	char name[32];
	n += (size_t)fxt_string_write(strs + n, 1, "cat", 3);
	for (unsigned i = 0; i < NAMES; i++) {
		int len = snprintf(name, sizeof(name), "function_number_%u", i);
		n += (size_t)fxt_string_write(strs + n, (uint16_t)(2 + i), name, (uint32_t)len);
	}
	uint64_t ev, offset = 0, ts = 1000, events = 0;
	offset += fxt_vet_records(v, strs, n, offset, 0, &ev, NULL) * 8;
	double spent = 0, bytes = 0;
	for (int i = 0; i < passes; i++) {
		size_t len = fill(p, words, tree, &ts);
		double t0 = now();
		size_t kept = fxt_vet_records(v, p, len, offset, 0, &ev, NULL);
		spent += now() - t0;
		if (kept != len || fxt_vet_problem(v)) {
			fprintf(stderr, "vet-bench: %s refused: %s\n", what,
				fxt_vet_problem(v) ? fxt_vet_problem(v) : "records left out");
			return 1;
		}
		offset += len * 8;
		bytes += (double)len * 8;
		events += ev;
	}
	printf("  %-5s %7.1f MB/s  %6.2f ns/event  (%llu events)\n", what, bytes / spent / 1e6,
	       spent * 1e9 / (double)events, (unsigned long long)events);
	fxt_vet_free(v);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int passes = argc > 2 ? atoi(argv[2]) : 5;
	if (!mib || passes <= 0) {
		fprintf(stderr, "usage: vet-bench [MIB_PER_PASS [PASSES]]\n");
		return 2;
	}
	printf("vet: %zu MiB x %d passes\n", mib, passes);
	return run("flat", 0, mib << 17, passes) || run("tree", 1, mib << 17, passes);
}
