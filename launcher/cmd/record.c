/* `fxtrun [options] [--] PROGRAM [ARGS...]` (= `fxt record`): the trace manager's command. Checks
 * every option before anything starts (bad one: one line, usage hint, exit 2), makes the session,
 * starts the program with the preload and the options in its environment (its stdio, terminal
 * and process group are its own), serves the providers until the whole process tree is gone
 * (subreaper), writes one archive to a temporary name and renames it, prints a summary, and
 * exits with the program's status (128+N for signal N). With --start-stopped there is no session:
 * the program's processes register with the manager service (started if need be), which its
 * clients (fxt record --pid, start, stop, snapshot) control; fxtrun waits and forwards signals. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/forward.h"
#include "common/options.h"
#include "common/protocol.h"
#include "common/registry.h"
#include "common/outpath.h"
#include "launcher/cmd/cmd.h"
#include "launcher/cmd/ctl.h"
#include "launcher/manager/manager.h"
#include "launcher/manager/session.h"
#include "launcher/manager/summary.h"
#include "writer/outfile.h"

#define ME "fxtrun"

/* The options of fxtrun alone; the settings it shares with the preload come from the table of
 * common/options.c (usage lines, parsing, environment). */
static const char usage_head[] =
	"usage: fxtrun [options] [--] PROGRAM [ARGS...]   (also: fxt record ...)\n"
	"Runs PROGRAM with every process of its tree traced, then writes one FXT archive.\n"
	"  -o, --output FILE       archive (default trace.fxt; replaced only when complete)\n"
	"  --mode MODE             streaming (default: rolling halves saved while running,\n"
	"                          bounded memory), circular (keeps the most recent records),\n"
	"                          oneshot (stops recording when the buffer is full)\n"
	"  --no-functions          record no function calls\n"
	"  --no-follow             trace only the first process, not its children\n"
	"  --start-stopped         record nothing yet: the program's processes register with\n"
	"                          the trace manager service, and fxt record --pid, fxt start,\n"
	"                          stop and snapshot trace them (-o and --mode go there)\n";
static const char usage_tail[] = "  -h, --help              this text\n";

#define COL 26	/* where the help text of a usage line starts */
#define WIDTH 92

/* Prints the usage: fxtrun's own options, then one entry per setting of the table, then the
 * environment variables of plain LD_PRELOAD use. */
static void print_usage(void)
{
	fputs(usage_head, stdout);
	for (size_t i = 0; i < fxt_options_count; i++) {
		const struct fxt_option *e = &fxt_options[i];
		if (!e->flag)
			continue;
		int n = printf(e->arg == FXT_OPT_OPTIONAL ? "  --%s[=%s]" : "  --%s %s", e->flag,
			       e->metavar);
		/* the help text, word-wrapped from column COL */
		for (const char *h = e->help; *h;) {
			size_t len = strlen(h), cut = len;
			if (COL + len > WIDTH) {
				cut = WIDTH - COL;
				while (cut > 0 && h[cut] != ' ')
					cut--;
				if (!cut)
					cut = strcspn(h, " ");
			}
			printf("%*s%.*s\n", n < COL ? COL - n : 1, "", (int)cut, h);
			n = 0;
			h += cut + (h[cut] == ' ');
		}
	}
	fputs(usage_tail, stdout);
	fputs("The same settings for plain LD_PRELOAD use:", stdout);
	for (size_t i = 0, col = 43; i < fxt_options_count; i++) {
		size_t w = strlen(fxt_options[i].env) + 2;
		printf("%s%s%s", col + w > WIDTH ? "\n" : " ", fxt_options[i].env,
		       i + 1 < fxt_options_count ? "," : ".\n");
		col = col + w > WIDTH ? w - 1 : col + w;
	}
	fputs("\nfxt record without a PROGRAM traces programs already running:\n", stdout);
	fputs(cmd_record_service_usage, stdout);
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, ME ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'fxtrun --help'.\n");
	return 2;
}

