/* The manager service's clients' shared parts (ctl.h). The manager is started on demand by
 * running this very binary as `fxt manager`, which returns once its sockets listen; a manager
 * started at the same moment by another client wins the lock, and the connection is retried a
 * bounded number of times. A reply is always checked (launcher/manager/msg.c) before it is used. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "common/outpath.h"
#include "launcher/cmd/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "common/options.h"
#include "common/proc.h"
#include "common/runtime.h"
#include "launcher/manager/msg.h"
#include "launcher/manager/summary.h"
#include "writer/buffer.h"

#define CONNECT_TRIES 100		/* 10 ms apart: a manager starting at the same time */
#define ANSWER_SLICE_MS 5000		/* then whether the manager can still answer is checked */

/* Connects to control.sock in dir. Fails: -errno. */
static int try_connect(const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/" FXT_CONTROL_SOCKET, dir) >=
	    (int)sizeof(a.sun_path))
		return -ENAMETOOLONG;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Runs `fxt manager` (this binary) and waits for it to return. */
static void start_manager(void)
{
	pid_t c = fork();
	if (c == 0) {
		char *argv[] = { "fxt", "manager", NULL };
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (c > 0)
		waitpid(c, NULL, 0);
}

int fxt_ctl_connect(const char *me, int start)
{
	char dir[PATH_MAX];
	const char *why;
	int rc = fxt_runtime_dir(dir, sizeof(dir), start, &why);
	if (rc == -ENOENT && !start)
		return -2;
	if (rc < 0) {
		fprintf(stderr, "%s: runtime directory %s: %s\n", me, dir, why);
		return -1;
	}
	int fd = try_connect(dir);
	for (int i = 0; fd < 0 && start && i < CONNECT_TRIES; i++) {
		if (i == 0)
			start_manager();
		else
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		fd = try_connect(dir);
	}
	if (fd < 0 && (fd == -ENOENT || fd == -ECONNREFUSED) && !start)
		return -2;
	if (fd < 0) {
		fprintf(stderr, "%s: cannot reach the manager in %s: %s\n", me, dir, strerror(-fd));
		return -1;
	}
	if (!fxt_msg_peer_ok(fd, NULL)) {
		fprintf(stderr, "%s: the manager in %s runs as another user: refused\n", me, dir);
		close(fd);
		return -1;
	}
	return fd;
}

/* One packet from the manager into buf (fxt_msg_recv()). A manager that closed the connection
 * with our request unread (a refusal) makes the first read fail with ECONNRESET: the reply it
 * sent before is still queued. */
static long recv_reply(int fd, void *buf)
{
	long n = fxt_msg_recv(fd, buf, FXT_MSG_MAX, NULL);
	return n == -ECONNRESET ? fxt_msg_recv(fd, buf, FXT_MSG_MAX, NULL) : n;
}

int fxt_ctl_read(const char *me, int fd, void *buf)
{
	long n = recv_reply(fd, buf);
	const char *why = "the manager closed the connection (it died?)";
	int type = n > 0 ? fxt_msg_check(buf, (size_t)n, FXT_FROM_CONTROL, &why) : -EBADMSG;
	if (n == -EAGAIN)
		return 0;
	if (type < 0) {
		fprintf(stderr, "%s: %s%s\n", me, n > 0 ? "bad reply from the manager: " : "", why);
		return -1;
	}
	return type;
}

/* After a slice without an answer: whether the manager can still answer (a stopped or dead one
 * cannot; a busy one, writing a large archive, can), else says why. */
static int manager_alive(const char *me)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], line[64] = "";
	int pid = 0;
	if (fxt_runtime_dir(dir, sizeof(dir), 0, NULL) == 0 &&
	    snprintf(path, sizeof(path), "%s/" FXT_MANAGER_PIDFILE, dir) < (int)sizeof(path)) {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, line, sizeof(line) - 1);
			pid = n > 0 ? atoi(line) : 0;
			close(fd);
		}
	}
	char stat[1024];
	const char *e = pid > 0 ? fxt_proc_stat(pid, stat, sizeof(stat)) : NULL;
	char state = e && e[0] == ' ' ? e[1] : 0;
	if (state && state != 'T' && state != 't' && state != 'Z' && state != 'X')
		return 1;
	char who[32] = "";
	if (pid > 0)
		snprintf(who, sizeof(who), " (pid %d)", pid);
	fprintf(stderr, "%s: the manager%s did not answer in %d s: it is %s\n", me, who,
		ANSWER_SLICE_MS / 1000,
		!state ? "gone" : state == 'Z' || state == 'X' ? "dead"
				: "stopped (SIGSTOP? kill -CONT it, or kill it and restart)");
	return 0;
}

