/* The settings table (common/options.h): one entry per setting, one parser per grammar. Compiled
 * into fxt (fxtrun checks its options and its own FXT_* environment with it) and into
 * libfxtauto.so (the constructor reads the environment with it). Numbers are plain decimal
 * digits (no sign, no spaces, no 0x); lists are comma-separated non-empty items. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <string.h>

#include "common/options.h"
#include "common/size.h"

/* s as a decimal number of at most max, digits only. Fails: -1. */
static int digits(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* A comma-separated list of non-empty items. */
static int list_ok(const char *s)
{
	for (;;) {
		size_t n = strcspn(s, ",");
		if (!n)
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

static int parse_output(const char *v, struct fxt_settings *s)
{
	if (!*v)
		return -1;
	s->output = v;
	return 0;
}

static int parse_buffer_size(const char *v, struct fxt_settings *s)
{
	uint64_t b;
	if (fxt_parse_size(v, &b) < 0 || b < (1ULL << 20) || b > (64ULL << 30))
		return -1;
	s->buffer_size = b;
	return 0;
}

static int parse_max_depth(const char *v, struct fxt_settings *s)
{
	uint64_t d;
	if (digits(v, 1ULL << 31, &d) < 0 || d < 1)
		return -1;
	s->max_depth = (uint32_t)d;
	return 0;
}

static int parse_min_duration(const char *v, struct fxt_settings *s)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };
	size_t n = strspn(v, "0123456789");
	char num[24];
	uint64_t d;
	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, v, n);
	num[n] = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(v + n, units[i].unit)) {
			if (digits(num, UINT64_MAX / units[i].ns, &d) < 0)
				return -1;
			s->min_duration_ns = d * units[i].ns;
			return 0;
		}
	return -1;
}

static int parse_filter(const char *v, struct fxt_settings *s)
{
	if (list_ok(v) < 0)
		return -1;
	s->filter = v;
	return 0;
}

static int parse_exclude(const char *v, struct fxt_settings *s)
{
	if (list_ok(v) < 0)
		return -1;
	s->exclude = v;
	return 0;
}

static int parse_sample(const char *v, struct fxt_settings *s)
{
	uint64_t hz = FXT_SAMPLE_DEFAULT_HZ;
	if (*v && (digits(v, FXT_SAMPLE_MAX_HZ, &hz) < 0 || hz < 1))
		return -1;
	s->sample_hz = (unsigned)hz;
	return 0;
}

static int parse_categories(const char *v, struct fxt_settings *s)
{
	if (strlen(v) > FXT_CATEGORIES_MAX || list_ok(v) < 0)
		return -1;
	s->categories = v;
	return 0;
}

static const char *const streams[] = { "stderr", "stdout", "syslog" }; /* FXT_LOG_* bit order */

static int parse_log(const char *v, struct fxt_settings *s)
{
	unsigned bits = 0;
	if (!strcmp(v, "none")) {
		s->log_streams = 0;
		return 0;
	}
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ","), i = 0;
		while (i < sizeof(streams) / sizeof(streams[0]) &&
		       (strlen(streams[i]) != n || strncmp(p, streams[i], n)))
			i++;
		if (i == sizeof(streams) / sizeof(streams[0]))
			return -1;	/* unknown or empty item */
		bits |= 1u << i;
		p += n;
		if (!*p)
			break;
	}
	s->log_streams = bits;
	return 0;
}

/* "0" or "1". */
/* "0" or "1" into *out. Returns 0, or -1 (anything else). */
static int set_flag01(const char *v, int *out)
{
	if ((v[0] != '0' && v[0] != '1') || v[1])
		return -1;
	*out = v[0] - '0';
	return 0;
}

static int parse_log_events(const char *v, struct fxt_settings *s)
{
	return set_flag01(v, &s->log_events);
}

static int parse_register(const char *v, struct fxt_settings *s)
{
	return set_flag01(v, &s->register_wait);
}

static int parse_lock_labels(const char *v, struct fxt_settings *s)
{
	return set_flag01(v, &s->lock_labels);
}

static int parse_overflow(const char *v, struct fxt_settings *s)
{
	if (strcmp(v, "wait") && strcmp(v, "drop"))
		return -1;
	s->overflow_drop = !strcmp(v, "drop");
	return 0;
}

static int parse_save_timeout(const char *v, struct fxt_settings *s)
{
	uint64_t ms;
	if (digits(v, 3600000, &ms) < 0 || ms < 1)
		return -1;
	s->save_timeout_ms = (uint32_t)ms;
	return 0;
}

/* "" (fxtrun --sched) or "1": on; "0": off. */
static int parse_sched(const char *v, struct fxt_settings *s)
{
	return set_flag01(*v ? v : "1", &s->sched);
}

