/* The top of the preload: its one constructor and its destructor, and nothing that another
 * file calls. The constructor reads the settings, starts the clock, then calls each room's
 * init in order (below) and publishes RUNNING last; the destructor runs the exit flush
 * (flush.c). A bad option: one line on stderr, tracing off, the program runs normally. The
 * tracer never changes the program's output, status or errno. */
/* SPDX-License-Identifier: MIT */
/*
 * Environment (read once, in the constructor, through the table of common/options.c, which
 * also holds FXT_CATEGORIES, FXT_LOG, FXT_LOG_EVENTS and FXT_LOCK_LABELS; fxtrun refuses the
 * same values):
 *   FXT_OUTPUT        archive path (default: fxtauto.<pid>.fxt in the working directory at
 *                     start). A fork child writes FXT_OUTPUT.<childpid> (default name: its own
 *                     fxtauto.<childpid>.fxt), and so does a program started by a traced
 *                     parent (fork + exec, system, posix_spawn). After an exec of the same
 *                     pid the new image writes FXT_OUTPUT.<pid>, then FXT_OUTPUT.<pid>.<n>
 *                     (fxtp_out_name; exec.c). A process that recorded nothing leaves the
 *                     name to one that did: an image that execs to the next, a wrapper to
 *                     the one program it started that recorded (outname.c); a wrapper
 *                     inside the tree leaves no file. Written as <path>.part, then
 *                     renamed. A relative path is made absolute once, in the environment
 *                     too (export_output): a descendant in another directory writes beside
 *                     it.
 *   FXT_BUFFER_SIZE   bytes of the trace buffer per process under fxtrun, with an optional K,
 *                     M or G suffix (powers of 1024): 1M .. 64G, default 64M, reserved as
 *                     used. Without fxtrun the archive file is the buffer and grows as the
 *                     program runs (preload/transport/standalone.c); this only sizes its string area.
 *   FXT_MAX_DEPTH     deepest call level recorded (1 = outermost calls only), 1 .. 2^31;
 *                     deeper calls are not recorded. Default: unlimited.
 *   FXT_FILTER        comma-separated fnmatch(3) globs: only functions whose name matches one
 *                     are recorded (e.g. "main,work*,ns::*").
 *   FXT_EXCLUDE       comma-separated globs: functions whose name matches one are not recorded.
 *   FXT_MIN_DURATION  calls shorter than this are not recorded: a number with unit ns, us, ms
 *                     or s (e.g. 10us); a bare number is nanoseconds.
 *   FXT_SAMPLE        sample call stacks at this rate in Hz of each thread's CPU time, 1 ..
 *                     100000 (empty: 997 Hz): preload/sampling/sample-records.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/options.h"
#include "common/protocol.h"
#include "preload/transport/buffer.h"
#include "preload/base/clock.h"
#include "preload/life/exec.h"
#include "common/outpath.h"
#include "preload/base/fxtp.h"
#include "preload/life/flush.h"
#include "preload/events/api.h"
#include "preload/events/lock.h"
#include "preload/events/log.h"
#include "preload/life/fork.h"
#include "preload/hot/names.h"
#include "preload/transport/outname.h"
#include "preload/transport/provider.h"
#include "preload/base/real.h"
#include "preload/transport/manager-link.h"
#include "preload/sampling/sampler.h"
#include "preload/sampling/sched.h"
#include "preload/life/dispositions.h"
#include "preload/hot/thread.h"
#include "writer/outfile.h"
#include "writer/fields.h"
#include "writer/records.h"

/* One line for a bad option: "fxtauto: NAME=VALUE: EXPECTED; tracing off". Returns -1. */
static int bad_option(const char *name, const char *value, const char *expected)
{
	char what[600];
	snprintf(what, sizeof(what), "%s=%.256s", name, value);
	char why[300];
	snprintf(why, sizeof(why), "%s; tracing off", expected);
	fxtp_warn(what, why);
	return -1;
}

/* FXT_OUTPUT=<a relative path> made absolute in this process's environment too, in place in the
 * array main() receives (a program that passes its own envp on, as bash does, passes it): the
 * processes it starts write beside FXT_OUTPUT and join its tree (outname.c) also from another
 * working directory (`sh -c 'cd sub && ./app'`). */
static char output_env[sizeof("FXT_OUTPUT=") + sizeof(fxtp.output_opt)];

static void export_output(void)
{
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, "FXT_OUTPUT=", 11)) {
			snprintf(output_env, sizeof(output_env), "FXT_OUTPUT=%s", fxtp.output_opt);
			*e = output_env;
			return;
		}
	}
}

/* Reads every FXT_* setting through the table of common/options.c (fxtrun refuses the same
 * values); on a bad one prints why and returns -1. */
