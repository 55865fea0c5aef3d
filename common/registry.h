/* The contract of the per-user trace manager service (`fxt manager`, launcher/service/loop.c): its
 * runtime directory, and the messages of its two sockets, after the Fuchsia Tracing System
 * Design's TraceRegistry (providers register and wait) and TraceController (clients list, start,
 * stop and snapshot). Providers (preload/transport/manager-link.c) speak on the registry socket; clients (`fxt
 * list|record|start|stop|snapshot`) on the control socket. Once a trace starts, a provider gets
 * its buffer in the session directory named by START and follows common/protocol.h (STARTED /
 * SAVE_BUFFER / BUFFER_SAVED) with the session's own socket, exactly as under fxtrun.
 *
 * Every message is one SOCK_SEQPACKET packet: a struct fxt_msg header, then a fixed body per
 * type, then (START, LIST_REPLY) the variable part its body announces. A receiver refuses (and
 * closes the connection on) any message whose size is not exactly what its header and body say,
 * whose version is not FXT_REGISTRY_VERSION, whose reserved fields are not zero or whose strings
 * are not NUL-terminated within their size. Both sides check the peer's credentials
 * (SO_PEERCRED): same uid, and a provider's pid is its own. Integers are host order (one
 * machine, one user). A change here bumps FXT_REGISTRY_VERSION. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_REGISTRY_H
#define FXT_COMMON_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

/* Environment. */
#define FXT_ENV_REGISTER "FXT_REGISTER"	/* "1": register with the manager and wait for a trace */
#define FXT_ENV_RUNTIME "FXT_RUNTIME_DIR" /* the manager's directory, overriding the default */

/* The runtime directory: $FXT_RUNTIME_DIR, else $XDG_RUNTIME_DIR/fxtauto, else
 * /tmp/fxtauto-<uid>. Mode 0700, owned by the user, a real directory (not a symlink): a client,
 * the manager and a provider all refuse one that is not. It holds: */
#define FXT_REGISTRY_SOCKET "registry.sock"	/* providers */
#define FXT_CONTROL_SOCKET "control.sock"	/* clients */
#define FXT_MANAGER_PIDFILE "manager.pid"	/* "<pid> <start time>\n" of the live manager */

#define FXT_REGISTRY_VERSION 2u
#define FXT_MSG_MAX 65536u		/* the largest packet either side sends or reads */
#define FXT_NAME_MAX 256u		/* process name, NUL included */
#define FXT_TRIGGERS_MAX 16u		/* triggers of one trace */
#define FXT_TRIGGER_NAME_MAX 256u	/* function name of a trigger, NUL included */
#define FXT_PATH_MAX 4096u		/* an archive's path, NUL included */

struct fxt_msg {
	uint16_t type;		/* enum fxt_msg_type */
	uint16_t version;	/* FXT_REGISTRY_VERSION */
	uint32_t size;		/* bytes of the whole packet, header included */
};

enum fxt_msg_type {
	/* ---- registry socket ---- */
	FXT_MSG_HELLO = 1,	/* provider -> manager: struct fxt_msg_hello */
	FXT_MSG_START = 2,	/* manager -> provider: struct fxt_msg_start (+ variable part) */
	FXT_MSG_STOP = 3,	/* manager -> provider: struct fxt_msg_session */
	FXT_MSG_STOPPED = 4,	/* provider -> manager: struct fxt_msg_session: its buffer is final
				 * (hdr state FXT_BUF_STOPPED) and its session connection closed */
	FXT_MSG_TRIGGERED = 5,	/* provider -> manager: struct fxt_msg_triggered */
	FXT_MSG_RECORDING = 6,	/* provider -> manager: struct fxt_msg_session: START done, its
				 * buffer made and recording (or armed); the start's barrier */

	/* ---- control socket ---- */
	FXT_MSG_LIST = 16,	/* client -> manager: header only */
	FXT_MSG_LIST_REPLY = 17,/* manager -> client: struct fxt_msg_list + count entries */
	FXT_MSG_TRACE = 18,	/* client -> manager: struct fxt_msg_trace (+ variable part); with
				 * SCM_RIGHTS, the archive file (record; start of streaming) */
	FXT_MSG_END = 19,	/* client -> manager: struct fxt_msg_end; with SCM_RIGHTS, the
				 * archive file (stop, snapshot) unless TRACE gave one */
	FXT_MSG_REPLY = 20,	/* manager -> client: struct fxt_msg_reply */
};

