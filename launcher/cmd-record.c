/* `fxtrun [options] [--] PROGRAM [ARGS...]` (= `fxt record`): the trace manager's command. Checks
 * every option before anything starts (bad one: one line, usage hint, exit 2), makes the session,
 * starts the program with the preload and the options in its environment (its stdio, terminal
 * and process group are its own), serves the providers until the whole process tree is gone
 * (subreaper), writes one archive to a temporary name and renames it, prints a summary, and
 * exits with the program's status (128+N for signal N). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/protocol.h"
#include "common/size.h"
#include "launcher/cmd.h"
#include "launcher/manager.h"
#include "launcher/session.h"
#include "writer/outfile.h"

#define ME "fxtrun"

static const char usage[] =
	"usage: fxtrun [options] [--] PROGRAM [ARGS...]   (also: fxt record ...)\n"
	"Runs PROGRAM with every process of its tree traced, then writes one FXT archive.\n"
	"  -o, --output FILE       archive (default trace.fxt; replaced only when complete)\n"
	"  --mode MODE             streaming (default: rolling halves saved while running,\n"
	"                          bounded memory), circular (keeps the most recent records),\n"
	"                          oneshot (stops recording when the buffer is full)\n"
	"  --overflow WHAT         streaming, when saving falls behind: wait (default: the\n"
	"                          program waits for the save, nothing is lost) or drop (the\n"
	"                          program is never held up; drops are counted and reported)\n"
	"  --buffer-size SIZE      buffer per process, 1M..64G (K, M, G suffixes; default 64M)\n"
	"  --filter GLOB           record only functions matching GLOB (repeatable)\n"
	"  --exclude GLOB          do not record functions matching GLOB (repeatable)\n"
	"  --max-depth N           record calls down to depth N (1 = outermost)\n"
	"  --min-duration TIME     skip calls shorter than TIME (ns, us, ms, s; e.g. 10us)\n"
	"  --no-functions          record no function calls\n"
	"  --no-follow             trace only the first process, not its children\n"
	"  --sample[=HZ]           sample call stacks per thread of CPU time (default 997 Hz,\n"
	"                          1..100000): profiles binaries built without instrumentation\n"
	"  --categories LIST       hand-instrumentation categories to record (a,b,net*)\n"
	"  --log STREAMS           program output recorded as log records: stderr, stdout,\n"
	"                          syslog, comma-separated, or none (default stderr,syslog)\n"
	"  -h, --help              this text\n"
	"The same settings for plain LD_PRELOAD use: FXT_OUTPUT, FXT_BUFFER_SIZE, FXT_FILTER,\n"
	"FXT_EXCLUDE (comma-separated globs), FXT_MAX_DEPTH, FXT_MIN_DURATION, FXT_SAMPLE,\n"
	"FXT_CATEGORIES, FXT_LOG.\n";

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, ME ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'fxtrun --help'.\n");
	return 2;
}

/* ---- option values (the same grammar as the preload's FXT_* variables) ---- */

static int size_ok(const char *s)
{
	uint64_t bytes;
	return fxt_parse_size(s, &bytes) == 0 && bytes >= (1ULL << 20) && bytes <= (64ULL << 30);
}

static int depth_ok(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	return end != s && !*end && !errno && *s != '-' && v >= 1 && v <= (1ULL << 31);
}

static int duration_ok(const char *s)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s" };
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-')
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i]))
			return v <= UINT64_MAX / 1000000000ULL;
	return 0;
}

/* A sampling rate: empty (the default rate) or a whole number of Hz in 1..100000. */
static int rate_ok(const char *s)
{
	char *end;
	errno = 0;
	if (!*s)
		return 1;
	unsigned long long v = strtoull(s, &end, 10);
	return end != s && !*end && !errno && *s != '-' && v >= 1 && v <= 100000;
}

/* A --log list: stderr, stdout, syslog separated by commas, or none alone. */
static int streams_ok(const char *s)
{
	if (!strcmp(s, "none"))
		return 1;
	do {
		size_t n = strcspn(s, ",");
		if (!((n == 6 && (!strncmp(s, "stderr", 6) || !strncmp(s, "stdout", 6) ||
				  !strncmp(s, "syslog", 6)))))
			return 0;
		s += n;
	} while (*s++ == ',');
	return 1;
}

