/* The one table of settings, read by fxtrun (as --options, checked before the program starts) and
 * by the preload (as FXT_* environment variables, read in its constructor): name, environment
 * variable, fxtrun option, grammar and limits, help text. Both sides call the same parser, so they
 * refuse exactly the same values; a setting's value is parsed into struct fxt_settings.
 * No global state, no I/O, no allocation (values point into the strings given). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_OPTIONS_H
#define FXT_COMMON_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define FXT_SAMPLE_DEFAULT_HZ 997u
#define FXT_SAMPLE_MAX_HZ 100000u
#define FXT_CATEGORIES_MAX 4095u /* bytes of an FXT_CATEGORIES list */

/* FXT_LOG streams, one bit each. */
enum { FXT_LOG_STDERR = 1u, FXT_LOG_STDOUT = 2u, FXT_LOG_SYSLOG = 4u };

/* Parsed settings; fxt_settings_default() fills the defaults. Strings point into the values. */
struct fxt_settings {
	const char *output;		/* FXT_OUTPUT, or NULL: default name */
	uint64_t buffer_size;		/* bytes, 1M..64G */
	uint32_t max_depth;		/* 1..2^31, 0: unlimited */
	uint64_t min_duration_ns;	/* 0: off */
	const char *filter, *exclude;	/* comma-separated globs, or NULL */
	unsigned sample_hz;		/* 0: off */
	const char *categories;		/* comma-separated, "x*" a prefix; NULL: all */
	unsigned log_streams;		/* FXT_LOG_* bits; 0: none */
	int log_events;			/* FXT_LOG_EVENTS: log lines also as instant events */
	int lock_labels;		/* FXT_LOCK_LABELS: lock waits carry a label argument */
	int overflow_drop;		/* FXT_OVERFLOW=drop: streaming drops instead of waiting */
	uint32_t save_timeout_ms;	/* FXT_SAVE_TIMEOUT_MS: longest wait for a save */
	int sched;			/* FXT_SCHED: context switches of the traced threads */
	int register_wait;		/* FXT_REGISTER=1: wait for the manager service's START */
};

/* How fxtrun takes a setting (getopt's has_arg), or FXT_OPT_ENV_ONLY: no fxtrun option. */
enum fxt_opt_arg { FXT_OPT_ENV_ONLY = -1, FXT_OPT_NO_ARG = 0, FXT_OPT_REQUIRED = 1,
		   FXT_OPT_OPTIONAL = 2 };

struct fxt_option {
	const char *env;	/* environment variable (FXT_...) */
	const char *flag;	/* fxtrun's long option without "--", or NULL */
	int arg;		/* enum fxt_opt_arg */
	int repeatable;		/* fxtrun: given again, values are joined with ',' */
	const char *metavar;	/* fxtrun --help: the value's name */
	const char *help;	/* fxtrun --help and README: what it does (one line) */
	const char *expected;	/* error text: "expected ..." */
	/* Parses value into s. Fails: -1 (s unchanged in the fields it owns). */
	int (*parse)(const char *value, struct fxt_settings *s);
};

extern const struct fxt_option fxt_options[];
extern const size_t fxt_options_count;

/* Fills the defaults (64M buffer, stderr+syslog logs, events and labels on, rest off).
 * Fails: never. Thread-safe: yes (writes *s only). */
void fxt_settings_default(struct fxt_settings *s);

/* The table entry whose env (or, when by_flag, flag) is name, or NULL.
 * Fails: NULL. Thread-safe: yes. */
const struct fxt_option *fxt_option_find(const char *name, int by_flag);

/* Reads every table entry's variable through get (getenv-like) into s, stopping at the first
 * bad value: returns 0, or -1 with *bad and *value naming it. Fails: -1 (bad value).
 * Thread-safe: as get. */
int fxt_settings_read(struct fxt_settings *s, char *(*get)(const char *name),
		      const struct fxt_option **bad, const char **value);

#endif
