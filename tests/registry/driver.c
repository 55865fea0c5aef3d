/* reg-driver: plays the trace manager service for the provider side's tests (preload/transport/
 * manager-link.c), with the real manager code of fxtrun (launcher/manager/manager.c, session.c): it
 * listens on registry.sock of the runtime directory $FXT_RUNTIME_DIR, starts the program
 * under test (FXT_REGISTER=1, LD_PRELOAD=LIB; none with -n), and follows a script read from
 * stdin, one command per line, printing one line per command:
 *   accept                      wait for the next provider's HELLO: "hello <name>"
 *   start [MODE] [size=N] [cats=LIST] [KIND@FUNCTION]...
 *                               START to every registered provider (one session, one archive
 *                               for the run; MODE oneshot|circular|streaming)
 *   stop                        STOP to every provider, wait for STOPPED (or its end)
 *   prog LINE                   LINE to the program, print its answer
 *   send LINE                   LINE to the program, no answer awaited
 *   hold                        serve until killed, at most 60 s (a manager that dies)
 *   triggered                   wait for a TRIGGERED: "triggered <kind>"
 *   bad FIELD                   a START broken in FIELD to the newest provider; wait until it
 *                               closes the connection: "closed"
 *   gone                        wait until a provider's connection ends: "gone"
 *   end                         write the archive OUT: "archive <processes> <events>"
 * Every wait is bounded (10 s): "driver: timeout ..." and exit 1. Tests only. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/registry.h"
#include "launcher/manager/manager.h"
#include "launcher/manager/session.h"
#include "writer/buffer.h"

#define MAXP 32
#define WAIT_MS 10000

struct prov {
	int fd;			/* -1: gone */
	int hello, stopped;
	pid_t pid;
	char name[FXT_NAME_MAX];
};

static struct prov provs[MAXP];
static int nprovs, accepted, gone_seen, ngone;
static int listen_fd = -1, prog_in = -1, prog_out = -1;
static FILE *prog_reply;
static uint32_t triggered[64];
static int ntriggered, triggered_seen;
static struct fxt_session sess;
static struct fxt_manager *mgr;
static int out_fd = -1;