static int read_options(void)
{
	const struct fxt_option *bad;
	const char *value;

	fxt_settings_default(&fxtp_settings);
	if (fxt_settings_read(&fxtp_settings, getenv, &bad, &value) < 0)
		return bad_option(bad->env, value, bad->expected);
	const struct fxt_settings *o = &fxtp_settings;
	fxtp.buffer_size = o->buffer_size;
	fxtp.max_depth = o->max_depth;
	fxtp.min_ticks = o->min_duration_ns;	/* converted to ticks once the clock is known */
	if ((o->filter && !(fxtp.filter = strdup(o->filter))) ||
	    (o->exclude && !(fxtp.exclude = strdup(o->exclude))))
		return bad_option(o->filter ? "FXT_FILTER" : "FXT_EXCLUDE", "", "out of memory");
	fxtp_sampling.hz = o->sample_hz;
	const char *session = getenv(FXT_ENV_SESSION), *refused;
	if (session && *session && (refused = fxtp_provider_session_refused(session)))
		return bad_option(FXT_ENV_SESSION, session, refused);
	if (o->output) {
		const char *why;
		fxtp.output_set = 1;
		fxtp_absolute(o->output, fxtp.output_opt, sizeof(fxtp.output_opt));
		if (!getenv("FXT_SESSION") && fxt_outpath_check(fxtp.output_opt, &why) < 0)
			return bad_option("FXT_OUTPUT", o->output, why);	/* a device... */
		if (o->output[0] != '/')
			export_output();
	}
	return 0;
}

/* Whether the parent process runs this library too (then this process is a traced program's
 * child that exec'd, and FXT_OUTPUT belongs to the parent): looks for our own file in the
 * parent's memory map. */
static int parent_is_traced(void)
{
	Dl_info self;
	char path[64], *line = NULL;
	size_t cap = 0;
	int found = 0;
	if (!dladdr((void *)parent_is_traced, &self) || !self.dli_fname || !*self.dli_fname)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)getppid());
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, self.dli_fname) != NULL;
	free(line);
	fclose(f);
	return found;
}

/* ---- constructor, destructor, _exit ---- */

/* The preload's one constructor (priority 101, the first of this library; across libraries the
 * loader's order holds, hence real.c's lazy resolution), run with the guard held. Its order,
 * and why:
 *   1. real functions (real.c): every later step and any wrapper may call one;
 *   2. the exec image number (exec.c) and the settings (common/options.c): everything below
 *      reads them; a bad setting stops here, tracing off;
 *   3. the clock (TSC or CLOCK_MONOTONIC, first calibration pair), since the buffer stamps its
 *      start and FXT_MIN_DURATION becomes ticks;
 *   4. names.c's map and thread.c's registry, then the buffer (buffer.c, which interns and emits
 *      the process record into them), signal handlers (dispositions.c: a fatal signal flushes the
 *      buffer, so it must exist) and the fork handlers (fork.c: a fork child opens its own);
 *   5. RUNNING, published last of what the hooks need; with FXT_REGISTER (manager-link.c) no
 *      buffer is made in step 4, the state is IDLE and the provider thread starts instead:
 *      a manager's START makes the buffer and starts the parts of step 6;
 *   6. the parts that run only while tracing: sampling (sampler.c), context switches
 *      (sched.c), <fxt/trace.h> categories (api.c, publishes its generation last), lock
 *      labels (lock.c), log capture (log.c). This is the order of the constructors at
 *      priorities 101, 102 and 103 before they were merged into this one.
 * Fails: one line on stderr, tracing off; the program runs on. */
__attribute__((constructor(101), no_instrument_function)) static void fxtp_init(void)
{
	struct fxtp_thread *t = &fxtp_self;
	fxtp_enter(t);
	int saved = errno;
	fxtp_real_init();
	int image_seq = fxtp_exec_image();
	if (read_options() < 0)
		goto out;
	snprintf(fxtp.prog, sizeof(fxtp.prog), "%s", program_invocation_short_name);
	if (image_seq >= 0)
		fxtp.name_seq = image_seq;	/* a later image of this pid (exec.c) */
	else
		fxtp.name_seq = fxtp.parent_traced = fxtp.output_set && parent_is_traced();
	fxtp_clock_init();
	int rc, registered = fxtp_link_wanted();
	if ((rc = fxtp_names_init()) < 0 || (rc = fxtp_threads_init()) < 0 ||
	    (!registered && (rc = fxtp_open_buffer()) < 0) || (rc = fxtp_signals_init()) < 0 ||
	    (rc = fxtp_fork_init()) < 0) {
		fxtp_warn("cannot start tracing; tracing off", strerror(-rc));
		goto out;
	}
	fxtp_thread_alive();	/* the main thread: its pthread_exit may leave others running */
	if (registered) {
		/* No buffer until a manager starts a trace (manager-link.c). */
		fxtp_state_move(FXTP_STATE_SETUP, FXTP_STATE_IDLE);
		fxtp_lock_init();
		fxtp_log_init();
		if ((rc = fxtp_link_start()) < 0)
			fxtp_warn("FXT_REGISTER: cannot start the provider thread; tracing off",
				  strerror(-rc));
		goto out;
	}
	fxtp_outname_attach();
	fxtp_state_move(FXTP_STATE_SETUP, FXTP_STATE_RUNNING);
	fxtp_sample_start();
	fxtp_sched_start();
	fxtp_api_init();
	fxtp_lock_init();
	fxtp_log_init();
out:
	errno = saved;
	fxtp_leave(t);
}

/* The exit flush of a process that returns from main or calls exit() (flush.c). */
__attribute__((destructor, no_instrument_function)) static void fxtp_fini(void)
{
	fxtp_finish(0);
}
