/* A fake provider of the manager service, for tests: registers (HELLO on registry.sock) and
 * answers START exactly as preload/transport/provider.c does under fxtrun, with the writer library: a
 * buffer file "<pid>.<n>.buf" in the session directory (fxt_buf_init, the mode's policy), a
 * process and a thread record in its durable area, N complete events "fake"/"call" in chunks,
 * then STARTED on the session's manager.sock and RECORDING on the registry socket. On STOP: stop tick, ticks per second, state
 * STOPPED, the session connection closed, STOPPED sent. With --trigger-after K it writes K
 * events, sends a snapshot TRIGGERED stamped after them, then N - K events stamped later.
 * Its clock is CLOCK_MONOTONIC in ns (1e9 ticks per second). Exits 0 when the manager goes.
 * With --silent 1 it never answers START (a provider that cannot start recording).
 * usage: fake-provider [--name NAME] [--events N] [--trigger-after K] [--silent 1] */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/protocol.h"
#include "common/runtime.h"
#include "launcher/manager/msg.h"
#include "writer/chunk.h"
#include "writer/policy.h"
#include "writer/records.h"

static struct {
	const char *name;
	unsigned events, trigger_after;
	int silent;		/* START is left unanswered (a provider that never records) */
	int reg, sess;		/* registry and session connections */
	uint64_t session;
	uint32_t n;		/* buffer files made */
	struct fxt_buf b;
	struct fxt_policy_state policy;
	struct fxt_chunk_w w;
	void *map;
	size_t size;
	uint64_t clock;		/* the last tick handed out */
} f = { .name = "fake", .events = 5, .reg = -1, .sess = -1 };

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	f.clock = t > f.clock ? t : f.clock + 1;
	return f.clock;
}

static int connect_to(const char *dir, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name) >=
	    (int)sizeof(a.sun_path))
		return -1;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Trivial ops: the buffer is not grown, and saves are never needed for a few events. */
static int back(struct fxt_buf *b, uint64_t end) { (void)b; (void)end; return 0; }
static void request(struct fxt_buf *b, uint32_t w, uint64_t d) { (void)b; (void)w; (void)d; }
static uint32_t acked(struct fxt_buf *b) { (void)b; return 0; }
static int wait_saved(struct fxt_buf *b, uint32_t w) { (void)b; (void)w; return 0; }
static const struct fxt_policy_ops ops = { back, request, acked, wait_saved };

/* A durable record: words 1.. first, the header last (release). */
static void durable(const uint64_t *rec, uint32_t words)
{
	uint64_t *p = fxt_buf_durable_reserve(&f.b, words);
	if (!p)
		return;
	memcpy(p + 1, rec + 1, (words - 1) * 8);
	fxt_chunk_commit(p, rec[0]);
}

static void events(unsigned count)
{
	uint64_t pid = (uint64_t)getpid(), rec[16];
	for (unsigned i = 0; i < count; i++) {
		uint64_t t = now();
		struct fxt_event e = fxt_ev_complete(fxt_thread_inl(pid, pid),
						     fxt_str_inl("fake", 4),
						     fxt_str_inl("call", 4), t, now());
		uint32_t words = fxt_event_words(&e);
		fxt_event_write(rec, &e);
		uint64_t *p = fxt_chunk_reserve(&f.w, words);
		if (!p)
			continue;
		memcpy(p + 1, rec + 1, (words - 1) * 8);
		fxt_chunk_commit(p, rec[0]);
	}
}

static void send_triggered(void)
{
	struct fxt_msg_triggered m = { .h = fxt_msg_hdr(FXT_MSG_TRIGGERED, sizeof(m)),
				       .session = f.session, .ticks = now(),
				       .kind = FXT_TRIGGER_SNAPSHOT };
	fxt_msg_send(f.reg, &m, sizeof(m), -1);
}

