/* The per-user trace manager service (`fxt manager`, common/registry.h), shared by its parts,
 * each calling only those below it: loop.c (runtime directory, sockets, one manager per user,
 * daemon, the one event loop) over providers.c (HELLO, STOPPED, TRIGGERED; START and STOP sent)
 * and clients.c (LIST, TRACE, END; REPLY), both over trace.c (the trace: its session and
 * fxt_manager, stop, snapshot, archive), all over peers.c (clock, log, accepting and refusing
 * connections). The trace answers clients and starts and stops providers through the calls
 * loop.c hands it (struct svc_up), never by name. Single-threaded: everything runs in the
 * event loop; no call blocks on a peer (sockets are non-blocking; a peer that misbehaves is
 * closed and counted). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_SERVICE_H
#define FXT_LAUNCHER_SERVICE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/registry.h"
#include "launcher/manager/manager.h"
#include "launcher/manager/session.h"

#define SVC_STOP_WAIT_MS 3000	/* the longest wait for providers to stop */
#define SVC_START_WAIT_MS 5000	/* the longest wait for chosen providers to record */
#define SVC_MAX_CLIENTS 64	/* control connections open at once; more are refused, told so */
#define SVC_ACCEPT_PAUSE_MS 100	/* no accepting for this long when descriptors ran out */

/* A registered provider (a registry connection). */
struct svc_provider {
	int fd;			/* registry connection */
	int pid;		/* the peer's (SO_PEERCRED); HELLO must say the same */
	uint32_t state;		/* enum fxt_provider_state; 0 until HELLO */
	uint64_t session;	/* the trace it was started in, 0: none */
	int recording;		/* said RECORDING for session */
	char name[FXT_NAME_MAX];
};

/* The running trace. */
struct svc_trace {
	uint64_t id;
	struct fxt_session session;	/* buffers and manager.sock (launcher/manager/session.c) */
	struct fxt_manager *m;
	struct fxt_msg_trace *req;	/* the TRACE packet as vetted, triggers after it */
	size_t req_len;
	int out_fd;		/* what m writes: the client's file (streaming), or a temporary */
	int file_fd;		/* the client's archive file, -1 until given */
	int owner;		/* the attached client's connection, -1: none */
	int owner_pid;
	int file_by;		/* the connection that passed file_fd, -1: none */
	int starter;		/* the connection waiting for the start's barrier, -1: none */
	unsigned chosen;	/* providers START was sent to at TRACE */
	uint64_t begun_ns;	/* TRACE received (CLOCK_MONOTONIC) */
	uint64_t started_ns;	/* the barrier passed (recording since) */
	uint64_t start_deadline_ms;
	int *waiting;		/* connections to REPLY to once the archive is written */
	size_t nwaiting;
	int stopping;		/* STOP sent: waiting for the providers until deadline_ms */
	uint64_t deadline_ms;
	int snapped;		/* ended by a snapshot trigger: the file holds that snapshot */
	struct fxt_manager_stats snap;
};

struct svc;
struct svc_answer;

/* What the trace calls in the parts above it (set by loop.c): providers.c's start and stop,
 * clients.c's reply (svc_provider_start, svc_provider_stop, svc_reply). */