int fxt_ctl_call(const char *me, int fd, const void *req, size_t len, int file, void *buf)
{
	int rc = fxt_msg_send(fd, req, len, file);
	if (rc < 0) {
		/* refused at once (too many connections): the reply saying why is there */
		long n = recv_reply(fd, buf);
		if (n > 0 && fxt_msg_check(buf, (size_t)n, FXT_FROM_CONTROL, NULL) == FXT_MSG_REPLY)
			return FXT_MSG_REPLY;
		fprintf(stderr, "%s: cannot talk to the manager: %s\n", me, strerror(-rc));
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, ANSWER_SLICE_MS);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "%s: %s\n", me, strerror(errno));
			return -1;
		}
		if (n == 0 && !manager_alive(me))
			return -1;
		int type = n > 0 ? fxt_ctl_read(me, fd, buf) : 0;
		if (type)
			return type;
	}
}

/* Whether path may take an archive (common/outpath.h); else says why. */
static int output_ok(const char *me, const char *path)
{
	const char *why;
	if (fxt_outpath_check(path, &why) == 0)
		return 1;
	fprintf(stderr, "%s: -o %s: %s; an archive is written only to a regular file\n", me, path,
		why);
	return 0;
}

int fxt_ctl_file_open(const char *me, struct fxt_ctl_file *f, const char *path)
{
	f->fd = -1;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >= (int)sizeof(f->path)) {
		fprintf(stderr, "%s: %s: name too long\n", me, path);
		return -1;
	}
	f->part[0] = 0;
	if (!output_ok(me, path))
		return -1;
	f->fd = fxt_outpath_create_part(path, f->part, sizeof(f->part));
	if (f->fd < 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", me, f->part, strerror(-f->fd));
		f->part[0] = 0;	/* not ours: never removed */
		return -1;
	}
	return 0;
}

int fxt_ctl_file_close(const char *me, struct fxt_ctl_file *f, int ok)
{
	struct stat st;
	int saved = f->fd >= 0 && !fstat(f->fd, &st) && st.st_size > 0;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (!f->part[0])
		return 0;
	const char *why;
	if (ok && fxt_outpath_commit(f->part, f->path, &why) == 0)
		return 0;
	if (ok) {
		/* complete: kept under its temporary name, said so */
		fprintf(stderr, "%s: %s %s: the complete archive stays in %s\n", me, f->path, why,
			f->part);
		f->part[0] = 0;
		return -1;
	}
	if (saved) {
		/* incomplete, but what the manager saved (streaming) is kept for fxt recover */
		fprintf(stderr, "%s: what was saved before the trace ended stays in %s (fxt recover "
				"%s makes it an archive)\n", me, f->part, f->part);
		f->part[0] = 0;
		return 0;
	}
	unlink(f->part);
	f->part[0] = 0;
	return ok ? -1 : 0;
}