struct opts {
	const char *output, *mode, *buffer_size, *max_depth, *min_duration, *sample, *categories;
	const char *log, *overflow;
	char *filter, *exclude;	/* comma-joined globs */
	int no_functions, no_follow;
};

/* Appends glob g to the comma-separated list *list. */
static int add_glob(char **list, const char *g)
{
	size_t old = *list ? strlen(*list) : 0;
	char *s = realloc(*list, old + strlen(g) + 2);
	if (!s)
		return -1;
	if (old)
		s[old++] = ',';
	strcpy(s + old, g);
	*list = s;
	return 0;
}

/* Parses argv; returns the index of PROGRAM, or -exit status (usage error or --help). */
static int parse(int argc, char **argv, struct opts *o)
{
	enum {
		OPT_MODE = 256, OPT_BUF, OPT_FILTER, OPT_EXCLUDE, OPT_DEPTH, OPT_MINDUR, OPT_NOFN,
		OPT_NOFOLLOW, OPT_SAMPLE, OPT_CATEGORIES, OPT_LOG, OPT_OVERFLOW,
	};
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer-size", required_argument, NULL, OPT_BUF },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "max-depth", required_argument, NULL, OPT_DEPTH },
		{ "min-duration", required_argument, NULL, OPT_MINDUR },
		{ "no-functions", no_argument, NULL, OPT_NOFN },
		{ "no-follow", no_argument, NULL, OPT_NOFOLLOW },
		{ "sample", optional_argument, NULL, OPT_SAMPLE },
		{ "categories", required_argument, NULL, OPT_CATEGORIES },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "overflow", required_argument, NULL, OPT_OVERFLOW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return -bad("-o needs a file name", NULL);
			o->output = optarg;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "oneshot") && strcmp(optarg, "circular") &&
			    strcmp(optarg, "streaming"))
				return -bad("--mode must be oneshot, circular or streaming, "
					    "not '%s'", optarg);
			o->mode = optarg;
			break;
		case OPT_BUF:
			if (!size_ok(optarg))
				return -bad("--buffer-size must be a size from 1M to 64G "
					    "(like 64M), not '%s'", optarg);
			o->buffer_size = optarg;
			break;
		case OPT_FILTER:
		case OPT_EXCLUDE:
			if (!*optarg || strchr(optarg, ','))
				return -bad("--filter/--exclude take one non-empty glob "
					    "without ',', not '%s'", optarg);
			if (add_glob(c == OPT_FILTER ? &o->filter : &o->exclude, optarg) < 0)
				return -bad("out of memory", NULL);
			break;
		case OPT_DEPTH:
			if (!depth_ok(optarg))
				return -bad("--max-depth must be a whole number from 1 to "
					    "2147483648, not '%s'", optarg);
			o->max_depth = optarg;
			break;
		case OPT_MINDUR:
			if (!duration_ok(optarg))
				return -bad("--min-duration must be a duration like 10us "
					    "(ns, us, ms, s), not '%s'", optarg);
			o->min_duration = optarg;
			break;
		case OPT_NOFN:
			o->no_functions = 1;
			break;
		case OPT_NOFOLLOW:
			o->no_follow = 1;
			break;
		case OPT_SAMPLE:
			if (optarg && !rate_ok(optarg))
				return -bad("--sample takes a rate in Hz from 1 to 100000 (like "
					    "--sample=997), not '%s'", optarg);
			o->sample = optarg ? optarg : "";
			break;
		case OPT_CATEGORIES:
			if (!*optarg || strlen(optarg) > 4095)
				return -bad("--categories takes a comma-separated list of up to "
					    "4095 bytes, not '%s'", optarg);
			o->categories = optarg;
			break;
		case OPT_LOG:
			if (!streams_ok(optarg))
				return -bad("--log takes stderr, stdout, syslog (comma-separated) "
					    "or none, not '%s'", optarg);
			o->log = optarg;
			break;
		case OPT_OVERFLOW:
			if (strcmp(optarg, "wait") && strcmp(optarg, "drop"))
				return -bad("--overflow must be wait or drop, not '%s'", optarg);
			o->overflow = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return -0;
		case ':':
			return -bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return -bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return -bad("no program to trace", NULL);
	return optind;
}

