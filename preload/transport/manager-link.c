/* The provider thread of a process registered with the trace manager service (common/
 * registry.h, the Fuchsia Tracing System Design's TraceRegistry): it finds the runtime
 * directory, connects to registry.sock (a manager of this user only: SO_PEERCRED), says HELLO
 * and serves START and STOP; with no manager yet it sleeps on inotify until the socket appears
 * (no polling wakeups). START is checked field by field (a bad message closes the connection);
 * it makes the buffer in the session it names through provider.c (STARTED on the session's
 * socket, as under fxtrun), then the state goes RUNNING (ARMED with a start trigger) and
 * RECORDING tells the manager (`fxt start` returns once every chosen provider said it). A fork
 * child of a traced process records in its parent's trace from birth; its HELLO says so. STOP
 * ends the recording as the exit flush does, closes the session connection, answers STOPPED,
 * retires the buffer mapping and goes IDLE. A manager gone stops tracing (the buffer is
 * dropped: no one reads it) and the thread waits for the next one. The thread blocks every
 * signal, holds the tracer guard for good (nothing of it is recorded), and keeps its
 * descriptors at 64 and above, close-on-exec: the program never notices it (the descriptors
 * of the wait are made before main; one made later, a new connection or a trace's buffer
 * and session socket, holds a low number for an instant before it moves: a program thread
 * opening a file in that very instant gets the next number). Left open: a thread that stays
 * inside a slow path (guard held) across a whole STOP and the next START writes what it was
 * writing into the new buffer under its old thread index; threads that exist before the
 * first START are not sampled nor followed by context switches (their perf events follow
 * only threads made after they open); triggers see the modules loaded at START. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "preload/transport/buffer.h"
#include "preload/transport/manager-link.h"
#include "preload/transport/uplink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/peer.h"
#include "common/options.h"
#include "common/protocol.h"
#include "common/registry.h"
#include "common/runtime.h"
#include "preload/base/fd.h"
#include "preload/base/fxtp.h"
#include "preload/life/flush.h"
#include "preload/events/api.h"
#include "preload/transport/provider.h"
#include "preload/base/real.h"
#include "preload/sampling/sampler.h"
#include "preload/sampling/sched.h"
#include "preload/transport/trigger.h"

#define REFUSED_TRIES 7		/* connects refused once the socket appeared (bound, not yet
				 * listening): retried after 1, 2, 4 ... 64 ms, then events only */

static struct {
	int on;			/* this process registers */
	int inotify;		/* watching the runtime directory, -1: none */
	int spare;		/* a socket not connected yet, -1: none */
	int watch;		/* its watch, -1: none */
	uint64_t session;	/* the trace this process is in, 0: none */
} reg = { .inotify = -1, .spare = -1, .watch = -1 };

/* The message being handled (provider thread only). */
static union {
	struct fxt_msg h;
	struct fxt_msg_start start;
	struct fxt_msg_session session;
	char bytes[FXT_MSG_MAX];
} in;

int fxtp_link_wanted(void)
{
	const char *s = getenv(FXT_ENV_SESSION);	/* FXT_REGISTER: the settings table's */
	return fxtp_settings.register_wait && !(s && *s);
}

static void send_session(uint16_t type, uint64_t session)
{
	struct fxt_msg_session m = { { type, FXT_REGISTRY_VERSION, sizeof(m) }, session };
	fxtp_uplink_send(&m, sizeof(m));
}