void fxt_ctl_summary(const char *me, const struct fxt_msg_reply *r, const char *out)
{
	struct fxt_manager_stats st = { .processes = r->processes, .threads = r->threads,
					.events = r->events, .bytes = r->bytes,
					.dropped = r->dropped, .drop_reasons = r->drop_reasons,
					.corrupt = r->corrupt, .overwritten = r->overwritten,
					.overwritten_records = r->overwritten_records,
					.kept_ns = r->kept_ns, .span_ns = r->span_ns };
	if (st.corrupt)
		snprintf(st.corrupt_why, sizeof(st.corrupt_why), "see the archive");
	fxt_summary_print(me, &st, (double)r->recorded_ns / 1e9, out,
			  "no registered provider was chosen (fxt list shows them)");
}

/* ---- trace options ---- */

static int bad(const char *me, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", me);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", me);
	return 1;
}

/* Parses a value with the settings table's parser of variable env (the preload's grammar). */
static int table_parse(const char *env, const char *v, struct fxt_settings *s)
{
	const struct fxt_option *e = fxt_option_find(env, 0);
	fxt_settings_default(s);
	return e && e->parse(v, s) == 0 ? 0 : -1;
}

static int add_trigger(struct fxt_ctl_trace *t, const char *v)
{
	static const char *const kinds[] = { [FXT_TRIGGER_START] = "start",
					     [FXT_TRIGGER_STOP] = "stop",
					     [FXT_TRIGGER_SNAPSHOT] = "snapshot" };
	const char *at = strchr(v, '@');
	if (!at || !at[1] || strlen(at + 1) >= FXT_TRIGGER_NAME_MAX)
		return -1;
	uint32_t kind = 0;
	for (uint32_t k = FXT_TRIGGER_START; k <= FXT_TRIGGER_SNAPSHOT; k++)
		if ((size_t)(at - v) == strlen(kinds[k]) && !strncmp(v, kinds[k], (size_t)(at - v)))
			kind = k;
	if (!kind || t->msg->ntriggers >= FXT_TRIGGERS_MAX)
		return -1;
	struct fxt_trigger *tr = (struct fxt_trigger *)(t->msg + 1) + t->msg->ntriggers++;
	tr->kind = kind;
	snprintf(tr->function, sizeof(tr->function), "%s", at + 1);
	return 0;
}