/* ---- the program ---- */

/* Finds prog as execvp(3) would. Fails: -ENOENT, -EACCES. */
static int resolve(const char *prog, char *out, size_t size)
{
	struct stat st;
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) < 0)
			return -errno;
		snprintf(out, size, "%s", prog);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int rc = -ENOENT;
	for (const char *p = path;; p++) {
		const char *e = strchrnul(p, ':');
		int n = (int)(e - p);
		snprintf(out, size, "%.*s%s%s", n, p, n ? "/" : "", prog);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			rc = -EACCES;
		}
		if (!*e)
			return rc;
		p = e;
	}
}

static int set_env(const struct opts *o, const struct fxt_session *s, const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	int rc = setenv("LD_PRELOAD", pre, 1) | setenv(FXT_ENV_SESSION, s->dir, 1) |
		 setenv(FXT_ENV_MODE, o->mode ? o->mode : "streaming", 1);
	free(pre);
	if (o->no_follow)
		rc |= setenv(FXT_ENV_NO_FOLLOW, "1", 1);
	if (o->buffer_size)
		rc |= setenv("FXT_BUFFER_SIZE", o->buffer_size, 1);
	if (o->max_depth)
		rc |= setenv("FXT_MAX_DEPTH", o->max_depth, 1);
	if (o->min_duration)
		rc |= setenv("FXT_MIN_DURATION", o->min_duration, 1);
	if (o->filter)
		rc |= setenv("FXT_FILTER", o->filter, 1);
	if (o->sample)
		rc |= setenv("FXT_SAMPLE", o->sample, 1);
	if (o->categories)
		rc |= setenv("FXT_CATEGORIES", o->categories, 1);
	if (o->log)
		rc |= setenv("FXT_LOG", o->log, 1);
	if (o->overflow)
		rc |= setenv(FXT_ENV_OVERFLOW, o->overflow, 1);
	/* --no-functions: every function name is excluded (recorded once as skipped). */
	if (o->no_functions || o->exclude)
		rc |= setenv("FXT_EXCLUDE", o->no_functions ? "*" : o->exclude, 1);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Serves the providers until every process of the tree is gone, or a second SIGINT/SIGTERM.
 * Returns the program's wait status, or -1 if it was not reaped. */
static int serve(struct fxt_manager *m, int sfd, pid_t child)
{
	int status = -1, interrupts = 0;
	for (;;) {
		int r = fxt_manager_poll(m, sfd, 1000);
		if (r < 0)
			fprintf(stderr, ME ": waiting for the program: %s\n", strerror(-r));
		struct signalfd_siginfo si;
		while (r > 0 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			int sig = (int)si.ssi_signo;
			if (sig == SIGCHLD)
				continue;
			/* From a terminal the program got it too (same process group). */
			if ((int)si.ssi_code != SI_KERNEL && status == -1)
				kill(child, sig);
			if ((sig == SIGINT || sig == SIGTERM) && ++interrupts == 2) {
				fputs(ME ": stopped waiting; writing what was recorded\n", stderr);
				return status;
			}
		}
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == child)
				status = st;
		if (w < 0 && errno == ECHILD)
			return status;
	}
}

static void summary(const struct fxt_manager_stats *st, double secs, const char *out)
{
	fprintf(stderr,
		ME ": recorded %.2f s: %llu process%s, %llu thread%s, %llu events, %.1f MB",
		secs, (unsigned long long)st->processes, st->processes == 1 ? "" : "es",
		(unsigned long long)st->threads, st->threads == 1 ? "" : "s",
		(unsigned long long)st->events, (double)st->bytes / 1e6);
	if (st->dropped) {
		char why[160];
		fxt_drop_reasons_str(st->drop_reasons, why, sizeof(why));
		fprintf(stderr, ", %llu records DROPPED (%s)", (unsigned long long)st->dropped, why);
	} else
		fprintf(stderr, ", no records dropped");
	if (st->overwritten)
		fprintf(stderr, ", oldest records overwritten in %llu circular buffer%s",
			(unsigned long long)st->overwritten, st->overwritten == 1 ? "" : "s");
	if (st->saved)
		fprintf(stderr, ", %.1f MB saved while running", (double)st->saved / 1e6);
	if (st->refused)
		fprintf(stderr, ", %llu provider%s refused (unknown protocol version)",
			(unsigned long long)st->refused, st->refused == 1 ? "" : "s");
	fprintf(stderr, ".\n" ME ": trace written to %s; open it in ui.perfetto.dev "
			"(or: fxt report %s).\n", out, out);
	if (!st->processes)
		fputs(ME ": no process was traced: a statically linked program, or one that "
		      "clears LD_PRELOAD?\n", stderr);
}

