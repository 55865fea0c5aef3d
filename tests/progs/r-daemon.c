/* r-daemon: treats its descriptors as a daemon does at start, then calls work() N times (no
 * sleeps: a small buffer fills many times), so a test can count every call. Modes: close (each
 * of 3 .. RLIMIT_NOFILE - 1), dup2 (/dev/null over each of them), close_range (3 .. ~0U),
 * closefrom (3). Usage: r-daemon MODE N. Exits 0, or 2 on a bad argument or a failed call. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void work(void);

static volatile long sink;

void work(void)
{
	sink++;
}

/* The highest descriptor number the process can have, plus one (at most 65536). */
static int fd_limit(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_cur > 65536)
		return 65536;
	return (int)r.rlim_cur;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: r-daemon close|dup2|close_range|closefrom N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = atol(argv[2]);
	if (!strcmp(mode, "close")) {
		for (int fd = 3; fd < fd_limit(); fd++)
			close(fd);
	} else if (!strcmp(mode, "dup2")) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0)
			return 2;
		for (int fd = 3; fd < fd_limit(); fd++)
			if (fd != null && dup2(null, fd) < 0)
				return 2;
	} else if (!strcmp(mode, "close_range")) {
		if (close_range(3, ~0U, 0) < 0)
			return 2;
	} else if (!strcmp(mode, "closefrom")) {
		closefrom(3);
	} else {
		fprintf(stderr, "r-daemon: unknown mode %s\n", mode);
		return 2;
	}
	for (long i = 0; i < n; i++)
		work();
	return 0;
}