static void die(const char *what)
{
	printf("driver: %s\n", what);
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void on_message(struct prov *p)
{
	union {
		struct fxt_msg h;
		struct fxt_msg_hello hello;
		struct fxt_msg_session s;
		struct fxt_msg_triggered t;
		char b[FXT_MSG_MAX];
	} m;
	ssize_t n = recv(p->fd, &m, sizeof(m), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < (ssize_t)sizeof(m.h) || m.h.version != FXT_REGISTRY_VERSION ||
	    m.h.size != (uint32_t)n) {
		close(p->fd);
		p->fd = -1;
		ngone++;
		return;
	}
	struct ucred cr;
	socklen_t len = sizeof(cr);
	switch (m.h.type) {
	case FXT_MSG_HELLO:
		if (n != sizeof(m.hello) || p->hello || !memchr(m.hello.name, 0, FXT_NAME_MAX) ||
		    getsockopt(p->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
		    cr.pid != (pid_t)m.hello.pid)
			die("bad HELLO");
		p->hello = 1;
		p->pid = (pid_t)m.hello.pid;
		snprintf(p->name, sizeof(p->name), "%s", m.hello.name);
		break;
	case FXT_MSG_STOPPED:
		p->stopped = 1;
		break;
	case FXT_MSG_RECORDING:	/* the start's barrier: the service's business */
		break;
	case FXT_MSG_TRIGGERED:
		if (n != sizeof(m.t) || ntriggered == 64)
			die("bad TRIGGERED");
		triggered[ntriggered++] = m.t.kind;
		break;
	default:
		die("unexpected message");
	}
}

static int never(void)
{
	return 0;
}

/* Serves everything (providers, their sessions) until done() holds; never: forever. */
static void pump(int (*done)(void), const char *what)
{
	uint64_t t0 = now_ms();
	while (!done()) {
		if (now_ms() - t0 > (done == never ? 6 * WAIT_MS : WAIT_MS)) {
			char why[128];
			snprintf(why, sizeof(why), "timeout waiting for %s", what);
			die(why);
		}
		struct pollfd pf[MAXP + 2];
		int n = 0;
		pf[n++] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		for (int i = 0; i < nprovs; i++)
			pf[n++] = (struct pollfd){ .fd = provs[i].fd, .events = POLLIN };
		poll(pf, (nfds_t)n, 5);
		if (mgr)
			fxt_manager_poll(mgr, -1, 0);
		int fd;
		while (nprovs < MAXP && (fd = accept4(listen_fd, NULL, NULL,
						      SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0)
			provs[nprovs++] = (struct prov){ .fd = fd };
		for (int i = 0; i < nprovs; i++)
			if (provs[i].fd >= 0 && (pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				on_message(&provs[i]);
	}
}

static int hello_waiting(void)
{
	int n = 0;
	for (int i = 0; i < nprovs; i++)
		n += provs[i].hello;
	return n > accepted;
}

static int all_stopped(void)
{
	for (int i = 0; i < nprovs; i++)
		if (provs[i].fd >= 0 && provs[i].hello && !provs[i].stopped)
			return 0;
	return 1;
}

static int prog_ready(void)
{
	struct pollfd p = { .fd = prog_out, .events = POLLIN };
	return poll(&p, 1, 0) > 0;
}

static int trigger_waiting(void)
{
	return ntriggered > triggered_seen;
}

static int one_gone(void)
{
	return ngone > gone_seen;
}

static struct prov *newest(void)
{
	for (int i = nprovs; i-- > 0;)
		if (provs[i].fd >= 0 && provs[i].hello)
			return &provs[i];
	die("no provider");
	return NULL;
}

/* A provider that ended (a fork child done) may not have been seen to go yet: its
 * connection is then closed here as it would be on the next poll, not a failure. */
static void send_to(struct prov *p, const void *m, size_t n)
{
	if (send(p->fd, m, n, MSG_NOSIGNAL) == (ssize_t)n)
		return;
	if (errno != EPIPE && errno != ECONNRESET)
		die("send");
	close(p->fd);
	p->fd = -1;
	ngone++;
}

/* A START for the session from the script's arguments (tokens after "start"). */
static size_t make_start(char *args, struct fxt_msg_start *m, struct fxt_trigger *tr)
{
	memset(m, 0, sizeof(*m) + FXT_TRIGGERS_MAX * sizeof(*tr));
	m->h.type = FXT_MSG_START;
	m->h.version = FXT_REGISTRY_VERSION;
	m->session = 1;
	m->buffer_size = 64ULL << 20;
	m->mode = FXT_BUF_ONESHOT;
	if (strlen(sess.dir) >= sizeof(m->session_dir))
		die("session directory path too long");
	memcpy(m->session_dir, sess.dir, strlen(sess.dir) + 1);
	for (char *save, *tok = strtok_r(args, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		char *at = strchr(tok, '@');
		if (!strcmp(tok, "circular"))
			m->mode = FXT_BUF_CIRCULAR;
		else if (!strcmp(tok, "streaming"))
			m->mode = FXT_BUF_STREAMING;
		else if (!strcmp(tok, "oneshot"))
			m->mode = FXT_BUF_ONESHOT;
		else if (!strncmp(tok, "size=", 5))
			m->buffer_size = strtoull(tok + 5, NULL, 10);
		else if (!strncmp(tok, "cats=", 5))
			snprintf(m->categories, sizeof(m->categories), "%s", tok + 5);
		else if (at && m->ntriggers < FXT_TRIGGERS_MAX) {
			struct fxt_trigger *t = &tr[m->ntriggers++];
			*at = 0;
			t->kind = !strcmp(tok, "start") ? FXT_TRIGGER_START
				  : !strcmp(tok, "stop") ? FXT_TRIGGER_STOP : FXT_TRIGGER_SNAPSHOT;
			snprintf(t->function, sizeof(t->function), "%s", at + 1);
		} else {
			die("bad start argument");
		}
	}
	size_t n = sizeof(*m) + m->ntriggers * sizeof(*tr);
	m->h.size = (uint32_t)n;
	return n;
}

static void ensure_manager(const char *out)
{
	if (mgr)
		return;
	if (fxt_session_create(&sess) < 0)
		die("cannot create a session");
	out_fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out_fd < 0 || !(mgr = fxt_manager_new(sess.dir, out_fd, sess.listen_fd)))
		die("cannot start the manager");
}

static union {
	struct fxt_msg_start m;
	char b[sizeof(struct fxt_msg_start) + (FXT_TRIGGERS_MAX + 1) * sizeof(struct fxt_trigger)];
} start_buf;

/* A START broken in one field: the provider must close the connection. */
static void bad_start(const char *field)
{
	struct fxt_msg_start *m = &start_buf.m;
	struct fxt_trigger *tr = (struct fxt_trigger *)(m + 1);
	char args[64] = "start@t_start";
	size_t n = make_start(args, m, tr);
	if (!strcmp(field, "version"))
		m->h.version = 2;
	else if (!strcmp(field, "size"))
		m->h.size += 8;
	else if (!strcmp(field, "short"))
		n -= 8, m->h.size = (uint32_t)n;
	else if (!strcmp(field, "long"))
		n += 8, m->h.size = (uint32_t)n;
	else if (!strcmp(field, "type"))
		m->h.type = 99;
	else if (!strcmp(field, "mode"))
		m->mode = 7;
	else if (!strcmp(field, "buffer"))
		m->buffer_size = 4096;
	else if (!strcmp(field, "session"))
		m->session = 0;
	else if (!strcmp(field, "ntriggers"))
		m->ntriggers = FXT_TRIGGERS_MAX + 1;
	else if (!strcmp(field, "ntriggers-size"))
		m->ntriggers = 0;
	else if (!strcmp(field, "dir"))
		memset(m->session_dir, 'a', sizeof(m->session_dir));
	else if (!strcmp(field, "relative-dir"))
		snprintf(m->session_dir, sizeof(m->session_dir), "tmp");
	else if (!strcmp(field, "foreign-dir"))
		snprintf(m->session_dir, sizeof(m->session_dir), "/tmp");
	else if (!strcmp(field, "cats"))
		memset(m->categories, 'c', sizeof(m->categories));
	else if (!strcmp(field, "kind"))
		tr[0].kind = 9;
	else if (!strcmp(field, "reserved"))
		tr[0].reserved = 1;
	else if (!strcmp(field, "function"))
		memset(tr[0].function, 'f', sizeof(tr[0].function));
	else if (!strcmp(field, "empty-function"))
		tr[0].function[0] = 0;
	else
		die("bad field");
	struct prov *p = newest();
	send_to(p, m, n);
	pump(one_gone, "the provider to close");
	gone_seen++;
	printf("closed\n");
}

static void spawn(char **argv, const char *lib)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		setenv("FXT_REGISTER", "1", 1);
		setenv("LD_PRELOAD", lib, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	prog_in = in[1];
	prog_out = out[0];
	prog_reply = fdopen(prog_out, "r");
}

int main(int argc, char **argv)
{
	const char *lib = NULL, *out = NULL;
	int opt, no_prog = 0;
	char line[1024];
	while ((opt = getopt(argc, argv, "+l:o:n")) != -1) {
		if (opt == 'l')
			lib = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'n')
			no_prog = 1;
		else
			return 2;
	}
	const char *rt = getenv("FXT_RUNTIME_DIR");
	if (!out || !rt || (!no_prog && (!lib || optind >= argc)))
		die("usage: FXT_RUNTIME_DIR=D reg-driver -o OUT (-n | -l LIB -- PROG [ARGS])");
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(rt) + sizeof(FXT_REGISTRY_SOCKET) + 1 > sizeof(a.sun_path))
		die("runtime directory path too long");
	snprintf(a.sun_path, sizeof(a.sun_path), "%.80s/%s", rt, FXT_REGISTRY_SOCKET);
	unlink(a.sun_path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(listen_fd, 16) < 0)
		die("cannot listen on registry.sock");
	if (!no_prog)
		spawn(argv + optind, lib);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "accept", 6)) {
			pump(hello_waiting, "a HELLO");
			int k = 0;
			for (int i = 0; i < nprovs; i++)
				if (provs[i].hello && k++ == accepted)
					printf("hello %s\n", provs[i].name);
			accepted++;
		} else if (!strncmp(line, "start", 5)) {
			ensure_manager(out);
			struct fxt_msg_start *m = &start_buf.m;
			size_t n = make_start(line + 5, m, (struct fxt_trigger *)(m + 1));
			for (int i = 0; i < nprovs; i++)
				if (provs[i].fd >= 0 && provs[i].hello) {
					provs[i].stopped = 0;
					send_to(&provs[i], m, n);
				}
			printf("started\n");
		} else if (!strncmp(line, "stop", 4)) {
			struct fxt_msg_session m = { { FXT_MSG_STOP, FXT_REGISTRY_VERSION,
						       sizeof(m) }, 1 };
			for (int i = 0; i < nprovs; i++)
				if (provs[i].fd >= 0 && provs[i].hello)
					send_to(&provs[i], &m, sizeof(m));
			pump(all_stopped, "STOPPED");
			printf("stopped\n");
		} else if (!strncmp(line, "prog ", 5)) {
			if (write(prog_in, line + 5, strlen(line + 5)) < 0)
				die("the program is gone");
			char reply[256];
			pump(prog_ready, "the program");
			if (!fgets(reply, sizeof(reply), prog_reply))
				die("the program ended");
			fputs(reply, stdout);
		} else if (!strncmp(line, "send ", 5)) {
			if (write(prog_in, line + 5, strlen(line + 5)) < 0)
				die("the program is gone");
		} else if (!strncmp(line, "hold", 4)) {
			printf("holding\n");
			pump(never, "the end");
		} else if (!strncmp(line, "triggered", 9)) {
			pump(trigger_waiting, "TRIGGERED");
			printf("triggered %u\n", triggered[triggered_seen++]);
		} else if (!strncmp(line, "gone", 4)) {
			pump(one_gone, "a provider to go");
			gone_seen++;
			printf("gone\n");
		} else if (!strncmp(line, "bad ", 4)) {
			line[strcspn(line, "\n")] = 0;
			bad_start(line + 4);
		} else if (!strncmp(line, "end", 3)) {
			struct fxt_manager_stats st;
			if (!mgr)
				die("no trace");
			for (int i = 0; i < 8; i++)
				fxt_manager_poll(mgr, -1, 0);
			if (fxt_manager_write(mgr, &st) < 0)
				die("cannot write the archive");
			printf("archive %llu %llu\n", (unsigned long long)st.processes,
			       (unsigned long long)st.events);
			fxt_manager_free(mgr);
			mgr = NULL;
			close(out_fd);
			fxt_session_remove(&sess);
		} else if (line[0] != '\n' && line[0] != '#') {
			die("unknown command");
		}
	}
	if (prog_in >= 0)
		close(prog_in);
	if (!no_prog) {
		int st;
		wait(&st);
		printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	unlink(a.sun_path);
	return 0;
}