int cmd_record(int argc, char **argv)
{
	struct opts o = { 0 };
	int at = parse(argc, argv, &o);
	if (at <= 0)
		return -at;
	const char *output = o.output ? o.output : "trace.fxt";
	char prog[PATH_MAX], lib[PATH_MAX], tmp[PATH_MAX + 32];
	int rc = resolve(argv[at], prog, sizeof(prog));
	if (rc < 0) {
		fprintf(stderr, ME ": %s: %s\n", argv[at],
			rc == -ENOENT ? "command not found" : strerror(-rc));
		return rc == -ENOENT ? 127 : 126;
	}
	if ((rc = fxt_session_find_preload(lib, sizeof(lib))) < 0) {
		fprintf(stderr, ME ": cannot find libfxtauto.so next to this program: %s\n",
			strerror(-rc));
		return 1;
	}
	/* The archive is written from the start under a fresh name in its directory (never
	 * following a link someone planted there) and renamed once complete. */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", output, (int)getpid());
	int out_fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out_fd < 0 && errno == EEXIST) {
		snprintf(tmp, sizeof(tmp), "%s.XXXXXX.tmp", output);
		out_fd = mkostemps(tmp, 4, O_CLOEXEC);
	}
	if (out_fd < 0) {
		fprintf(stderr, ME ": cannot write %s: %s\n", output, strerror(errno));
		return 1;
	}

	struct fxt_session s;
	if ((rc = fxt_session_create(&s)) < 0) {
		fprintf(stderr, ME ": cannot create the session directory: %s\n", strerror(-rc));
		close(out_fd);
		unlink(tmp);
		return 1;
	}
	struct fxt_manager *m = fxt_manager_new(s.dir, out_fd, s.listen_fd);
	sigset_t mask, old;
	sigemptyset(&mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig == SIGCHLD || sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
		    sig == SIGQUIT)
			sigaddset(&mask, sig);
	sigprocmask(SIG_BLOCK, &mask, &old);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (!m || sfd < 0 || set_env(&o, &s, lib) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		fprintf(stderr, ME ": cannot start the session: %s\n", strerror(errno));
		fxt_session_remove(&s);
		close(out_fd);
		unlink(tmp);
		return 1;
	}

	double t0 = now_s();
	pid_t child = fork();
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execv(prog, argv + at);
		fprintf(stderr, ME ": %s: %s\n", argv[at], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	int status = child < 0 ? 1 << 8 : -1;	/* could not start: exit status 1 */
	if (child < 0)
		fprintf(stderr, ME ": cannot start %s: %s\n", argv[at], strerror(errno));
	else
		status = serve(m, sfd, child);
	double secs = now_s() - t0;
	for (int i = 0; i < 8 && fxt_manager_poll(m, -1, 0) >= 0; i++)
		;	/* late STARTED and SAVE_BUFFER packets */

	struct fxt_manager_stats st;
	rc = fxt_manager_write(m, &st);
	if (close(out_fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, output) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		fprintf(stderr, ME ": cannot write %s: %s\n", output, strerror(-rc));
	} else {
		summary(&st, secs, output);
	}
	fxt_manager_free(m);
	fxt_session_remove(&s);
	close(sfd);
	free(o.filter);
	free(o.exclude);

	int code = status == -1		 ? 128 + SIGINT
		   : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					 : WEXITSTATUS(status);
	return rc < 0 && code == 0 ? 1 : code;
}
