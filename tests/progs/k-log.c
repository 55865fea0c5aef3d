/* Lines written to stderr and stdout from four threads and main, through every captured path
 * (fprintf, fputs, fwrite, fputc, puts, printf, write, writev), some lines built over several
 * calls, one longer than a log record holds, one with bytes that are not UTF-8 (only on
 * stdout), and two syslog messages (sent nowhere visible). Every line starts with its thread's
 * name. For tests/locks (check.py log). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>

static void *worker(void *arg)
{
	char name[16], line[64];
	snprintf(name, sizeof name, "w%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < 20; i++) {
		switch (i % 5) {
		case 0:
			fprintf(stderr, "%s fprintf %d\n", name, i);
			break;
		case 1:
			fputs(name, stderr);	/* one line over four calls */
			fputs(" fputs", stderr);
			fputc(' ', stderr);
			fprintf(stderr, "%d\n", i);
			break;
		case 2:
			snprintf(line, sizeof line, "%s write %d\n", name, i);
			if (write(2, line, strlen(line)) < 0)
				return NULL;
			break;
		case 3: {
			struct iovec iov[3] = { { name, strlen(name) }, { " writev ", 8 },
						{ line, (size_t)snprintf(line, sizeof line, "%d\n", i) } };
			if (writev(2, iov, 3) < 0)
				return NULL;
			break;
		}
		default:
			printf("%s printf %d\n", name, i);
			snprintf(line, sizeof line, "%s fwrite %d\n", name, i);
			fwrite(line, 1, strlen(line), stderr);
		}
	}
	return NULL;
}

static char longline[40000];

int main(void)
{
	pthread_t th[4];
	for (long i = 0; i < 4; i++) {	/* one after the other: the output is deterministic */
		pthread_create(&th[i], NULL, worker, (void *)i);
		pthread_join(th[i], NULL);
	}
	memset(longline, 'x', sizeof longline - 1);
	memcpy(longline, "k-log long ", 11);
	fprintf(stderr, "%s\n", longline);
	puts("k-log puts");
	printf("k-log bad \xff\xfe utf-8\n");
	fflush(stdout);
	errno = ENOENT;
	syslog(LOG_DEBUG, "k-log syslog %m");
	syslog(LOG_DEBUG, "k-log syslog %d", 7);
	fprintf(stderr, "k-log done\n");
	return 0;
}