static int start(const struct fxt_msg_start *m)
{
	char path[512];
	pid_t pid = getpid();
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, m->session_dir, (int)pid, f.n++);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	f.size = m->buffer_size;
	if (fd < 0 || ftruncate(fd, (off_t)f.size) < 0)
		return -1;
	f.map = mmap(NULL, f.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f.map == MAP_FAILED ||
	    fxt_buf_init(&f.b, f.map, f.size, 1 << 16, FXT_BUF_DEFAULT_CHUNK, m->mode,
			 (uint64_t)pid) < 0)
		return -1;
	if (m->mode != FXT_BUF_ONESHOT)
		fxt_policy_install(&f.b, &f.policy, &ops);
	f.b.hdr->ppid = (uint32_t)getppid();
	f.session = m->session;
	uint64_t rec[64];
	struct fxt_kobj proc = { FXT_OBJ_TYPE_PROCESS, (uint64_t)pid,
				 fxt_str_inl(f.name, (uint32_t)strlen(f.name)), NULL, 0 };
	durable(rec, (uint32_t)fxt_kobj_write(rec, &proc));
	struct fxt_warg arg = fxt_arg_koid(fxt_str_inl("process", 7), (uint64_t)pid);
	struct fxt_kobj th = { FXT_OBJ_TYPE_THREAD, (uint64_t)pid, fxt_str_inl("main", 4), &arg,
			       1 };
	durable(rec, (uint32_t)fxt_kobj_write(rec, &th));
	fxt_chunk_init(&f.w, &f.b, NULL);
	if (f.trigger_after) {
		events(f.trigger_after);
		send_triggered();
		events(f.events - f.trigger_after);
	} else {
		events(f.events);
	}
	if ((f.sess = connect_to(m->session_dir, FXT_SESSION_SOCKET)) < 0)
		return -1;
	trace_provider_packet_t pk = { .request = TRACE_PROVIDER_STARTED,
				       .data32 = TRACE_PROVIDER_FIFO_PROTOCOL_VERSION,
				       .data64 = (uint64_t)(f.n - 1) << 32 | (uint32_t)pid };
	if (send(f.sess, &pk, sizeof(pk), MSG_NOSIGNAL) != sizeof(pk))
		return -1;
	struct fxt_msg_session r = { .h = fxt_msg_hdr(FXT_MSG_RECORDING, sizeof(r)),
				     .session = f.session };
	return fxt_msg_send(f.reg, &r, sizeof(r), -1);
}

static void stop(void)
{
	if (!f.map)
		return;
	fxt_chunk_close(&f.w);
	fxt_chunk_flush(&f.w);
	f.b.hdr->ticks_per_second = 1000000000ULL;
	__atomic_store_n(&f.b.hdr->stop_ticks, now(), __ATOMIC_RELEASE);
	__atomic_store_n(&f.b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	close(f.sess);
	f.sess = -1;
	munmap(f.map, f.size);
	f.map = NULL;
	struct fxt_msg_session m = { .h = fxt_msg_hdr(FXT_MSG_STOPPED, sizeof(m)),
				     .session = f.session };
	fxt_msg_send(f.reg, &m, sizeof(m), -1);
}

int main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--name"))
			f.name = argv[i + 1];
		else if (!strcmp(argv[i], "--events"))
			f.events = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--trigger-after"))
			f.trigger_after = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--silent"))
			f.silent = atoi(argv[i + 1]);
	}
	prctl(PR_SET_NAME, f.name);
	char dir[4096];
	if (fxt_runtime_dir(dir, sizeof(dir), 0, NULL) < 0 ||
	    (f.reg = connect_to(dir, FXT_REGISTRY_SOCKET)) < 0) {
		fprintf(stderr, "fake-provider: no manager\n");
		return 1;
	}
	struct fxt_msg_hello h = { .h = fxt_msg_hdr(FXT_MSG_HELLO, sizeof(h)),
				   .pid = (uint32_t)getpid(), .state = FXT_PROVIDER_IDLE };
	snprintf(h.name, sizeof(h.name), "%s", f.name);
	if (fxt_msg_send(f.reg, &h, sizeof(h), -1) < 0)
		return 1;
	static uint64_t buf[FXT_MSG_MAX / 8];
	for (;;) {
		struct pollfd p = { .fd = f.reg, .events = POLLIN };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return 1;
		long n = fxt_msg_recv(f.reg, buf, sizeof(buf), NULL);
		if (n == -EAGAIN)
			continue;
		if (n <= 0)
			return 0;	/* the manager is gone */
		int type = fxt_msg_check(buf, (size_t)n, FXT_FROM_REGISTRY, NULL);
		if (type == FXT_MSG_START && f.silent)
			continue;
		if (type == FXT_MSG_START && start((const void *)buf) < 0)
			fprintf(stderr, "fake-provider: START failed: %s\n", strerror(errno));
		else if (type == FXT_MSG_STOP)
			stop();
		else if (type < 0)
			return 1;
	}
}