#define NSETTINGS 32	/* at least fxt_options_count */

struct opts {
	const char *output, *mode;
	char *val[NSETTINGS];	/* per fxt_options entry: the value given (joined if repeated) */
	int no_functions, no_follow, start_stopped;
};

/* Sets (or, repeatable, appends with ',') the value of a setting. Fails: -1 (no memory). */
static int add_value(char **dst, const char *v, int repeatable)
{
	size_t old = *dst && repeatable ? strlen(*dst) : 0;
	char *s = realloc(old ? *dst : NULL, old + strlen(v) + 2);
	if (!s)
		return -1;
	if (!old)
		free(*dst);
	if (old)
		s[old++] = ',';
	strcpy(s + old, v);
	*dst = s;
	return 0;
}

static void free_opts(struct opts *o)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		free(o->val[i]);
}

/* Parses argv; returns the index of PROGRAM, or -exit status (usage error or --help). A setting
 * is checked by the table's parser, the same one the preload applies to its variable. */
static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_MODE = 256, OPT_NOFN, OPT_NOFOLLOW, OPT_STOPPED, OPT_SETTING = 512 };
	_Static_assert(NSETTINGS >= 11, "NSETTINGS");
	if (fxt_options_count > NSETTINGS)
		return -bad("%s", "internal error: too many settings");
	struct option longs[NSETTINGS + 16] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "no-functions", no_argument, NULL, OPT_NOFN },
		{ "no-follow", no_argument, NULL, OPT_NOFOLLOW },
		{ "start-stopped", no_argument, NULL, OPT_STOPPED },
		{ "help", no_argument, NULL, 'h' },
	};
	size_t nl = 0;
	while (longs[nl].name)
		nl++;	/* fxtrun's own options above, then the table's */
	for (size_t i = 0; i < fxt_options_count; i++)
		if (fxt_options[i].flag)
			longs[nl++] = (struct option){ fxt_options[i].flag, fxt_options[i].arg, NULL,
						       OPT_SETTING + (int)i };
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:h", longs, NULL)) != -1) {
		if (c >= OPT_SETTING) {
			const struct fxt_option *e = &fxt_options[c - OPT_SETTING];
			const char *v = optarg ? optarg : "";
			struct fxt_settings scratch;
			fxt_settings_default(&scratch);
			if (e->parse(v, &scratch) < 0) {
				fprintf(stderr, ME ": --%s%s%s: %s\nTry 'fxtrun --help'.\n", e->flag,
					optarg ? "=" : "", v, e->expected);
				return -2;
			}
			if (add_value(&o->val[c - OPT_SETTING], v, e->repeatable) < 0)
				return -bad("out of memory", NULL);
			continue;
		}
		switch (c) {
		case 'o': {	/* FXT_OUTPUT's grammar; the archive is fxtrun's to write */
			const struct fxt_option *e = fxt_option_find("FXT_OUTPUT", 0);
			struct fxt_settings scratch;
			if (e->parse(optarg, &scratch) < 0) {
				fprintf(stderr, ME ": --output=%s: %s\nTry 'fxtrun --help'.\n",
					optarg, e->expected);
				return -2;
			}
			o->output = optarg;
			break;
		}
		case OPT_MODE:
			if (strcmp(optarg, "oneshot") && strcmp(optarg, "circular") &&
			    strcmp(optarg, "streaming"))
				return -bad("--mode must be oneshot, circular or streaming, "
					    "not '%s'", optarg);
			o->mode = optarg;
			break;
		case OPT_NOFN:
			o->no_functions = 1;
			break;
		case OPT_NOFOLLOW:
			o->no_follow = 1;
			break;
		case OPT_STOPPED:
			o->start_stopped = 1;
			break;
		case 'h':
			print_usage();
			return -0;
		case ':':
			return -bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return -bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* A setting left to the environment reaches every process: refused here, as it would be
	 * there (the preload would run the program untraced). */
	for (size_t i = 0; i < fxt_options_count; i++) {
		const char *v = getenv(fxt_options[i].env);
		struct fxt_settings scratch;
		fxt_settings_default(&scratch);
		if (v && !o->val[i] && fxt_options[i].parse(v, &scratch) < 0) {
			fprintf(stderr, ME ": %s=%s in the environment: %s\n", fxt_options[i].env, v,
				fxt_options[i].expected);
			return -2;
		}
	}
	if (optind >= argc)
		return -bad("no program to trace", NULL);
	if (o->start_stopped && (o->output || o->mode))
		return -bad("--start-stopped: %s goes to the command that records (fxt record --pid, "
			    "fxt start, fxt stop)", o->output ? "-o" : "--mode");
	return optind;
}