/* A connection to dir's registry socket whose peer is this user's: its fd, or -errno. */
static int connect_to(const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, FXT_REGISTRY_SOCKET) >=
	    (int)sizeof(a.sun_path))
		return -ENAMETOOLONG;
	int fd = reg.spare;
	reg.spare = -1;
	if (fd < 0)
		fd = fxtp_fd_high(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int rc = -errno;
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			reg.spare = fd;	/* not connected: tried again later */
		else
			close(fd);
		return rc;
	}
	if (!fxt_peer_same_user(fd, NULL)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Waits for a manager: connects when registry.sock is there, else sleeps until inotify says
 * something changed in the runtime directory (made, 0700, when missing). Returns the
 * connection, or -1 when the directory is unusable (one line on stderr: the process runs
 * untraced). */
static int wait_manager(void)
{
	char dir[PATH_MAX], ev[4096] __attribute__((aligned(8)));
	const char *why;
	int tries = 0;
	for (;;) {
		int rc = fxt_runtime_dir(dir, sizeof(dir), 1, &why);
		if (rc < 0) {
			fxtp_warn("FXT_REGISTER: unusable runtime directory; not registering",
				  why);
			return -1;
		}
		if (reg.inotify >= 0 && reg.watch < 0)
			reg.watch = inotify_add_watch(reg.inotify, dir,
						      IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF |
							      IN_MOVE_SELF | IN_ONLYDIR);
		if (reg.watch < 0) {
			fxtp_warn("FXT_REGISTER: cannot watch the runtime directory; not registering",
				  strerror(errno));
			return -1;
		}
		int fd = connect_to(dir);
		if (fd >= 0)
			return fd;
		/* Refused right after the socket appeared: bound, not listening yet. */
		int ms = fd == -ECONNREFUSED && tries < REFUSED_TRIES ? 1 << tries++ : -1;
		struct pollfd p = { .fd = reg.inotify, .events = POLLIN };
		if (poll(&p, 1, ms) <= 0)
			continue;
		ssize_t n;
		while ((n = read(reg.inotify, ev, sizeof(ev))) > 0) {
			for (char *e = ev; e < ev + n;) {
				const struct inotify_event *ie = (const void *)e;
				if (ie->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
					inotify_rm_watch(reg.inotify, reg.watch);
					reg.watch = -1;	/* made and watched again above */
				}
				e += sizeof(*ie) + ie->len;
			}
		}
		tries = 0;
	}
}

/* Ends this process's part in the trace: the recording stopped as at exit, the session
 * connection closed; gone: the manager is gone, so the buffer file goes too; else STOPPED is
 * answered. Then the mapping is retired and the state goes IDLE. */
static void end_trace(int gone)
{
	uint64_t id = reg.session;
	reg.session = 0;
	fxtp_api_stop();
	if (fxtp_stop() < 0)
		return;	/* no buffer (or the process is exiting: the exit flush won) */
	fxtp_provider_end(gone);
	if (!gone)
		send_session(FXT_MSG_STOPPED, id);
	fxtp_retire_buffer();
	fxtp_triggers_clear();
	fxtp_state_move(fxtp_state_word(), FXTP_STATE_IDLE);
}

/* The start of a trace, START checked: triggers resolved, the buffer made in the session
 * (STARTED sent there), then RUNNING or ARMED. A buffer that cannot be made: one line on
 * stderr, STOPPED answered (this process is not in the trace). */
static void begin_trace(const struct fxt_msg_start *m, const struct fxt_trigger *tr)
{
	int armed = fxtp_triggers_set(tr, m->ntriggers, m->session);
	fxtp_provider_session(m->session_dir, (enum fxt_buf_mode)m->mode);
	fxtp.buffer_size = (size_t)m->buffer_size;
	int rc = fxtp_open_buffer();
	if (rc < 0) {
		fxtp_warn("cannot make the buffer of a trace; not tracing it", strerror(-rc));
		fxtp_triggers_clear();
		fxtp_provider_end(1);
		send_session(FXT_MSG_STOPPED, m->session);
		return;
	}
	reg.session = m->session;
	/* Sampling and context switches first: their events follow only the threads created
	 * after they open (the first START's; later ones resume them). The macros' generation
	 * last: TRACE_ENABLED() then means everything runs. */
	fxtp_sample_start();
	fxtp_sched_start();
	fxtp_state_move(fxtp_state_word(), armed ? FXTP_STATE_ARMED : FXTP_STATE_RUNNING);
	fxtp_api_start(m->categories);
	send_session(FXT_MSG_RECORDING, m->session);	/* the start's barrier: records now */
}

/* A START (passed by fxt_msg_check(): sizes, ranges, strings, triggers) is checked for what only
 * this process can see, then the trace begins. Returns -1 for a bad message. */
static int on_start(void)
{
	const struct fxt_msg_start *m = &in.start;
	const struct fxt_trigger *tr = (const struct fxt_trigger *)(m + 1);
	/* The categories as FXT_CATEGORIES takes them; the session a private directory of
	 * ours (the buffer file is made in it). */
	struct fxt_settings set;
	const struct fxt_option *cats = fxt_option_find("FXT_CATEGORIES", 0);
	fxt_settings_default(&set);
	struct stat st;
	if ((m->categories[0] && (!cats || cats->parse(m->categories, &set) < 0)) ||
	    lstat(m->session_dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077))
		return -1;
	if ((fxtp_state_word() & FXTP_STATE_MASK) != FXTP_STATE_IDLE)
		return -1;	/* already in a trace: the manager lost track */
	begin_trace(m, tr);
	return 0;
}

/* STOP: ends the trace named (if it is this process's), answers STOPPED. */
static int on_stop(void)
{
	uint64_t id = in.session.session;
	if (reg.session && id == reg.session)
		end_trace(0);
	else
		send_session(FXT_MSG_STOPPED, id);
	return 0;
}

/* Serves one manager until it goes (or sends a bad message). */
static void serve(int fd)
{
	struct stat st;
	/* A fork child of a process in a trace records in it from birth: HELLO says so. */
	uint32_t s = fxtp_state_word() & FXTP_STATE_MASK;
	int in_trace = reg.session && (s == FXTP_STATE_RUNNING || s == FXTP_STATE_ARMED);
	struct fxt_msg_hello hello = {
		.h = { FXT_MSG_HELLO, FXT_REGISTRY_VERSION, sizeof(hello) },
		.pid = (uint32_t)getpid(),
		.state = !in_trace		   ? FXT_PROVIDER_IDLE
			 : s == FXTP_STATE_ARMED ? FXT_PROVIDER_ARMED
						 : FXT_PROVIDER_TRACING,
		.session = in_trace ? reg.session : 0,
	};
	snprintf(hello.name, sizeof(hello.name), "%s", fxtp.prog);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	fxtp_uplink.ino = st.st_ino;
	__atomic_store_n(&fxtp_uplink.fd, fd, __ATOMIC_RELEASE);
	fxtp_uplink_send(&hello, sizeof(hello));
	for (;;) {
		ssize_t n = recv(fd, &in, sizeof(in), MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (size_t)n > sizeof(in) || !fxtp_uplink_ours(fd))
			break;
		int type = fxt_msg_check(&in, (size_t)n, FXT_FROM_REGISTRY, NULL);
		int rc = type == FXT_MSG_START ? on_start() : type == FXT_MSG_STOP ? on_stop() : -1;
		if (rc < 0)
			break;
	}
	__atomic_store_n(&fxtp_uplink.fd, -1, __ATOMIC_RELEASE);
	if (reg.session)
		end_trace(1);
	if (fxtp_uplink_ours(fd))
		close(fd);
}

static void *provider(void *arg)
{
	(void)arg;
	fxtp_enter(&fxtp_self);	/* held for good: nothing this thread runs is recorded */
	pthread_setname_np(pthread_self(), "fxt-provider");
	for (;;) {
		int fd = wait_manager();
		if (fd < 0)
			return NULL;
		serve(fd);
	}
}

int fxtp_link_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	reg.on = 1;
	fxtp_real_init();
	if (!fxtp_real.pthread_create)
		return -ENOSYS;
	/* The descriptors the wait needs, made now, while the program opens none (constructor,
	 * fork): a number taken, even for an instant, by the thread later could be the one
	 * the program's own open() would have got. */
	if (reg.inotify < 0)
		reg.inotify = fxtp_fd_high(inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
	if (reg.spare < 0)
		reg.spare = fxtp_fd_high(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = fxtp_real.pthread_create(&th, &attr, provider, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -rc;
}

void fxtp_link_fork_child(void)
{
	if (!reg.on)
		return;
	/* The parent's connection and watch: the child's copies close, the parent's stay. */
	if (fxtp_uplink_ours(fxtp_uplink.fd))
		close(fxtp_uplink.fd);
	fxtp_uplink.fd = -1;
	if (reg.inotify >= 0)
		close(reg.inotify);
	if (reg.spare >= 0)
		close(reg.spare);
	reg.inotify = reg.watch = reg.spare = -1;
	uint32_t w = fxtp_state_word(), s = w & FXTP_STATE_MASK;
	if (s != FXTP_STATE_RUNNING && s != FXTP_STATE_ARMED) {
		/* Not tracing (or the parent was mid-stop): the child starts idle. */
		if (reg.session) {
			fxtp_provider_end(0);
			fxtp_retire_buffer();
		}
		reg.session = 0;
		if (s == FXTP_STATE_STOPPING)
			fxtp_state_move(w, FXTP_STATE_IDLE);
	}
	if (fxtp_link_start() < 0)
		fxtp_warn("FXT_REGISTER: cannot start the provider thread of a forked child", NULL);
}
