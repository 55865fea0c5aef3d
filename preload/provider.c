/* Provider side of the fxtrun protocol: the session buffer file, the STARTED / SAVE_BUFFER /
 * BUFFER_SAVED packets, and the chunk policies of circular and streaming modes. Invariants: a
 * chunk is handed to a new writer only after its previous writer left it (word 0 closed bit),
 * and in streaming mode only once the manager acknowledged a save made after it was left, so
 * every committed record is saved exactly once; records are dropped, never waited for. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/protocol.h"

#define SOCK_FD_MIN 64	/* keep the program's own fd numbers as they would be untraced */
#define POLL_EVERY 64	/* streaming, other half busy: look for BUFFER_SAVED every Nth try */

static struct {
	char dir[4096];		/* session directory, "" when not managed */
	enum fxt_buf_mode mode;
	int no_follow;
	int read;		/* environment read (first call) */
	int managed;		/* this process's buffer is a session file */
	int sock;		/* connection to the manager, -1 if none */
	ino_t sock_ino;		/* its inode: the program may close and reuse the number */
} prov = { .sock = -1 };

/* Streaming state of this process: roll = wrap count << 32 | chunks taken in the current half;
 * acks = halves the manager saved (requests 0 .. acks-1 acknowledged, in order). */
static _Atomic uint64_t roll;
static _Atomic uint32_t acks;
static _Atomic uint32_t tries;

int fxtp_provider_managed(void)
{
	return __atomic_load_n(&prov.managed, __ATOMIC_RELAXED);
}

static uint64_t *chunk_at(struct fxt_buf *b, uint64_t idx)
{
	return (uint64_t *)(b->base + b->hdr->chunks_off + idx * b->hdr->chunk_size);
}

/* Claims chunk c whose word 0 was `old`: marks it busy, clears the previous writer's records,
 * then publishes the new sequence number. 0 if another taker won it. */
