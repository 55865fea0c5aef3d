/* Unit test of the manager's word on buffers it cannot read (launcher/manager/manager.c): this process
 * makes four buffers in a session, as four providers would. One overwrites its header and then
 * says STARTED (the manager reads the bad header at STARTED); one overwrites its header and
 * never says STARTED (found by the final scan); one is a file of zeros (a provider killed
 * while making it: no header yet, nothing recorded); one is good and holds one event. The
 * snapshot and the final write count the two overwritten ones as corrupt, naming why; the
 * archive is valid, holds the good provider's event and says each corrupt one with an instant
 * "provider data corrupt"; the file of zeros is not said (it held nothing). (Before: a
 * provider whose header was overwritten before the manager first read it was left out without
 * a word: "1 process, no records dropped" for a run of two.) */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "archive.h"
#include "check.h"
#include "common/protocol.h"
#include "launcher/manager/manager.h"
#include "launcher/manager/session.h"
#include "writer/buffer.h"
#include "writer/chunk.h"
#include "writer/records.h"

#define SIZE (256u << 10)
#define CHUNK 4096u

/* Buffer file n of this process in dir, SIZE bytes of zeros mapped shared, or NULL. */
static void *buffer_file(const char *dir, unsigned n)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, dir, (int)getpid(), n);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	void *mem = fd >= 0 && ftruncate(fd, SIZE) == 0
			    ? mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			    : MAP_FAILED;
	if (fd >= 0)
		close(fd);
	return mem == MAP_FAILED ? NULL : mem;
}

/* Buffer n laid out, holding one complete event of thread 1 (its name string durable). */
static int buffer(const char *dir, unsigned n, struct fxt_buf *b)
{
	void *mem = buffer_file(dir, n);
	if (!mem || fxt_buf_init(b, mem, SIZE, 64 * 1024, CHUNK, FXT_BUF_ONESHOT,
				 (uint64_t)getpid()) < 0)
		return -1;
	b->hdr->ppid = (uint32_t)getppid();
	uint64_t *s = fxt_buf_durable_reserve(b, fxt_string_words("f", 1));
	fxt_string_write(s, 1, "f", 1);
	uint64_t tr[3];
	fxt_thread_write(tr, 1, (uint64_t)getpid(), (uint64_t)getpid() + 1);
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, b, tr);
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1), fxt_str_idx(1),
					     1000, 2000);
	uint64_t *r = fxt_chunk_reserve(&w, fxt_event_words(&e));
	if (r)
		fxt_event_write(r, &e);
	fxt_chunk_flush(&w);
	__atomic_store_n(&b->hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	return r ? 0 : -1;
}

/* What r-scribble's `header` mode does: sizes no writer makes. */
static void scribble(struct fxt_buf *b)
{
	b->hdr->durable_size = ~0ULL >> 8;
	b->hdr->nchunks = 0xffffffffu;
	b->hdr->chunk_size = 8;
	b->hdr->size = ~0ULL;
}

/* STARTED for buffer n of this process on the session's socket: the connection, or -1. */
static int started(const char *dir, unsigned n)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%.80s/%s", dir, FXT_SESSION_SOCKET);
	int conn = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	trace_provider_packet_t pk = { .request = TRACE_PROVIDER_STARTED,
				       .data32 = TRACE_PROVIDER_FIFO_PROTOCOL_VERSION,
				       .data64 = (uint32_t)getpid() | (uint64_t)n << 32 };
	if (conn >= 0 && (connect(conn, (struct sockaddr *)&a, sizeof(a)) < 0 ||
			  send(conn, &pk, sizeof(pk), 0) != sizeof(pk))) {
		close(conn);
		conn = -1;
	}
	return conn;
}

int main(void)
{
	struct fxt_session sess = { .listen_fd = -1 };
	FILE *f = tmpfile(), *snap = tmpfile();
	if (!ok(f && snap && fxt_session_create(&sess) == 0, "session made"))
		return done();
	struct fxt_manager *m = fxt_manager_new(sess.dir, fileno(f), sess.listen_fd);
	struct fxt_buf early, unsaid, good;
	int made = m && !buffer(sess.dir, 0, &early) && !buffer(sess.dir, 1, &unsaid) &&
		   buffer_file(sess.dir, 2) && !buffer(sess.dir, 3, &good);
	if (!ok(made, "four buffers made"))
		return done();
	scribble(&early);
	scribble(&unsaid);
	int c0 = started(sess.dir, 0), c3 = started(sess.dir, 3);
	uint64_t used, size;
	int attached = 0;
	for (int i = 0; i < 100 && !attached; i++)	/* accept, then STARTED */
		attached = fxt_manager_poll(m, -1, 100) >= 0 &&
			   fxt_manager_usage(m, (int)getpid(), &used, &size);
	fxt_manager_poll(m, -1, 0);	/* the other STARTED, if not read yet (the scan finds it) */
	ok(c0 >= 0 && c3 >= 0 && attached, "the good provider attached");

	struct fxt_manager_stats st;
	int rc = fxt_manager_snapshot(m, fileno(snap), 0, &st);
	ok(rc == 0 && st.corrupt == 2 && st.events == 1,
	   "a snapshot: the good provider's event, %llu providers corrupt",
	   (unsigned long long)st.corrupt);
	rc = fxt_manager_write(m, &st);
	const char *why = "buffer header overwritten before its first save";
	ok(rc == 0 && st.events == 1 && st.corrupt == 2 && st.corrupt_pid == getpid() &&
		   !strncmp(st.corrupt_why, why, strlen(why)),
	   "the write: 1 event, %llu providers corrupt (pid %d: %s)",
	   (unsigned long long)st.corrupt, st.corrupt_pid, st.corrupt_why);
	long noted, events = archive_events(fileno(f), "provider data corrupt", &noted);
	ok(events == 3 && noted == 2,
	   "the archive is valid: %ld events, %ld of them \"provider data corrupt\"", events,
	   noted);
	fxt_manager_free(m);
	close(c0);
	close(c3);
	fxt_session_remove(&sess);
	fclose(f);
	fclose(snap);
	return done();
}