/* HELLO: sent once right after connecting, by every traced image (a fork child and an exec'd
 * image are new providers). A fork child of a process in a trace is in that trace from birth
 * (its parent's recording goes on in it): session and state say so. */
struct fxt_msg_hello {
	struct fxt_msg h;
	uint32_t pid;		/* must be the peer's pid (SO_PEERCRED) */
	uint32_t state;		/* enum fxt_provider_state: IDLE, or ARMED/TRACING in session */
	uint64_t session;	/* the trace it records in (0 when IDLE) */
	char name[FXT_NAME_MAX];/* program_invocation_short_name */
};

/* Trigger kinds (uftrace's trace_on/trace_off, and the flight recorder's "save now"). */
enum fxt_trigger_kind {
	FXT_TRIGGER_START = 1,	/* recording starts when the function is entered */
	FXT_TRIGGER_STOP = 2,	/* recording pauses when the function is entered */
	FXT_TRIGGER_SNAPSHOT = 3/* the trace is saved (then ends) when the function is entered */
};

struct fxt_trigger {
	uint32_t kind;		/* enum fxt_trigger_kind */
	uint32_t reserved;
	char function[FXT_TRIGGER_NAME_MAX]; /* as the symbolizer names it ("ns::f(int)" or "f") */
};

/* START: trace into a new buffer in session_dir (common/protocol.h: "<pid>.<n>.buf", then
 * STARTED on its manager.sock). categories: as FXT_CATEGORIES ("" = all). With a START trigger
 * the buffer is made at once but nothing is recorded until the function is entered. */
struct fxt_msg_start {
	struct fxt_msg h;
	uint64_t session;	/* session id */
	uint64_t buffer_size;	/* bytes, as FXT_BUFFER_SIZE */
	uint32_t mode;		/* enum fxt_buf_mode: oneshot, circular, streaming */
	uint32_t ntriggers;	/* <= FXT_TRIGGERS_MAX struct fxt_trigger after this body */
	char session_dir[256];
	char categories[4096];
	/* struct fxt_trigger triggers[ntriggers]; */
};

/* STOP and STOPPED. */
struct fxt_msg_session {
	struct fxt_msg h;
	uint64_t session;
};

/* TRIGGERED: a trigger fired in this provider at tick `ticks` (its clock). */
struct fxt_msg_triggered {
	struct fxt_msg h;
	uint64_t session;
	uint64_t ticks;
	uint32_t kind;		/* enum fxt_trigger_kind */
	uint32_t reserved;
};

/* Provider states as LIST shows them. */
enum fxt_provider_state {
	FXT_PROVIDER_IDLE = 1,		/* registered, waiting */
	FXT_PROVIDER_ARMED = 2,		/* in a trace, waiting for its start trigger */
	FXT_PROVIDER_TRACING = 3,
	FXT_PROVIDER_STOPPING = 4,	/* asked to stop, not stopped yet */
	FXT_PROVIDER_FIRED = 5,		/* its stop@ trigger fired: not recording (a start@ trigger
					 * of the trace records again) */
	FXT_PROVIDER_STARTING = 6,	/* LIST only: START sent, RECORDING not said yet */
};

struct fxt_list_entry {
	uint32_t pid;
	uint32_t state;		/* enum fxt_provider_state */
	uint64_t buffer_used;	/* bytes of its buffer holding records (0 when idle) */
	uint64_t buffer_size;
	char name[FXT_NAME_MAX];
};

struct fxt_msg_list {
	struct fxt_msg h;
	uint64_t session;	/* the running trace, 0: none */
	uint32_t count;		/* entries after this body */
	uint32_t session_state;	/* 0 none, 1 running (recording or armed) */
};

/* TRACE: start a trace. A provider is chosen when pid matches (pid != 0) or its name equals
 * name (name[0] != 0), else every registered provider; those registering while the trace runs
 * are chosen by the same rule. Streaming needs the archive file at TRACE; so does a SNAPSHOT
 * trigger, which also needs oneshot or circular mode (else REPLY -EINVAL). With flags
 * FXT_TRACE_ATTACHED the trace belongs to this connection (record): when the connection closes
 * the trace is stopped and the archive finished. */
