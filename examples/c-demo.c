/* c-demo: a small deterministic C workload to trace with fxtauto: nested calls, recursion,
 * 4 threads named "worker-0".."worker-3". Usage: c-demo [scale], scale in [1, 1000] (default 1);
 * prints one checksum line that depends on the scale only. Exact calls for scale S, per thread:
 *   main thread ("c-demo"): main 1, parse_scale 1, warm_up 1, fib 177 (fib(10)), report 1
 *   each of "worker-0".."worker-3": worker 1, step 25*S, fib 49325*S (fib(15) = 1973 calls per
 *   step), mix 75*S, hash_block 25*S, hash_word 400*S
 * Nesting: worker > step > {fib > fib..., mix, hash_block > hash_word}; main > warm_up > fib. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define ROUNDS 25		/* steps per worker and unit of scale */
#define FIB_N 15
#define BLOCK_WORDS 16
#define MIX_ITERS 600000	/* leaf work, so the calls take measurable time */

struct job {
	unsigned id, rounds;
	uint64_t result;
};

static uint64_t fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint64_t mix(uint64_t x)
{
	for (int i = 0; i < MIX_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static uint64_t hash_word(uint64_t w, unsigned i)
{
	w = (w ^ i) * UINT64_C(0x9E3779B97F4A7C15);
	return w ^ (w >> 29);
}

static uint64_t hash_block(uint64_t seed)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < BLOCK_WORDS; i++)
		h += hash_word(seed + i, i);
	return h;
}

static uint64_t step(unsigned id, unsigned round)
{
	uint64_t v = fib(FIB_N) + id * 1000 + round;

	v = mix(v);
	v ^= hash_block(v);
	v = mix(v);
	return mix(v ^ round);
}

static void *worker(void *arg)
{
	struct job *job = arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%u", job->id);
	pthread_setname_np(pthread_self(), name);
	for (unsigned r = 0; r < job->rounds; r++)
		job->result = job->result * 31 + step(job->id, r);
	return NULL;
}

/* The scale from argv[1]: 1 when absent, 0 when not an integer in [1, 1000]. */
static unsigned parse_scale(int argc, char **argv)
{
	char *end;
	long v;

	if (argc < 2)
		return 1;
	v = strtol(argv[1], &end, 10);
	return argc == 2 && *end == '\0' && end != argv[1] && v >= 1 && v <= 1000 ? (unsigned)v : 0;
}

static uint64_t warm_up(void)
{
	return fib(10);
}

static void report(unsigned scale, uint64_t checksum)
{
	printf("c-demo: scale %u, %d threads, checksum %016" PRIx64 "\n", scale, NTHREADS, checksum);
}

int main(int argc, char **argv)
{
	struct job jobs[NTHREADS];
	pthread_t threads[NTHREADS];
	unsigned scale = parse_scale(argc, argv);
	uint64_t checksum;

	if (!scale) {
		fprintf(stderr, "usage: c-demo [scale]   (scale: an integer in [1, 1000])\n");
		return 2;
	}
	checksum = warm_up();
	for (unsigned i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct job){ .id = i, .rounds = ROUNDS * scale };
		if (pthread_create(&threads[i], NULL, worker, &jobs[i])) {
			fprintf(stderr, "c-demo: cannot create a thread\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		pthread_join(threads[i], NULL);
		checksum = checksum * 1000003 + jobs[i].result;
	}
	report(scale, checksum);
	return 0;
}
