/* The ground every part of the service stands on (service.h): its clock, its log, and
 * connections taken from our user only (others refused and counted) with descriptors kept for
 * shedding when they run out. Calls nothing of the service's other parts. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "launcher/manager/accept.h"
#include "launcher/manager/msg.h"
#include "launcher/service/service.h"

uint64_t svc_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void svc_log(struct svc *v, const char *fmt, ...)
{
	char line[1024];
	time_t now = time(NULL);
	struct tm tm;
	size_t n = strftime(line, sizeof(line), "%F %T ", localtime_r(&now, &tm));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	dprintf(v->log_fd, "%s\n", line);
}

void svc_refuse(struct svc *v, int fd, const char *who, const char *why)
{
	v->refused++;
	svc_log(v, "%s connection refused: %s (%llu refused so far)", who, why,
		(unsigned long long)v->refused);
	close(fd);
}

int svc_accept(struct svc *v, int listen_fd, const char *who, int *pid,
	       void (*shed)(int fd, void *v))
{
	for (;;) {
		int fd = fxt_accept(listen_fd, &v->reserve, shed, v);
		if (fd >= 0) {
			int peer;
			if (fxt_msg_peer_ok(fd, &peer) && peer > 0) {
				if (pid)
					*pid = peer;
				return fd;
			}
			svc_refuse(v, fd, who, "another user");
			continue;
		}
		if (fd != -EMFILE)
			return -1;
		if (v->shed++ % 1000 == 0)
			svc_log(v, "%s connection shed: out of descriptors (%llu shed so far)", who,
				(unsigned long long)v->shed);
		if (v->reserve < 0 && (v->reserve = fxt_accept_reserve()) < 0) {
			v->accept_paused_until_ms = svc_now_ms() + SVC_ACCEPT_PAUSE_MS;
			return -1;
		}
	}
}