static int claim(struct fxt_buf *b, uint64_t *c, uint64_t old)
{
	if (!__atomic_compare_exchange_n(&c[0], &old, FXT_CHUNK_BUSY, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;
	if (old)
		memset(c + 1, 0, b->hdr->chunk_size - 8);
	uint64_t seq = atomic_fetch_add_explicit(&b->hdr->next_chunk, 1, memory_order_relaxed);
	__atomic_store_n(&c[0], (seq + 1) & FXT_CHUNK_SEQ_MASK, __ATOMIC_RELEASE);
	return 1;
}

/* Circular: the next chunk in ring order that its writer left (or never taken). */
static uint64_t *circular_take(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	static _Atomic uint64_t cursor;
	for (uint32_t i = 0; i < h->nchunks; i++) {
		uint64_t at = atomic_fetch_add_explicit(&cursor, 1, memory_order_relaxed);
		if (at && at % h->nchunks == 0)
			atomic_fetch_add_explicit(&h->wraps, 1, memory_order_relaxed);
		uint64_t *c = chunk_at(b, at % h->nchunks);
		uint64_t old = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
		if (old && !(old & FXT_CHUNK_CLOSED))
			continue;	/* a writer still owns it */
		if (claim(b, c, old))
			return c;
	}
	return NULL;
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

/* Reads the BUFFER_SAVED packets that arrived (non-blocking). */
static void poll_acks(void)
{
	trace_provider_packet_t p;
	int saved = errno;
	while (sock_ok() && recv(prov.sock, &p, sizeof(p), MSG_DONTWAIT) == sizeof(p)) {
		if (p.request != TRACE_PROVIDER_BUFFER_SAVED)
			continue;
		uint32_t cur = atomic_load(&acks);
		while (p.data32 + 1 > cur &&
		       !atomic_compare_exchange_weak(&acks, &cur, p.data32 + 1))
			;
	}
	errno = saved;
}

/* Streaming: chunks of the current half in order; when it is full, switch to the other half if
 * the manager saved it (and ask for the full one to be saved), else NULL: the record drops. */
static uint64_t *streaming_take(struct fxt_buf *b)
{
	struct fxt_buf_hdr *h = b->hdr;
	uint32_t half = h->nchunks / 2;
	for (;;) {
		uint64_t r = atomic_load(&roll);
		uint32_t w = (uint32_t)(r >> 32), k = (uint32_t)r;
		if (k < half) {
			if (!atomic_compare_exchange_weak(&roll, &r, r + 1))
				continue;
			uint64_t *c = chunk_at(b, (uint64_t)(w & 1) * half + k);
			uint64_t old = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
			/* Reusable once left at wrap <= w - 2: the save of that wrap (acknowledged
			 * before this half came back) read everything its writer wrote. */
			uint64_t left_at = old >> FXT_CHUNK_WRAP_SHIFT;
			if (old && (!(old & FXT_CHUNK_CLOSED) ||
				    ((w - left_at) & FXT_CHUNK_WRAP_MASK) < 2))
				continue;
			if (claim(b, c, old))
				return c;
			continue;
		}
		if (atomic_load(&acks) < w) {
			if (atomic_fetch_add(&tries, 1) % POLL_EVERY == 0)
				poll_acks();
			if (atomic_load(&acks) < w)
				return NULL;
		}
		if (atomic_compare_exchange_strong(&roll, &r, (uint64_t)(w + 1) << 32)) {
			atomic_fetch_add_explicit(&h->wraps, 1, memory_order_relaxed);
			send_packet(TRACE_PROVIDER_SAVE_BUFFER, w,
				    atomic_load_explicit(&h->durable_used, memory_order_relaxed));
		}
	}
}

/* A writer leaves chunk c: closed bit, and (streaming) the wrap count read after its last
 * record, so the save of that wrap is known to hold all of them. */
static void release(struct fxt_buf *b, uint64_t *c)
{
	(void)b;
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t w = atomic_load(&roll) >> 32;
	uint64_t v = __atomic_load_n(&c[0], __ATOMIC_RELAXED) & FXT_CHUNK_SEQ_MASK;
	v |= FXT_CHUNK_CLOSED | (w & FXT_CHUNK_WRAP_MASK) << FXT_CHUNK_WRAP_SHIFT;
	__atomic_store_n(&c[0], v, __ATOMIC_SEQ_CST);
}

static const struct fxt_buf_policy circular_policy = { circular_take, release };
static const struct fxt_buf_policy streaming_policy = { streaming_take, release };

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

static void read_env(void)
{
	const char *dir = getenv(FXT_ENV_SESSION), *mode = getenv(FXT_ENV_MODE);
	const char *nf = getenv(FXT_ENV_NO_FOLLOW);
	prov.read = 1;
	if (!dir || !*dir || strlen(dir) >= sizeof(prov.dir) - 64)
		return;
	snprintf(prov.dir, sizeof(prov.dir), "%s", dir);
	prov.mode = !mode || !strcmp(mode, "streaming") ? FXT_BUF_STREAMING
		    : !strcmp(mode, "circular")		 ? FXT_BUF_CIRCULAR
							 : FXT_BUF_ONESHOT;
	prov.no_follow = nf && !strcmp(nf, "1");
	if (prov.no_follow)
		strip_preload();
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
	int high = fcntl(fd, F_DUPFD_CLOEXEC, SOCK_FD_MIN);
	close(fd);
	struct stat st;
	if (high < 0 || fstat(high, &st) < 0) {
		if (high >= 0)
			close(high);
		return;
	}
	prov.sock = high;
	prov.sock_ino = st.st_ino;
	send_packet(TRACE_PROVIDER_STARTED, TRACE_PROVIDER_FIFO_PROTOCOL_VERSION,
		    (uint64_t)n << 32 | (uint32_t)pid);
}

int fxtp_provider_open(struct fxt_buf *b, void **map, size_t size, uint64_t durable,
		       uint32_t chunk_size)
{
	int child = prov.read;	/* second call: a fork child */
	if (!prov.read)
		read_env();
	if (!prov.dir[0])
		return 0;
	if (child && prov.no_follow) {
		prov.managed = 0;
		return -ECANCELED;
	}
	if (sock_ok())
		close(prov.sock);	/* the parent's connection: ours is made below */
	prov.sock = -1;
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
	/* Blocks reserved now: a full tmpfs must refuse tracing here, not SIGBUS the program. */
	int rc = ftruncate(fd, (off_t)size) < 0 ? -errno : 0;
	if (!rc && fallocate(fd, 0, 0, (off_t)size) < 0 && errno != EOPNOTSUPP)
		rc = -errno;
	void *m = rc ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!rc && m == MAP_FAILED)
		rc = -errno;
	close(fd);
	if (rc < 0) {
		unlink(path);
		return rc;
	}
	rc = fxt_buf_init(b, m, size, durable, chunk_size, prov.mode, (uint64_t)pid);
	if (rc < 0) {
		munmap(m, size);
		unlink(path);
		return rc;
	}
	b->hdr->ppid = (uint32_t)getppid();	/* before STARTED: the manager's /proc read is late */
	b->policy = prov.mode == FXT_BUF_CIRCULAR    ? &circular_policy
		    : prov.mode == FXT_BUF_STREAMING ? &streaming_policy
						     : NULL;
	atomic_store(&roll, 0);
	atomic_store(&acks, 0);
	*map = m;
	prov.managed = 1;
	connect_manager(n, pid);
	return 1;
}
