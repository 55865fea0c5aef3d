/* Unit test of the manager's saving ahead (launcher/manager/manager.c fxt_manager_ahead): a streaming
 * provider (this process, over a session buffer it writes itself) whose writers took an eighth
 * of a half of its chunks gets its records saved unasked, with no BUFFER_SAVED sent; with
 * fewer new chunks nothing is saved and the next look is a short wait that backs off up to
 * 256 ms (never past the caller's); the final write then holds every event exactly once, in
 * an archive the strict reader and the validator accept. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
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
#include "policy-stub.h"
#include "common/protocol.h"
#include "fxt/reader.h"
#include "launcher/manager/manager.h"
#include "launcher/manager/session.h"
#include "writer/chunk.h"
#include "writer/policy.h"
#include "writer/records.h"

#define SIZE (1u << 20)
#define CHUNK 4096u

/* The manager's side of the streaming policy (policy-stub.h) is never reached in the first
 * half: nothing acknowledged. */

static void calls(struct fxt_chunk_w *w, int n, uint64_t *ts)
{
	for (int i = 0; i < n; i++, *ts += 2) {
		struct fxt_event e = fxt_ev_complete(fxt_thread_idx(1), fxt_str_idx(1),
						     fxt_str_idx(1), *ts, *ts + 1);
		uint64_t *r = fxt_chunk_reserve(w, fxt_event_words(&e));
		if (r)
			fxt_event_write(r, &e);
	}
}

int main(void)
{
	struct fxt_session sess = { .listen_fd = -1 };
	FILE *f = tmpfile();
	if (!ok(f && fxt_session_create(&sess) == 0, "session made"))
		return done();
	struct fxt_manager *m = fxt_manager_new(sess.dir, fileno(f), sess.listen_fd);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" FXT_SESSION_BUF_FMT, sess.dir, (int)getpid(), 0u);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	void *mem = fd >= 0 && ftruncate(fd, SIZE) == 0
			    ? mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			    : MAP_FAILED;
	struct fxt_buf b;
	struct fxt_policy_state st;
	int made = m && mem != MAP_FAILED ? fxt_buf_init(&b, mem, SIZE, 64 * 1024, CHUNK,
							 FXT_BUF_STREAMING, (uint64_t)getpid())
					  : -1;
	if (!made)
		made = fxt_policy_install(&b, &st, &stub_ops);
	if (!ok(made == 0, "a streaming buffer of %u chunks (%d)", made ? 0 : b.hdr->nchunks, made))
		return done();
	b.hdr->ppid = (uint32_t)getppid();
	uint64_t *s = fxt_buf_durable_reserve(&b, fxt_string_words("f", 1));
	fxt_string_write(s, 1, "f", 1);

	/* STARTED on the session socket, read by the manager (attached: its usage is known) */
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int named = snprintf(a.sun_path, sizeof(a.sun_path), "%.80s/%s", sess.dir,
			     FXT_SESSION_SOCKET) < (int)sizeof(a.sun_path);
	int conn = named ? socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0) : -1;
	trace_provider_packet_t pk = { .request = TRACE_PROVIDER_STARTED,
				       .data32 = TRACE_PROVIDER_FIFO_PROTOCOL_VERSION,
				       .data64 = (uint32_t)getpid() };
	uint64_t used, size;
	int attached = 0;
	if (conn >= 0 && connect(conn, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    send(conn, &pk, sizeof(pk), 0) == sizeof(pk))
		for (int i = 0; i < 100 && !attached; i++)	/* accept, then STARTED */
			attached = fxt_manager_poll(m, -1, 100) >= 0 &&
				   fxt_manager_usage(m, (int)getpid(), &used, &size);
	if (!ok(attached, "the provider attached"))
		return done();

	uint64_t tr[3], ts = 1000;
	fxt_thread_write(tr, 1, (uint64_t)getpid(), (uint64_t)getpid() + 1);
	struct fxt_chunk_w w;
	fxt_chunk_init(&w, &b, tr);
	uint32_t eighth = (b.hdr->nchunks + 15) / 16;
	int per_chunk = (int)((CHUNK - 8 - 24) / 24);
	calls(&w, per_chunk * ((int)eighth - 2), &ts);	/* fewer chunks than an eighth of a half */
	int t1 = fxt_manager_ahead(m, 1000), t2 = fxt_manager_ahead(m, 1000);
	ok(t1 > 0 && t2 == 2 * t1, "%llu chunks taken: not saved ahead, the next look in %d then %d ms",
	   (unsigned long long)b.hdr->next_chunk, t1, t2);
	calls(&w, per_chunk * 3, &ts);
	int t3 = fxt_manager_ahead(m, 1000);
	char ack;
	ssize_t got = recv(conn, &ack, 1, MSG_DONTWAIT);
	ok(t3 == 0 && got < 0 && errno == EAGAIN,
	   "%llu chunks taken: saved ahead (poll at once), no BUFFER_SAVED sent",
	   (unsigned long long)b.hdr->next_chunk);
	int t = 0;
	for (int i = 0; i < 12; i++)
		t = fxt_manager_ahead(m, 1000);
	ok(t == 256 && fxt_manager_ahead(m, 100) == 100 && fxt_manager_ahead(m, -1) == 256,
	   "nothing new: the look backs off to 256 ms, never past the caller's wait");
	calls(&w, 5, &ts);
	fxt_chunk_flush(&w);
	__atomic_store_n(&b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	struct fxt_manager_stats stats;
	int rc = fxt_manager_write(m, &stats);
	long total = per_chunk * ((long)eighth + 1) + 5;
	ok(rc == 0 && stats.saved > 0 && stats.events == (uint64_t)total,
	   "the final write: %llu events of %ld, %llu bytes saved ahead",
	   (unsigned long long)stats.events, total, (unsigned long long)stats.saved);
	ok(archive_events(fileno(f), NULL, NULL) == total, "the archive is valid and holds each event once");
	fxt_manager_free(m);
	close(conn);
	munmap(mem, SIZE);
	close(fd);
	fxt_session_remove(&sess);
	fclose(f);
	return done();
}