const struct fxt_option fxt_options[] = {
	{ "FXT_OUTPUT", NULL, FXT_OPT_ENV_ONLY, 0, "FILE",
	  "archive path (default fxtauto.<pid>.fxt; fxtrun: -o)", "expected a file path",
	  parse_output },
	{ "FXT_BUFFER_SIZE", "buffer-size", FXT_OPT_REQUIRED, 0, "SIZE",
	  "buffer per process, 1M..64G (K, M, G suffixes; default 64M)",
	  "expected a size from 1M to 64G, like 64M", parse_buffer_size },
	{ "FXT_FILTER", "filter", FXT_OPT_REQUIRED, 1, "GLOBS",
	  "record only functions matching a glob (comma-separated; repeatable)",
	  "expected non-empty globs separated by commas", parse_filter },
	{ "FXT_EXCLUDE", "exclude", FXT_OPT_REQUIRED, 1, "GLOBS",
	  "do not record functions matching a glob (comma-separated; repeatable)",
	  "expected non-empty globs separated by commas", parse_exclude },
	{ "FXT_MAX_DEPTH", "max-depth", FXT_OPT_REQUIRED, 0, "N",
	  "record calls down to depth N (1 = outermost)",
	  "expected a whole number from 1 to 2147483648", parse_max_depth },
	{ "FXT_MIN_DURATION", "min-duration", FXT_OPT_REQUIRED, 0, "TIME",
	  "skip calls shorter than TIME (ns, us, ms, s; e.g. 10us)",
	  "expected a duration like 10us (ns, us, ms, s)", parse_min_duration },
	{ "FXT_SAMPLE", "sample", FXT_OPT_OPTIONAL, 0, "HZ",
	  "sample call stacks per thread of CPU time (default 997 Hz, 1..100000): profiles "
	  "binaries built without instrumentation",
	  "expected a rate in Hz from 1 to 100000, or nothing for 997", parse_sample },
	{ "FXT_CATEGORIES", "categories", FXT_OPT_REQUIRED, 0, "LIST",
	  "hand-instrumentation categories to record (a,b,net*)",
	  "expected a comma-separated list of categories of up to 4095 bytes", parse_categories },
	{ "FXT_LOG", "log", FXT_OPT_REQUIRED, 0, "STREAMS",
	  "program output recorded as log records: stderr, stdout, syslog, comma-separated, or "
	  "none (default stderr,syslog)",
	  "expected stderr, stdout, syslog (comma-separated) or none", parse_log },
	{ "FXT_LOG_EVENTS", NULL, FXT_OPT_ENV_ONLY, 0, "0|1",
	  "0: log lines without their Perfetto instant events", "expected 0 or 1",
	  parse_log_events },
	{ "FXT_LOCK_LABELS", NULL, FXT_OPT_ENV_ONLY, 0, "0|1",
	  "0: lock waits without their label argument", "expected 0 or 1", parse_lock_labels },
	{ "FXT_OVERFLOW", "overflow", FXT_OPT_REQUIRED, 0, "WHAT",
	  "streaming, when saving falls behind: wait (default: nothing is lost) or drop (the "
	  "program is never held up; drops are counted and reported)",
	  "expected wait or drop", parse_overflow },
	{ "FXT_SAVE_TIMEOUT_MS", NULL, FXT_OPT_ENV_ONLY, 0, "MS",
	  "streaming: longest wait for one save before the manager counts as gone (5000)",
	  "expected milliseconds from 1 to 3600000", parse_save_timeout },
	{ "FXT_SCHED", "sched", FXT_OPT_OPTIONAL, 0, "0|1",
	  "record the traced threads' context switches (default 1; perf_event, no root): thread "
	  "states and CPU tracks in Perfetto, on-CPU self time in fxt report",
	  "expected 1 (or nothing) to record context switches, 0 not to", parse_sched },
	{ "FXT_REGISTER", NULL, FXT_OPT_ENV_ONLY, 0, "0|1",
	  "1: register with the trace manager service and record only when a client asks (fxt "
	  "record, fxt start); fxtrun --start-stopped sets it", "expected 0 or 1",
	  parse_register },
};
const size_t fxt_options_count = sizeof(fxt_options) / sizeof(fxt_options[0]);

void fxt_settings_default(struct fxt_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->buffer_size = 64ULL << 20;
	s->log_streams = FXT_LOG_STDERR | FXT_LOG_SYSLOG;
	s->log_events = 1;
	s->save_timeout_ms = 5000;
	s->lock_labels = 1;
	s->sched = 1;	/* where perf_event allows: off-CPU time apart from self time */
}

const struct fxt_option *fxt_option_find(const char *name, int by_flag)
{
	for (size_t i = 0; i < fxt_options_count; i++) {
		const char *n = by_flag ? fxt_options[i].flag : fxt_options[i].env;
		if (n && !strcmp(n, name))
			return &fxt_options[i];
	}
	return NULL;
}

int fxt_settings_read(struct fxt_settings *s, char *(*get)(const char *name),
		      const struct fxt_option **bad, const char **value)
{
	for (size_t i = 0; i < fxt_options_count; i++) {
		const char *v = get(fxt_options[i].env);
		if (v && fxt_options[i].parse(v, s) < 0) {
			*bad = &fxt_options[i];
			*value = v;
			return -1;
		}
	}
	return 0;
}
