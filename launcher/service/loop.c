/* `fxt manager`: the per-user trace manager service (service.h). Finds and vets the runtime
 * directory (common/runtime.c), takes the one-manager-per-user lock (flock on manager.pid, held
 * for the manager's life: a second manager exits with one line; the sockets of a dead one are
 * stale and replaced), binds registry.sock and control.sock (SOCK_SEQPACKET, non-blocking,
 * cloexec), then, unless in the foreground, becomes a daemon (double fork, setsid, stdio on
 * /dev/null, every other inherited descriptor closed, log lines in manager.log) after the
 * sockets listen, and the command returns once its pid is written, so that a client that
 * started it can connect (and a script kill it) as soon as the command returns. One event loop
 * polls the signals, both listening sockets, every connection and the trace's own sockets
 * (fxt_manager_fds): it sleeps until something happens. The trace reaches the providers and
 * clients only through the struct svc_up given here. SIGTERM/SIGINT: the trace is stopped, its
 * archive finished, then the manager exits. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc.h"
#include "common/runtime.h"
#include "launcher/manager/accept.h"
#include "launcher/service/service.h"

#define ME "fxt manager"
#define LOG_FILE "manager.log"

/* Binds and listens on dir/name; a socket file left there is stale (we hold the lock). */
static int listen_on(const char *dir, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name) >=
	    (int)sizeof(a.sun_path))
		return -ENAMETOOLONG;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (lstat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(a.sun_path);
	mode_t old = umask(077);
	int rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 128) < 0 ? -errno
										       : 0;
	umask(old);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* The lock of the one manager of this user. Returns the pid file's descriptor, or -1 after
 * printing why. */
static int take_lock(const char *dir)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/" FXT_MANAGER_PIDFILE, dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, ME ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	char line[64] = "";
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	int pid = n > 0 ? atoi(line) : 0;
	if (errno == EWOULDBLOCK)
		fprintf(stderr, ME ": a manager is running already (pid %d) in %s\n", pid, dir);
	else
		fprintf(stderr, ME ": %s: %s\n", path, strerror(errno));
	close(fd);
	return -1;
}

/* Double fork: the command returns (status 0) once the daemon runs with its sockets ready
 * and its pid written (*ready: the daemon's end of a pipe the command waits on for EOF; the
 * daemon closes it when its pid file is written), so that a client or a script that kills the
 * manager by its pid file finds it. */
static int daemonize(int *ready)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t c = fork();
	if (c < 0)
		return -errno;
	if (c > 0) {
		int st;
		char b;
		close(p[1]);
		waitpid(c, &st, 0);
		while (read(p[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	close(p[0]);
	*ready = p[1];
	if (setsid() < 0)
		_exit(1);
	c = fork();
	if (c != 0)
		_exit(c < 0 ? 1 : 0);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(1);
	close(null);
	if (chdir("/") < 0)
		_exit(1);
	return 0;
}

/* Closes every descriptor the daemon inherited (a test harness's pipes, a shell's files) but
 * the n it keeps: a daemon holding its starter's pipe open keeps the starter waiting. */
static void close_inherited(const int *keep, size_t n)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	int dfd = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd <= 2 || fd == dfd)
			continue;
		size_t i = 0;
		while (i < n && keep[i] != fd)
			i++;
		if (i == n)
			close(fd);
	}
	closedir(d);
}

/* Finds a connection's role by descriptor. */
static int is_provider(const struct svc *v, int fd)
{
	for (size_t i = 0; i < v->np; i++)
		if (v->p[i].fd == fd)
			return 1;
	return 0;
}

static void on_signals(struct svc *v)
{
	struct signalfd_siginfo si;
	while (read(v->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGTERM && si.ssi_signo != SIGINT)
			continue;
		if (!v->quit)
			svc_log(v, "signal %u: stopping", si.ssi_signo);
		v->quit = 1;
		svc_trace_stop(v);
	}
}