enum { FXT_TRACE_ATTACHED = 1u };
struct fxt_msg_trace {
	struct fxt_msg h;
	uint64_t buffer_size;	/* 0: the default (64M) */
	uint32_t mode;		/* enum fxt_buf_mode */
	uint32_t flags;		/* FXT_TRACE_* */
	uint32_t pid;		/* 0: any */
	uint32_t ntriggers;
	char name[FXT_NAME_MAX];/* "": any */
	char categories[4096];
	char output[FXT_PATH_MAX];	/* "" or the absolute path of the archive file passed with
					 * TRACE as output + ".part" (fxt start -o): the manager
					 * renames it once complete, whoever or whatever ends the
					 * trace */
	/* struct fxt_trigger triggers[ntriggers]; */
};

/* END: what = FXT_END_STOP (stop the trace and write the archive) or FXT_END_SNAPSHOT (write
 * what the buffers hold now into the file passed with this message; the trace goes on). */
enum { FXT_END_STOP = 1u, FXT_END_SNAPSHOT = 2u };
/* A trace started attached (fxt record) is stopped only by its own connection, or by an END
 * STOP with FXT_END_FORCE (fxt stop --force). */
enum { FXT_END_FORCE = 1u };
struct fxt_msg_end {
	struct fxt_msg h;
	uint32_t what;
	uint32_t flags;		/* FXT_END_* */
};

/* REPLY: status 0, or -errno with a one-line message; then what the archive holds (STOP,
 * SNAPSHOT, and the end of an attached trace). flags say which file holds it: the one passed
 * with this request (FXT_REPLY_IN_FILE), or the one passed with TRACE (FXT_REPLY_IN_START);
 * neither: a file of the runtime directory the message names. recorded_ns: how long the trace
 * recorded (TRACE: how long the start took, its barrier). */
enum { FXT_REPLY_IN_FILE = 1u, FXT_REPLY_IN_START = 2u };
struct fxt_msg_reply {
	struct fxt_msg h;
	int32_t status;
	uint32_t flags;		/* FXT_REPLY_* */
	uint64_t session;
	uint64_t processes, threads, events, bytes, dropped;
	uint32_t drop_reasons;
	uint32_t corrupt;
	uint64_t overwritten;	/* providers whose circular buffer wrapped (oldest records gone) */
	uint64_t overwritten_records;	/* about how many records they overwrote */
	uint64_t kept_ns, span_ns;	/* the shortest window kept: its last kept_ns of span_ns */
	uint64_t recorded_ns;
	char message[512];
	char archive[FXT_PATH_MAX];	/* "" or where the manager put the archive (TRACE's
					 * output, or a file of the runtime directory) */
};

/* START's buffer size range (as FXT_BUFFER_SIZE). */
#define FXT_START_BUFFER_MIN (1ULL << 20)
#define FXT_START_BUFFER_MAX (64ULL << 30)

/* Who sent the packet: each side accepts only the types its peer may send. */
enum fxt_msg_from {
	FXT_FROM_PROVIDER = 0,	/* registry socket, at the manager: HELLO, STOPPED, TRIGGERED,
				 * RECORDING */
	FXT_FROM_CLIENT = 1,	/* control socket, at the manager: LIST, TRACE, END */
	FXT_FROM_REGISTRY = 2,	/* registry socket, at a provider: START, STOP */
	FXT_FROM_CONTROL = 3,	/* control socket, at a client: LIST_REPLY, REPLY */
};

/* Checks the packet pkt (len bytes, 8-byte aligned) from `from`: the header's size is len and
 * its version FXT_REGISTRY_VERSION, the type is one that sender may send, the size is exactly
 * what the type's body and counts say, reserved fields are zero, enumerations are in range and
 * every string is NUL-terminated within its field. Returns the type, or -EBADMSG with *why
 * (may be NULL) saying what is wrong. Fails: -EBADMSG. Thread-safe, no I/O. */
int fxt_msg_check(const void *pkt, size_t len, enum fxt_msg_from from, const char **why);

/* Fills a packet header. Fails: never. Thread-safe. */
static inline struct fxt_msg fxt_msg_hdr(enum fxt_msg_type type, size_t size)
{
	return (struct fxt_msg){ .type = (uint16_t)type, .version = FXT_REGISTRY_VERSION,
				 .size = (uint32_t)size };
}

#endif
