/* r-scribble: a traced program that writes over its own trace buffer, as a wild pointer would.
 * Usage: r-scribble MODE (records | header | counters | tail): forks a healthy child that calls
 * child_call() 1000 times and exits 0, calls parent_call() 100 times, waits for the child,
 * then finds its own buffer in /proc/self/maps (a file in $FXT_SESSION named <pid>.<n>.buf)
 * and scribbles: `records` fills its chunk area from its 64th word with 0xdeadbeef words,
 * `header` sets nchunks, chunk sizes and the durable size to huge values, `counters` sets its
 * dropped-records counter to a huge value (layout intact), `tail` writes one
 * record header claiming more words than the chunk holds. Then it exits 3 at once (exit_group:
 * its own tracer, which trusts its buffer, does not run again). Without fxtrun: exits 3. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "writer/buffer.h"

void child_call(void);
void parent_call(void);

void child_call(void)
{
	__asm__ volatile("" ::: "memory");
}

void parent_call(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The start of this process's buffer mapping, or NULL. */
static uint64_t *find_buffer(size_t *len)
{
	const char *session = getenv("FXT_SESSION");
	char want[64], line[4096];
	snprintf(want, sizeof(want), "/%d.", (int)getpid());
	FILE *f = session ? fopen("/proc/self/maps", "r") : NULL;
	uint64_t *found = NULL;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8];
		const char *path = strchr(line, '/');
		if (!path || strncmp(path, session, strlen(session)) || !strstr(path, want) ||
		    !strstr(path, ".buf") ||
		    sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &off) != 4 || off ||
		    perms[1] != 'w')
			continue;
		found = (uint64_t *)lo;
		*len = hi - lo;
		break;
	}
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "records";
	pid_t child = fork();
	if (child == 0) {
		for (int i = 0; i < 1000; i++)
			child_call();
		return 0;
	}
	for (int i = 0; i < 100; i++)
		parent_call();
	if (child > 0)
		waitpid(child, NULL, 0);
	size_t len = 0;
	uint64_t *b = find_buffer(&len);
	if (b) {
		/* writer/buffer.h: header words 2 size, 4 durable_size, 5 chunks_off,
		 * 6 chunk_size | nchunks << 32. */
		uint64_t chunks_off = b[5], chunk_size = b[6] & 0xffffffff;
		uint64_t *c = b + chunks_off / 8;
		if (!strcmp(mode, "header")) {
			b[4] = ~0ULL >> 8;
			b[6] = 0xffffffff00000000ULL | 8;
			b[2] = ~0ULL;
		} else if (!strcmp(mode, "counters")) {
			b[offsetof(struct fxt_buf_hdr, dropped) / 8] = 0x7aa1f00dbadc0ffeULL;
		} else if (!strcmp(mode, "tail")) {
			/* after its first record (the thread record), a string record of 4095 words */
			if (chunks_off + chunk_size <= len)
				c[1 + 3] = 2 | (4095ULL << 4);
		} else if (chunks_off + chunk_size <= len) {
			for (size_t i = 64; i < chunk_size / 8; i++)
				c[i] = 0xdeadbeefdeadbeefULL;
		}
	}
	syscall(SYS_exit_group, 3);
	return 3;
}