/* The event loop: until asked to quit and no trace is left. Fails: -ENOMEM. */
static int serve(struct svc *v)
{
	while (!v->quit || v->trace) {
		size_t nm = v->trace ? fxt_manager_nfds(v->trace->m) : 0;
		size_t own = 3 + v->np + v->nclients, n = own;
		struct pollfd *fds = calloc(own + nm, sizeof(*fds));
		if (!fds)
			return -ENOMEM;
		uint64_t now = svc_now_ms();
		int paused = now < v->accept_paused_until_ms, timeout = svc_trace_timeout_ms(v);
		if (paused && (timeout < 0 || (uint64_t)timeout > v->accept_paused_until_ms - now))
			timeout = (int)(v->accept_paused_until_ms - now);
		fds[0] = (struct pollfd){ .fd = v->sig_fd, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = paused ? -1 : v->reg_fd, .events = POLLIN };
		fds[2] = (struct pollfd){ .fd = paused ? -1 : v->ctl_fd, .events = POLLIN };
		for (size_t i = 0; i < v->np; i++)
			fds[3 + i] = (struct pollfd){ .fd = v->p[i].fd, .events = POLLIN };
		for (size_t i = 0; i < v->nclients; i++)
			fds[3 + v->np + i] = (struct pollfd){ .fd = v->clients[i],
							      .events = POLLIN };
		if (nm)
			timeout = fxt_manager_ahead(v->trace->m, timeout);
		if (nm)
			n += fxt_manager_fds(v->trace->m, fds + own);
		int rc = poll(fds, n, timeout);
		if (rc < 0 && errno != EINTR) {
			free(fds);
			return -errno;
		}
		if (rc > 0) {
			/* The trace's sockets first: nothing has touched its manager since. */
			if (nm && v->trace)
				fxt_manager_handle(v->trace->m, fds + own, n - own);
			/* Each looked up again by descriptor: handlers remove entries. */
			for (size_t i = 3; i < own; i++) {
				if (!fds[i].revents)
					continue;
				if (is_provider(v, fds[i].fd))
					svc_providers_read(v, fds[i].fd);
				else
					svc_clients_read(v, fds[i].fd);
			}
			if (fds[0].revents)
				on_signals(v);
			if (fds[1].revents)
				svc_providers_accept(v);
			if (fds[2].revents)
				svc_clients_accept(v);
		}
		free(fds);
		svc_trace_check(v);
	}
	return 0;
}

int fxt_service_run(int foreground)
{
	static const struct svc_up up = { .start = svc_provider_start,
					  .stop = svc_provider_stop,
					  .reply = svc_reply };
	struct svc v = { .up = &up, .reg_fd = -1, .ctl_fd = -1, .sig_fd = -1, .log_fd = 2,
			 .reserve = fxt_accept_reserve() };
	const char *why;
	int ready = -1;
	int rc = fxt_runtime_dir(v.dir, sizeof(v.dir), 1, &why);
	if (rc < 0) {
		fprintf(stderr, ME ": runtime directory %s: %s\n", v.dir, why);
		return 1;
	}
	int lock = take_lock(v.dir);
	if (lock < 0)
		return 1;
	if ((v.reg_fd = listen_on(v.dir, FXT_REGISTRY_SOCKET)) < 0 ||
	    (v.ctl_fd = listen_on(v.dir, FXT_CONTROL_SOCKET)) < 0) {
		fprintf(stderr, ME ": cannot listen in %s: %s\n", v.dir,
			strerror(-(v.reg_fd < 0 ? v.reg_fd : v.ctl_fd)));
		return 1;
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);	/* past ulimit -f: EFBIG, an archive lost, never the manager */
	if ((v.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		fprintf(stderr, ME ": signalfd: %s\n", strerror(errno));
		return 1;
	}
	if (!foreground) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof(path), "%s/" LOG_FILE, v.dir);
		v.log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (v.log_fd < 0 || daemonize(&ready) < 0) {
			fprintf(stderr, ME ": cannot become a daemon: %s\n", strerror(errno));
			return 1;
		}
		signal(SIGHUP, SIG_IGN);
		const int keep[] = { lock, v.reg_fd, v.ctl_fd, v.sig_fd, v.log_fd, v.reserve, ready };
		close_inherited(keep, sizeof(keep) / sizeof(keep[0]));
	}
	char line[64];
	int n = snprintf(line, sizeof(line), "%d %llu\n", (int)getpid(),
			 fxt_proc_start_time(getpid()));
	if (ftruncate(lock, 0) < 0 || pwrite(lock, line, (size_t)n, 0) != n)
		svc_log(&v, "cannot write " FXT_MANAGER_PIDFILE ": %s", strerror(errno));
	if (ready >= 0)
		close(ready);	/* the command that started the daemon returns now */
	svc_log(&v, "manager %d listening in %s", (int)getpid(), v.dir);
	rc = serve(&v);
	svc_log(&v, "manager %d exits%s%s", (int)getpid(), rc ? ": " : "",
		rc ? strerror(-rc) : "");
	/* The sockets go before the lock: a manager started now finds none to connect to. */
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/" FXT_REGISTRY_SOCKET, v.dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" FXT_CONTROL_SOCKET, v.dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" FXT_MANAGER_PIDFILE, v.dir);
	unlink(path);
	for (size_t i = 0; i < v.np; i++)
		close(v.p[i].fd);
	for (size_t i = 0; i < v.nclients; i++)
		close(v.clients[i]);
	free(v.p);
	free(v.clients);
	close(v.reg_fd);
	close(v.ctl_fd);
	close(v.sig_fd);
	if (v.reserve >= 0)
		close(v.reserve);
	close(lock);
	return rc ? 1 : 0;
}