struct svc_up {
	int (*start)(struct svc *v, struct svc_provider *p, const struct svc_trace *t);
	int (*stop)(struct svc *v, struct svc_provider *p);
	void (*reply)(struct svc *v, int fd, int status, const struct svc_answer *a,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
};

struct svc {
	const struct svc_up *up;	/* for the trace */
	char dir[PATH_MAX];	/* runtime directory */
	int reg_fd, ctl_fd, sig_fd, log_fd;
	struct svc_provider *p;
	size_t np, pcap;
	int *clients;		/* control connections */
	size_t nclients, ccap;
	struct svc_trace *trace;	/* NULL: none */
	uint64_t next_session;
	uint64_t refused;	/* connections closed for a foreign peer or a bad message */
	uint64_t shed;		/* connections shed: out of descriptors, or too many clients */
	int reserve;		/* the descriptor kept for shedding (launcher/manager/accept.h) */
	uint64_t accept_paused_until_ms;	/* out of descriptors and no reserve left */
	int quit;		/* SIGTERM/SIGINT: exit once the trace is finished */
};

/* ---- loop.c ---- */

/* Runs the service (`fxt manager`): in the foreground, or as a daemon once its sockets listen.
 * Returns the exit status (0, or 1 after one line on stderr). */
int fxt_service_run(int foreground);

/* ---- peers.c ---- */

/* Writes a line to the service's log (the log file, or stderr in the foreground).
 * Fails: never. */
void svc_log(struct svc *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes connection fd of a peer that broke the contract (foreign user, bad packet) and counts
 * it, with a log line saying why. Fails: never. */
void svc_refuse(struct svc *v, int fd, const char *who, const char *why);

/* Monotonic milliseconds. */
uint64_t svc_now_ms(void);

/* Accepts the next pending connection on listen_fd (v's registry or control socket) from our
 * user (others refused and counted), its pid in *pid (may be NULL). Out of descriptors, one is
 * shed (handed to shed(fd, v) first when not NULL: a client told so), and accepting pauses
 * SVC_ACCEPT_PAUSE_MS when no reserve is left. Returns the connection (non-blocking, cloexec),
 * or -1 when none is pending. */
int svc_accept(struct svc *v, int listen_fd, const char *who, int *pid,
	       void (*shed)(int fd, void *v));

/* ---- providers.c ---- */

/* Accepts every pending provider connection (our uid only). */
void svc_providers_accept(struct svc *v);

/* Reads what provider connection fd sent; a closed or misbehaving one is removed. */
void svc_providers_read(struct svc *v, int fd);

/* Sends START for trace t to p (state ARMED or TRACING). Fails: -errno (p is removed from
 * the registry: the caller must not use it again). */
int svc_provider_start(struct svc *v, struct svc_provider *p, const struct svc_trace *t);

/* Sends STOP to p (state STOPPING). Fails: -errno (p is removed, as above). */
int svc_provider_stop(struct svc *v, struct svc_provider *p);

/* ---- clients.c ---- */

/* Accepts every pending client connection (our uid only). */
void svc_clients_accept(struct svc *v);

/* Reads what client connection fd sent and answers it; a closed or misbehaving one is removed. */
void svc_clients_read(struct svc *v, int fd);

/* What a REPLY says besides its status and message. */
struct svc_answer {
	uint64_t session;
	const struct fxt_manager_stats *st;	/* what the archive holds, or NULL */
	uint32_t flags;				/* FXT_REPLY_* */
	uint64_t recorded_ns;
	const char *archive;			/* where the manager put it, or NULL */
};

/* Sends REPLY to client fd: status (0 or -errno), a (may be NULL: nothing more) and a
 * one-line message. Fails: never (a client that cannot take it is its own problem: its
 * connection is closed by its next read). */
void svc_reply(struct svc *v, int fd, int status, const struct svc_answer *a, const char *fmt,
	       ...) __attribute__((format(printf, 5, 6)));

/* ---- trace.c ---- */

/* TRACE from client fd (packet req, len bytes, vetted; file: its archive file or -1, taken):
 * starts the trace and answers. */
void svc_trace_begin(struct svc *v, int fd, const struct fxt_msg_trace *req, size_t len,
		     int file);

/* END from client fd (file: or -1, taken): snapshot, or stop (answered once written). */
void svc_trace_end(struct svc *v, int fd, const struct fxt_msg_end *end, int file);

/* A provider said HELLO: started if the running trace chooses it. */
void svc_trace_joined(struct svc *v, struct svc_provider *p);

/* A provider that said HELLO while in a trace (a fork child of a traced process): kept in the
 * running trace, or stopped when that trace is not the running one. */
void svc_trace_born_in(struct svc *v, struct svc_provider *p);

/* A provider of the trace said TRIGGERED. */
void svc_trace_triggered(struct svc *v, struct svc_provider *p,
			 const struct fxt_msg_triggered *t);

/* Client connection fd closed: an attached trace is stopped (its archive still finished). */
void svc_trace_client_gone(struct svc *v, int fd);

/* Stops the trace (SIGTERM, or its owner left); a stopping trace is left as it is. */
void svc_trace_stop(struct svc *v);

/* Finishes a stopping trace whose providers all stopped (said STOPPED or are gone) or whose
 * wait ran out: called once per turn of the event loop, never from a handler. */
void svc_trace_check(struct svc *v);

/* The poll timeout the trace needs (-1: none). */
int svc_trace_timeout_ms(const struct svc *v);

#endif
