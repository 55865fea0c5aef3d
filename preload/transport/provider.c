/* Provider side of the fxtrun protocol: the session buffer file (the session named by
 * FXT_SESSION, or by the manager service's START: preload/transport/manager-link.c), the STARTED / SAVE_BUFFER /
 * BUFFER_SAVED packets, and the transport under the chunk policies (writer/policy.h): backing
 * the file as it is used (preload/transport/grow.c, never all at start), asking for saves and waiting for
 * their acknowledgement. Streaming waits (back-pressure: nothing is lost) unless
 * FXT_OVERFLOW=drop; a manager that does not answer within FXT_SAVE_TIMEOUT_MS turns waiting
 * into counted drops until it answers again. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/provider.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/options.h"
#include "common/protocol.h"
#include "preload/transport/grow.h"
#include "preload/base/fd.h"
#include "writer/policy.h"


static struct {
	char dir[4096];		/* session directory, "" when not managed */
	char path[4200];	/* this process's buffer file in it */
	enum fxt_buf_mode mode;
	int no_follow;
	int read;		/* environment read (first call) */
	int managed;		/* this process's buffer is a session file */
	int sock;		/* connection to the manager, -1 if none */
	ino_t sock_ino;		/* its inode: the program may close and reuse the number */
	int overflow_drop;	/* FXT_OVERFLOW=drop: no waiting, the spec's drop-and-count */
	uint64_t timeout_ns;	/* longest wait for one save */
	int unanswered;		/* a wait timed out: drop without waiting until an ack comes */
} prov = { .sock = -1 };

/* Halves the manager saved (requests 0 .. acks-1 acknowledged, in order), and the policy's
 * state (writer/policy.h). */
static _Atomic uint32_t acks;
static struct fxt_policy_state policy;
static int polling;	/* 1 while one waiting writer polls the socket for BUFFER_SAVED */

int fxtp_provider_managed(void)
{
	return __atomic_load_n(&prov.managed, __ATOMIC_RELAXED);
}

/* 1 if prov.sock is still our connection (not closed and reused by the program). */
static int sock_ok(void)
{
	struct stat st;
	return prov.sock >= 0 && fstat(prov.sock, &st) == 0 && st.st_ino == prov.sock_ino;
}