/* ---- the program ---- */

/* Finds prog as execvp(3) would. Fails: -ENOENT, -EACCES, -EISDIR. */
static int resolve(const char *prog, char *out, size_t size)
{
	struct stat st;
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) < 0)
			return -errno;
		if (stat(prog, &st) == 0 && S_ISDIR(st.st_mode))
			return -EISDIR;
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

/* The program's environment: the preload, then fxtrun's session (s) or, with s NULL
 * (--start-stopped), registration with the manager service; and the settings. */
static int set_env(const struct opts *o, const struct fxt_session *s, const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	int rc = setenv("LD_PRELOAD", pre, 1);
	if (s)
		rc |= setenv(FXT_ENV_SESSION, s->dir, 1) |
		      setenv(FXT_ENV_MODE, o->mode ? o->mode : "streaming", 1);
	else
		rc |= setenv(FXT_ENV_REGISTER, "1", 1);
	free(pre);
	if (o->no_follow)
		rc |= setenv(FXT_ENV_NO_FOLLOW, "1", 1);
	for (size_t i = 0; i < fxt_options_count; i++)
		if (o->val[i])
			rc |= setenv(fxt_options[i].env, o->val[i], 1);
	/* --no-functions: every function name is excluded (recorded once as skipped). */
	if (o->no_functions)
		rc |= setenv("FXT_EXCLUDE", "*", 1);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sends sig to the program on behalf of sender, tagged as a forward (common/forward.h): the
 * program's preload drops it if the program got that signal from sender already (a process-group
 * kill that reached fxtrun and the program both, as timeout(1) sends). */
static void forward(pid_t child, int sig, pid_t sender)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)(uintptr_t)fxt_forward_value(sender);
	if (syscall(SYS_rt_sigqueueinfo, child, sig, &si) < 0)
		kill(child, sig);
}

/* Serves the providers (m NULL: none, --start-stopped) until every process of the tree is gone,
 * or a second SIGINT/SIGTERM.
 * A signal from the terminal (SI_KERNEL) reached the program's process group, the program with
 * it: not forwarded. One sent to fxtrun is forwarded once, tagged with its sender (the same
 * signal from the same sender again within 100 ms is one signal sent twice, as timeout(1) does:
 * to fxtrun, then to its group). Returns the program's wait status, or -1 if not reaped. */