/* fxt_ctl_parse_trace() into t->msg, allocated. */
static int parse_trace(const char *me, int argc, char **argv, int with_duration,
		       const char *help, struct fxt_ctl_trace *t, int *exit_status)
{
	enum { OPT_DURATION = 256, OPT_CATEGORIES, OPT_PID, OPT_NAME, OPT_MODE, OPT_BUFSIZE,
	       OPT_TRIGGER };
	static const struct option longs[] = {
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "categories", required_argument, NULL, OPT_CATEGORIES },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer-size", required_argument, NULL, OPT_BUFSIZE },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxt_settings s;
	*exit_status = 2;
	t->msg->mode = FXT_BUF_CIRCULAR;
	int c;
	char *end;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
		switch (c) {
		case OPT_DURATION:
			if (!with_duration)
				return bad(me, "%s", "--duration belongs to fxt record");
			if (table_parse("FXT_MIN_DURATION", optarg, &s) < 0 || !s.min_duration_ns)
				return bad(me, "--duration %s: expected a duration like 5s "
					       "(ns, us, ms, s)", optarg);
			t->duration_ns = s.min_duration_ns;
			break;
		case OPT_CATEGORIES:
			if (table_parse("FXT_CATEGORIES", optarg, &s) < 0)
				return bad(me, "--categories %s: expected a list like a,b,c*",
					   optarg);
			snprintf(t->msg->categories, sizeof(t->msg->categories), "%s", optarg);
			break;
		case OPT_PID: {
			errno = 0;
			unsigned long pid = strtoul(optarg, &end, 10);
			if (errno || *end || !pid || pid > INT32_MAX || *optarg == '-')
				return bad(me, "--pid %s: expected a process id", optarg);
			t->msg->pid = (uint32_t)pid;
			break;
		}
		case OPT_NAME:
			if (!*optarg || strlen(optarg) >= sizeof(t->msg->name))
				return bad(me, "--name '%s': expected a process name", optarg);
			snprintf(t->msg->name, sizeof(t->msg->name), "%s", optarg);
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "oneshot"))
				t->msg->mode = FXT_BUF_ONESHOT;
			else if (!strcmp(optarg, "circular"))
				t->msg->mode = FXT_BUF_CIRCULAR;
			else if (!strcmp(optarg, "streaming"))
				t->msg->mode = FXT_BUF_STREAMING;
			else
				return bad(me, "--mode must be oneshot, circular or streaming, "
					       "not '%s'", optarg);
			break;
		case OPT_BUFSIZE:
			if (table_parse("FXT_BUFFER_SIZE", optarg, &s) < 0)
				return bad(me, "--buffer-size %s: expected a size like 64M "
					       "(1M to 64G)", optarg);
			t->msg->buffer_size = s.buffer_size;
			break;
		case OPT_TRIGGER:
			if (add_trigger(t, optarg) < 0)
				return bad(me, "--trigger %s: expected start@FUNC, stop@FUNC or "
					       "snapshot@FUNC (at most 16)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return bad(me, "%s", "-o needs a file name");
			t->output = optarg;
			break;
		case 'h':
			fputs(help, stdout);
			*exit_status = 0;
			return 1;
		case ':':
			return bad(me, "option '%s' needs a value", argv[optind - 1]);
		default:
			return bad(me, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad(me, "unexpected argument '%s'", argv[optind]);
	if (t->msg->pid && t->msg->name[0])
		return bad(me, "%s", "--pid and --name exclude each other");
	t->len = sizeof(*t->msg) + t->msg->ntriggers * sizeof(struct fxt_trigger);
	t->msg->h = fxt_msg_hdr(FXT_MSG_TRACE, t->len);
	return 0;
}

int fxt_ctl_parse_trace(const char *me, int argc, char **argv, int with_duration,
			const char *help, struct fxt_ctl_trace *t, int *exit_status)
{
	*t = (struct fxt_ctl_trace){ .msg = calloc(1, FXT_MSG_MAX) };
	if (!t->msg) {
		fprintf(stderr, "%s: out of memory\n", me);
		*exit_status = 1;
		return 1;
	}
	int rc = parse_trace(me, argc, argv, with_duration, help, t, exit_status);
	if (rc) {
		free(t->msg);
		t->msg = NULL;
	}
	return rc;
}

int fxt_ctl_abspath(const char *path, char *out, size_t size)
{
	if (path[0] == '/')
		return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
	if (!getcwd(out, size))
		return -1;
	size_t n = strlen(out);
	return snprintf(out + n, size - n, "/%s", path) < (int)(size - n) ? 0 : -1;
}

int fxt_ctl_parse_output(const char *me, const char *usage, int argc, char **argv,
			 const char **out, int *force)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc &&
		    argv[i + 1][0]) {
			*out = argv[++i];
			continue;
		}
		if (force && !strcmp(argv[i], "--force")) {
			*force = 1;
			continue;
		}
		fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help'.\n", me, argv[i], me);
		return 2;
	}
	return *out && !output_ok(me, *out) ? 2 : -1;	/* refused before the manager is asked */
}

int fxt_ctl_end(const char *me, int fd, uint32_t what, uint32_t flags, int file, void *buf)
{
	struct fxt_msg_end req = { .h = fxt_msg_hdr(FXT_MSG_END, sizeof(req)), .what = what,
				   .flags = flags };
	int type = fxt_ctl_call(me, fd, &req, sizeof(req), file, buf);
	close(fd);
	if (type != FXT_MSG_REPLY)
		return -1;
	const struct fxt_msg_reply *r = buf;
	if (r->status)
		fprintf(stderr, "%s: %s\n", me, r->message);
	return !r->status;
}
