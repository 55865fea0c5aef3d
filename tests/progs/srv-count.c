/* srv-count: a small multi-threaded command server for the manager service's scenario tests
 * (tests/bats/service-live.bats) and bench/service-server.sh, and its load driver.
 *   srv-count serve SOCKET      listens on a unix stream socket; one thread per connection;
 *                               each line "cmd" runs command() once and is answered "ok";
 *                               "count" answers the commands served so far; "quit" exits 0
 *   srv-count drive SOCKET T N  T connections on T threads, N commands each, one at a time
 *                               (each waits for its answer); prints "T*N commands in S s,
 *                               R commands/s"
 * Built with -finstrument-functions (command() is the call the tests count); the driver is run
 * untraced. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static unsigned long served;

void command(void);
void command(void)
{
	__atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
}

static int addr_of(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	return snprintf(a->sun_path, sizeof(a->sun_path), "%s", path) < (int)sizeof(a->sun_path)
		       ? 0
		       : -1;
}

static void *session(void *arg)
{
	FILE *f = fdopen((int)(long)arg, "r+");
	char line[64];
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "cmd\n")) {
			command();
			fputs("ok\n", f);
		} else if (!strcmp(line, "count\n")) {
			fprintf(f, "%lu\n", __atomic_load_n(&served, __ATOMIC_RELAXED));
		} else if (!strcmp(line, "quit\n")) {
			exit(0);
		} else {
			fputs("what?\n", f);
		}
		fflush(f);
	}
	fclose(f);
	return NULL;
}

static int serve(const char *path)
{
	struct sockaddr_un a;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || addr_of(path, &a) < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 64) < 0) {
		perror("srv-count: listen");
		return 1;
	}
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		pthread_t th;
		if (c < 0)
			continue;
		if (pthread_create(&th, NULL, session, (void *)(long)c) != 0)
			close(c);
		else
			pthread_detach(th);
	}
}

static const char *sock_path;
static long per_thread;

static void *driver(void *arg)
{
	struct sockaddr_un a;
	char line[64];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FILE *f;
	(void)arg;
	if (fd < 0 || addr_of(sock_path, &a) < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    !(f = fdopen(fd, "r+"))) {
		perror("srv-count: connect");
		exit(1);
	}
	for (long i = 0; i < per_thread; i++) {
		fputs("cmd\n", f);
		fflush(f);
		if (!fgets(line, sizeof(line), f) || strcmp(line, "ok\n")) {
			fprintf(stderr, "srv-count: no answer\n");
			exit(1);
		}
	}
	fclose(f);
	return NULL;
}

static int drive(const char *path, int threads, long n)
{
	pthread_t th[256];
	struct timespec t0, t1;
	sock_path = path;
	per_thread = n;
	if (threads < 1 || threads > 256 || n < 0) {
		fprintf(stderr, "srv-count: 1 to 256 threads\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, driver, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%ld commands in %.3f s, %.0f commands/s\n", threads * n, s,
	       s > 0 ? (double)(threads * n) / s : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "drive"))
		return drive(argv[2], atoi(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: srv-count serve SOCKET | srv-count drive SOCKET THREADS N\n");
	return 2;
}