static void send_packet(uint16_t request, uint32_t data32, uint64_t data64)
{
	trace_provider_packet_t p = { .request = request, .data32 = data32, .data64 = data64 };
	if (sock_ok() && send(prov.sock, &p, sizeof(p), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* the manager is gone: streaming stops saving and drops; nothing else to do */
	}
}

/* Reads the BUFFER_SAVED packets that arrived (non-blocking). Returns -1 once the manager
 * closed the connection (or it is not ours any more), else 0. */
static int poll_acks(void)
{
	trace_provider_packet_t p;
	int saved = errno, rc = 0;
	for (;;) {
		if (!sock_ok()) {
			rc = -1;
			break;
		}
		ssize_t n = recv(prov.sock, &p, sizeof(p), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			rc = -1;
		if (n != sizeof(p))
			break;
		if (p.request != TRACE_PROVIDER_BUFFER_SAVED)
			continue;
		uint32_t cur = atomic_load(&acks);
		while (p.data32 + 1 > cur &&
		       !atomic_compare_exchange_weak(&acks, &cur, p.data32 + 1))
			;
		__atomic_store_n(&prov.unanswered, 0, __ATOMIC_RELAXED);
		/* Writers waiting for this acknowledgement sleep on acks: wake them all. */
		syscall(SYS_futex, &acks, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
	errno = saved;
	return rc;
}

/* Streaming back-pressure: waits until the manager acknowledged save w - 1 (acks >= w), at
 * most prov.timeout_ns. Returns 1 when it did, 0 when it did not (manager gone or silent:
 * later takes drop without waiting until an acknowledgement arrives). */
static int wait_acks(struct fxt_buf *b, uint32_t w)
{
	uint64_t t0 = fxt_mono_ns();
	int saved = errno;
	while (atomic_load(&acks) < w) {
		if (poll_acks() < 0 || fxt_mono_ns() - t0 > prov.timeout_ns) {
			__atomic_store_n(&prov.unanswered, 1, __ATOMIC_RELAXED);
			fxt_buf_drop_reason(b, FXT_DROP_NO_MANAGER);
			break;
		}
		if (atomic_load(&acks) >= w)
			break;
		/* One waiting thread polls the socket; the others sleep on acks until it (or
		 * anyone reading an acknowledgement) wakes them. Both wake up every few ms to
		 * look at the clock. */
		uint32_t seen = atomic_load(&acks);
		if (seen >= w)
			break;
		if (!__atomic_exchange_n(&polling, 1, __ATOMIC_ACQUIRE)) {
			struct pollfd pfd = { .fd = prov.sock, .events = POLLIN };
			poll(&pfd, 1, 5);
			__atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
		} else {
			struct timespec ts = { 0, 5000000 };
			syscall(SYS_futex, &acks, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
		}
	}
	errno = saved;
	return atomic_load(&acks) >= w;
}

/* The policy's view of the manager (struct fxt_policy_ops). */
static void request_save(struct fxt_buf *b, uint32_t w, uint64_t durable_used)
{
	(void)b;
	send_packet(TRACE_PROVIDER_SAVE_BUFFER, w, durable_used);
}

static uint32_t acked(struct fxt_buf *b)
{
	(void)b;
	poll_acks();
	return atomic_load(&acks);
}

static int wait_saved(struct fxt_buf *b, uint32_t w)
{
	if (prov.overflow_drop) {
		fxt_buf_drop_reason(b, FXT_DROP_OVERFLOW);
		return 0;
	}
	return !__atomic_load_n(&prov.unanswered, __ATOMIC_RELAXED) && wait_acks(b, w);
}

static const struct fxt_policy_ops manager_ops = { fxtp_grow_back, request_save, acked,
						   wait_saved };

/* Removes every LD_PRELOAD entry naming libfxtauto (--no-follow: children run untraced). */
static void strip_preload(void)
{
	const char *v = getenv("LD_PRELOAD");
	if (!v)
		return;
	char *copy = strdup(v), *out = strdup(v), *save = NULL;
	if (!copy || !out)
		goto done;
	out[0] = 0;
	for (char *tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
		if (strstr(tok, "libfxtauto"))
			continue;
		if (out[0])
			strcat(out, ":");
		strcat(out, tok);
	}
	if (out[0])
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(FXT_ENV_SESSION);
done:
	free(copy);
	free(out);
}

/* The environment, once: the session fxtrun names (none under the manager service: START
 * names it, fxtp_provider_session) and how streaming waits. */
static void read_env(void)
{
	const char *dir = getenv(FXT_ENV_SESSION), *mode = getenv(FXT_ENV_MODE);
	const char *nf = getenv(FXT_ENV_NO_FOLLOW);
	prov.read = 1;
	if (dir && *dir && strlen(dir) < sizeof(prov.dir) - 64) {
		snprintf(prov.dir, sizeof(prov.dir), "%s", dir);
		prov.mode = !mode || !strcmp(mode, "streaming") ? FXT_BUF_STREAMING
			    : !strcmp(mode, "circular")		 ? FXT_BUF_CIRCULAR
								 : FXT_BUF_ONESHOT;
		prov.no_follow = nf && !strcmp(nf, "1");
		if (prov.no_follow)
			strip_preload();
	}
	/* FXT_OVERFLOW and FXT_SAVE_TIMEOUT_MS through the settings table's own parsers and
	 * defaults (the constructor refused bad values already). */
	struct fxt_settings set;
	fxt_settings_default(&set);
	static const char *const names[] = { "FXT_OVERFLOW", "FXT_SAVE_TIMEOUT_MS" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);
		const struct fxt_option *e = v ? fxt_option_find(names[i], 0) : NULL;
		if (e)
			e->parse(v, &set);
	}
	prov.overflow_drop = set.overflow_drop;
	prov.timeout_ns = set.save_timeout_ms * 1000000ULL;
}

static void connect_manager(uint32_t n, pid_t pid)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", prov.dir, FXT_SESSION_SOCKET) >=
	    (int)sizeof(a.sun_path))
		return;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return;
	}
	int high = fxtp_fd_high(fd);
	struct stat st;
	if (high < 0 || fstat(high, &st) < 0) {
		if (high >= 0)
			close(high);
		return;
	}
	prov.sock = high;
	prov.sock_ino = st.st_ino;
	fxtp_fd_keep(&prov.sock);	/* a daemon closing every descriptor keeps it */
	send_packet(TRACE_PROVIDER_STARTED, TRACE_PROVIDER_FIFO_PROTOCOL_VERSION,
		    (uint64_t)n << 32 | (uint32_t)pid);
}

/* Tells the manager this process runs untraced and why: "<pid>.untraced" in the session holds
 * "<errno> <program>" (no buffer) or "shed <path>" (an exec without the tracer); the summary
 * counts and names these (common/protocol.h). Returns 0 or -errno. */
static int not_traced(pid_t pid, const char *why)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%d" FXT_SESSION_UNTRACED_SUFFIX, prov.dir, (int)pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = fxt_write_all(fd, why, strlen(why));
	close(fd);
	return rc;
}