static int serve(struct fxt_manager *m, int sfd, pid_t child)
{
	int status = -1, interrupts = 0, last_sig = 0;
	uint32_t last_pid = 0;
	double last_at = 0;
	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		int r = m ? fxt_manager_poll(m, sfd, 1000) : poll(&pfd, 1, 1000);
		if (r < 0)
			fprintf(stderr, ME ": waiting for the program: %s\n", strerror(-r));
		struct signalfd_siginfo si;
		while (r > 0 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			int sig = (int)si.ssi_signo;
			if (sig == SIGCHLD)
				continue;
			double now = now_s();
			if (sig == last_sig && si.ssi_pid == last_pid && now - last_at < 0.1)
				continue;
			last_sig = sig;
			last_pid = si.ssi_pid;
			last_at = now;
			if ((int)si.ssi_code != SI_KERNEL && status == -1)
				forward(child, sig, (pid_t)si.ssi_pid);
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

/* How the program ended, when the exit status alone does not say it: a signal. */
static void print_end(int status)
{
	if (status != -1 && WIFSIGNALED(status))
		fprintf(stderr, ME ": program killed by signal %d (%s)%s.\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
}

struct pending {
	const struct fxt_session *session;
	int rc;	/* the last note's, -errno */
};

static int note_pending(const char *tmp, void *arg)
{
	struct pending *p = arg;
	return p->rc = fxt_session_note_pending(p->session, tmp);
}

/* Makes fxtrun's session and its temporary archive (returned, its name in tmp): after the
 * session, each name noted there before a file of that name is made and the file noted once
 * made, so that a cleanup after fxtrun is killed at any instant finds it; under a fresh name in
 * the archive's directory (never following a link someone planted there), renamed once
 * complete. Fails: -1 after printing why (nothing left behind). */
static int open_archive(struct fxt_session *s, const char *output, char *tmp, size_t size)
{
	fxt_session_clean(NULL);	/* sessions of managers that were killed */
	int rc = fxt_session_create(s);
	if (rc < 0) {
		fprintf(stderr, ME ": cannot create the session directory: %s\n", strerror(-rc));
		return -1;
	}
	struct pending p = { s, 0 };
	int out_fd = fxt_outpath_open_told(output, tmp, size, note_pending, &p);
	if (out_fd < 0) {
		if (p.rc < 0)
			fprintf(stderr, ME ": cannot note the archive in the session directory: %s\n",
				strerror(-p.rc));
		else
			fprintf(stderr, ME ": cannot write %s: %s\n", output, strerror(-out_fd));
		fxt_session_remove(s);
		return -1;
	}
	fxt_session_note_archive(s, tmp, out_fd);
	return out_fd;
}

int cmd_record(int argc, char **argv)
{
	static struct opts o;	/* static: values stay reachable on the early returns */
	if (cmd_record_is_service(argc, argv))
		return cmd_record_service(argc, argv);
	memset(&o, 0, sizeof(o));
	int at = parse(argc, argv, &o);
	if (at <= 0) {
		free_opts(&o);
		return -at;
	}
	const char *output = o.output ? o.output : "trace.fxt";
	char prog[PATH_MAX], lib[PATH_MAX], tmp[PATH_MAX + 32];
	struct stat ost;
	if (o.output && stat(o.output, &ost) == 0 && S_ISREG(ost.st_mode) &&
	    access(o.output, X_OK) == 0) {
		/* `fxtrun -o ./app args`: the archive's name was forgotten */
		fprintf(stderr, ME ": -o %s: is an executable file, not an archive name "
				"(usage: fxtrun -o FILE PROGRAM)\n", o.output);
		free_opts(&o);
		return 2;
	}
	const char *why;
	if (!o.start_stopped && fxt_outpath_check(output, &why) < 0) {
		/* before the program runs: a device, FIFO or directory is never replaced */
		fprintf(stderr, ME ": -o %s: %s; an archive is written only to a regular file\n",
			output, why);
		free_opts(&o);
		return 2;
	}
	int rc = resolve(argv[at], prog, sizeof(prog));
	if (rc < 0) {
		/* As a shell says: "command not found" only for a name looked up on PATH. */
		fprintf(stderr, ME ": %s: %s\n", argv[at],
			rc == -ENOENT && !strchr(argv[at], '/') ? "command not found"
								: strerror(-rc));
		return rc == -ENOENT ? 127 : 126;
	}
	if ((rc = fxt_session_find_preload(lib, sizeof(lib))) < 0) {
		fprintf(stderr, ME ": cannot find libfxtauto.so next to this program: %s\n",
			strerror(-rc));
		return 1;
	}
	struct fxt_session s = { .listen_fd = -1 };
	struct fxt_manager *m = NULL;
	int out_fd = -1;
	/* Past a file size limit (ulimit -f) writing the archive fails with EFBIG instead of
	 * killing fxtrun (and the program with it); the program gets the disposition we had. */
	struct sigaction xfsz = { .sa_handler = SIG_IGN }, xfsz_prog;
	sigaction(SIGXFSZ, &xfsz, &xfsz_prog);
	if (o.start_stopped) {
		/* The manager service records, started now if it does not run. */
		if ((rc = fxt_ctl_connect(ME, 1)) < 0)
			return 1;
		close(rc);
	} else {
		if ((out_fd = open_archive(&s, output, tmp, sizeof(tmp))) < 0)
			return 1;
		m = fxt_manager_new(s.dir, out_fd, s.listen_fd);
	}
	sigset_t mask, old;
	sigemptyset(&mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig == SIGCHLD || sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
		    sig == SIGQUIT)
			sigaddset(&mask, sig);
	sigprocmask(SIG_BLOCK, &mask, &old);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if ((!m && !o.start_stopped) || sfd < 0 || set_env(&o, m ? &s : NULL, lib) < 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		fprintf(stderr, ME ": cannot start the session: %s\n", strerror(errno));
		if (m) {
			fxt_session_remove(&s);
			close(out_fd);
			unlink(tmp);
		}
		return 1;
	}

	double t0 = now_s();
	pid_t me = getpid();
	pid_t child = fork();
	if (child == 0) {
		/* The program dies with fxtrun (README "If fxtrun is killed"): without its manager
		 * nothing it does is recorded, and a reparented program running on is what nobody
		 * asked for. Checked after the prctl: fxtrun may have died before it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != me)
			_exit(128 + SIGKILL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		sigaction(SIGXFSZ, &xfsz_prog, NULL);
		execv(prog, argv + at);
		fprintf(stderr, ME ": %s: %s\n", argv[at], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	int status = child < 0 ? 1 << 8 : -1;	/* could not start: exit status 1 */
	if (child < 0) {
		fprintf(stderr, ME ": cannot start %s: %s\n", argv[at], strerror(errno));
	} else {
		if (!m)
			fprintf(stderr, ME ": %d registered with the trace manager, recording nothing "
				"yet: fxt record --pid %d -o FILE, or fxt start --pid %d then "
				"fxt stop -o FILE\n", (int)child, (int)child, (int)child);
		status = serve(m, sfd, child);
	}
	double secs = now_s() - t0;
	rc = 0;
	if (m) {
		for (int i = 0; i < 8 && fxt_manager_poll(m, -1, 0) >= 0; i++)
			;	/* late STARTED and SAVE_BUFFER packets */
		struct fxt_manager_stats st;
		rc = fxt_manager_write(m, &st);
		if (close(out_fd) < 0 && rc == 0)
			rc = -errno;
		if (rc == 0 && (rc = fxt_outpath_commit(tmp, output, &why)) < 0) {
			/* complete: left under its temporary name, said so */
			fprintf(stderr, ME ": %s %s: the complete archive stays in %s\n", output,
				why, tmp);
		} else if (rc < 0) {
			unlink(tmp);
			fprintf(stderr, ME ": cannot write %s: %s\n", output,
				rc == -EFBIG ? "the file size limit (ulimit -f) was reached; nothing "
					       "written" : strerror(-rc));
		} else {
			fxt_summary_print(ME, &st, secs, output, "a statically linked program, or "
					  "one that clears LD_PRELOAD?");
		}
		fxt_manager_free(m);
		fxt_session_remove(&s);
	}
	print_end(status);
	close(sfd);
	free_opts(&o);

	int code = status == -1		 ? 128 + SIGINT
		   : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					 : WEXITSTATUS(status);
	return rc < 0 && code == 0 ? 1 : code;
}
