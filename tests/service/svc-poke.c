/* Sends the manager service one off-contract packet and tells whether it closed the connection,
 * as it must. Exit 0: closed (refused); 1: not closed within 10 s, or no manager.
 * usage: svc-poke registry|control KIND [DIR]   (DIR: the runtime directory, not vetted)
 *   both:     good (unchanged: refused only for a foreign peer) short version size type big
 *   registry: noterm pid twice nohello
 *   control:  triggers end listfd
 *   control:  file-append file-full file-pipe file-rdonly: a STOP passing an archive file that
 *             cannot be one (poke.file in the working directory, or a pipe): the reply's
 *             message is printed; exit 0 when it refuses, 1 otherwise (connection kept). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/runtime.h"
#include "launcher/manager/msg.h"

static unsigned char pkt[FXT_MSG_MAX + 8192] __attribute__((aligned(8)));

/* A valid packet of the socket's kind, to spoil: HELLO, or LIST. */
static size_t valid(int registry)
{
	memset(pkt, 0, sizeof(pkt));
	if (!registry) {
		*(struct fxt_msg *)pkt = fxt_msg_hdr(FXT_MSG_LIST, sizeof(struct fxt_msg));
		return sizeof(struct fxt_msg);
	}
	struct fxt_msg_hello *h = (void *)pkt;
	h->h = fxt_msg_hdr(FXT_MSG_HELLO, sizeof(*h));
	h->pid = (uint32_t)getpid();
	h->state = FXT_PROVIDER_IDLE;
	strcpy(h->name, "poke");
	return sizeof(*h);
}

/* A descriptor that is no archive file to write: "append" (empty, O_APPEND), "full" (with
 * content), "rdonly" (empty, read-only), "pipe" (a pipe's write end). -1: unknown kind. */
static int bad_file(const char *kind)
{
	if (!strcmp(kind, "pipe")) {
		int p[2];
		return pipe2(p, O_CLOEXEC) < 0 ? -1 : p[1];
	}
	int flags = !strcmp(kind, "append") ? O_WRONLY | O_APPEND
		    : !strcmp(kind, "full")  ? O_RDWR
		    : !strcmp(kind, "rdonly") ? O_RDONLY : -1;
	if (flags < 0)
		return -1;
	int fd = open("poke.file", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && !strcmp(kind, "full") && write(fd, "data", 4) != 4)
		return -1;
	if (fd >= 0)
		close(fd);
	return open("poke.file", flags | O_CLOEXEC);
}

/* Spoils the packet as kind says; returns its length (0: unknown kind), *file: a descriptor
 * to pass. */
static size_t spoil(int registry, const char *kind, int fd, int *file)
{
	size_t len = valid(registry);
	struct fxt_msg *h = (void *)pkt;
	if (!strcmp(kind, "good"))
		return len;
	if (!strcmp(kind, "short"))
		return 4;
	if (!strcmp(kind, "version"))
		h->version = FXT_REGISTRY_VERSION + 1;
	else if (!strcmp(kind, "size"))
		h->size += 8;
	else if (!strcmp(kind, "type"))
		h->type = 99;
	else if (!strcmp(kind, "big"))
		return FXT_MSG_MAX + 4096;
	else if (registry && !strcmp(kind, "noterm"))
		memset(((struct fxt_msg_hello *)pkt)->name, 'A', FXT_NAME_MAX);
	else if (registry && !strcmp(kind, "pid"))
		((struct fxt_msg_hello *)pkt)->pid = (uint32_t)getppid();
	else if (registry && !strcmp(kind, "twice"))
		fxt_msg_send(fd, pkt, len, -1);	/* a good one first */
	else if (registry && !strcmp(kind, "nohello")) {
		struct fxt_msg_session *s = (void *)pkt;
		s->h = fxt_msg_hdr(FXT_MSG_STOPPED, sizeof(*s));
		return sizeof(*s);
	} else if (!registry && !strcmp(kind, "triggers")) {
		struct fxt_msg_trace *t = (void *)pkt;
		t->ntriggers = FXT_TRIGGERS_MAX + 1;
		len = sizeof(*t) + t->ntriggers * sizeof(struct fxt_trigger);
		t->h = fxt_msg_hdr(FXT_MSG_TRACE, len);
	} else if (!registry && !strcmp(kind, "end")) {
		struct fxt_msg_end *e = (void *)pkt;
		e->h = fxt_msg_hdr(FXT_MSG_END, sizeof(*e));
		e->what = 7;
		len = sizeof(*e);
	} else if (!registry && !strcmp(kind, "listfd")) {
		*file = open("/dev/null", O_RDONLY | O_CLOEXEC);
	} else if (!registry && !strncmp(kind, "file-", 5)) {
		struct fxt_msg_end *e = (void *)pkt;
		e->h = fxt_msg_hdr(FXT_MSG_END, sizeof(*e));
		e->what = FXT_END_STOP;
		len = sizeof(*e);
		*file = bad_file(kind + 5);
		if (*file < 0)
			return 0;
	} else {
		return 0;
	}
	return len;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	int registry = !strcmp(argv[1], "registry"), file = -1;
	char dir[4096];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (argc == 4)
		snprintf(dir, sizeof(dir), "%s", argv[3]);
	else if (fxt_runtime_dir(dir, sizeof(dir), 0, NULL) < 0)
		return 1;
	const char *name = registry ? FXT_REGISTRY_SOCKET : FXT_CONTROL_SOCKET;
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name) >=
	    (int)sizeof(a.sun_path))
		return 1;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("svc-poke: connect");
		return 1;
	}
	size_t len = spoil(registry, argv[2], fd, &file);
	if (!len) {
		fprintf(stderr, "svc-poke: unknown kind %s\n", argv[2]);
		return 2;
	}
	int rc = fxt_msg_send(fd, pkt, len, file);
	if (rc < 0 && rc != -EPIPE && rc != -ECONNRESET) {
		fprintf(stderr, "svc-poke: send: %s\n", strerror(-rc));
		return 1;
	}
	if (!strncmp(argv[2], "file-", 5)) {	/* refused by a reply, the connection kept */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct fxt_msg_reply r;
		if (poll(&p, 1, 10000) <= 0 || recv(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return 1;
		r.message[sizeof(r.message) - 1] = 0;
		printf("%s\n", r.message);
		return r.status < 0 ? 0 : 1;
	}
	for (;;) {	/* a reply to a good packet first is skipped; then the end */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) <= 0)
			return 1;
		char b[FXT_MSG_MAX];
		ssize_t n = recv(fd, b, sizeof(b), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 0;
		if (n < 0)
			return 1;
	}
}