int fxtp_provider_note_shed(const char *what)
{
	static char note[4200];	/* the note written, withdrawn after the session's end too */
	char line[600];
	if (!what) {
		int rc = note[0] && unlink(note) < 0 ? -errno : 0;
		note[0] = 0;
		return rc;
	}
	snprintf(note, sizeof(note), "%s/%d" FXT_SESSION_UNTRACED_SUFFIX, prov.dir, (int)getpid());
	snprintf(line, sizeof(line), "shed %.500s\n", what);
	int rc = not_traced(getpid(), line);
	if (rc < 0)
		note[0] = 0;
	return rc;
}

const char *fxtp_provider_session_refused(const char *dir)
{
	struct stat st;
	char sock[4200];
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return "not an fxtrun session (not a directory)";
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return "not an fxtrun session (a session directory is ours, mode 0700)";
	snprintf(sock, sizeof(sock), "%s/%s", dir, FXT_SESSION_SOCKET);
	if (lstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode))
		return "not an fxtrun session (no manager socket: set by fxtrun only)";
	return NULL;
}

void fxtp_provider_session(const char *dir, enum fxt_buf_mode mode)
{
	if (!prov.read)
		read_env();
	snprintf(prov.dir, sizeof(prov.dir), "%s", dir);
	prov.mode = mode;
}

/* Closes our connection (a fork child: the parent's). */
static void close_sock(void)
{
	fxtp_fd_release(&prov.sock);
	if (sock_ok())
		close(prov.sock);
	prov.sock = -1;
}

void fxtp_provider_end(int remove)
{
	close_sock();
	fxtp_grow_detach();
	if (remove && prov.path[0])
		unlink(prov.path);
	prov.path[0] = 0;
	prov.dir[0] = 0;
	__atomic_store_n(&prov.managed, 0, __ATOMIC_RELAXED);
}

int fxtp_provider_open(struct fxt_buf *b, void **map, size_t size, uint64_t durable,
		       uint32_t chunk_size, struct fxt_clock_pair clock_start)
{
	int child = prov.read;	/* second call: a fork child (or a START's buffer) */
	if (!prov.read)
		read_env();
	if (!prov.dir[0])
		return 0;
	if (child && prov.no_follow) {
		prov.managed = 0;
		return -ECANCELED;
	}
	close_sock();	/* the parent's connection: ours is made below */
	pid_t pid = getpid();
	char path[4200];
	int fd = -1;
	uint32_t n;
	for (n = 0; n < 1000 && fd < 0; n++) {
		snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, prov.dir, (int)pid, n);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	n--;
	/* Sized now, reserved as used (preload/transport/grow.c): the header and durable area at once, the
	 * chunks a step ahead of the writers, so a full tmpfs refuses chunks (counted drops)
	 * instead of killing the program with SIGBUS. */
	struct rlimit lim;	/* past RLIMIT_FSIZE, ftruncate would send the program SIGXFSZ */
	int rc = getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
			 (uint64_t)lim.rlim_cur < size
		 ? -EFBIG
		 : ftruncate(fd, (off_t)size) < 0 ? -errno : 0;
	if (!rc)
		rc = fxtp_grow_attach(fd, path, 0);
	uint64_t first = FXT_BUF_HDR_SIZE + (durable < FXTP_GROW_FIRST ? durable : FXTP_GROW_FIRST);
	if (!rc)
		rc = fxtp_grow_initial(first);
	void *m = rc ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!rc && m == MAP_FAILED)
		rc = -errno;
	close(fd);
	if (rc < 0) {
		fxtp_grow_detach();
		unlink(path);
		char why[300];
		snprintf(why, sizeof(why), "%d %.200s\n", -rc, program_invocation_short_name);
		not_traced(pid, why);
		return rc;
	}
	rc = fxt_buf_init(b, m, size, durable, chunk_size, prov.mode, (uint64_t)pid);
	if (rc < 0) {
		munmap(m, size);
		fxtp_grow_detach();
		unlink(path);
		return rc;
	}
	snprintf(prov.path, sizeof(prov.path), "%s", path);
	b->hdr->durable_backed = first;
	b->hdr->backed = b->hdr->chunks_off;
	b->back_durable = fxtp_grow_durable;
	b->hdr->ppid = (uint32_t)getppid();	/* before STARTED: the manager's /proc read is late */
	b->hdr->clock_start = clock_start;
	fxt_policy_install(b, &policy, &manager_ops);
	fxtp_grow_start(b, NULL);
	atomic_store(&acks, 0);
	prov.unanswered = 0;
	*map = m;
	prov.managed = 1;
	connect_manager(n, pid);
	return 1;
}
