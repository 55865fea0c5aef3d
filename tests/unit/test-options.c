/* The settings table (common/options.c): every setting refuses the bad values listed in
 * settings-bad.txt (also run by preload.bats and fxtrun.bats) on both paths, the preload's
 * (fxt_settings_read over the environment) and fxtrun's (the entry's parser on an option value),
 * and parses good values into the same settings on both. Usage: test-options [settings-bad.txt] */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/options.h"

/* The one variable the fake environment holds. */
static const char *env_name, *env_value;

static char *fake_getenv(const char *name)
{
	return env_name && !strcmp(name, env_name) ? (char *)env_value : NULL;
}

/* Parses NAME=VALUE both ways; returns 1 if both accept with equal settings, 0 if both refuse,
 * -1 if the paths disagree. */
static int both(const struct fxt_option *e, const char *value, struct fxt_settings *out)
{
	struct fxt_settings a, b;
	const struct fxt_option *bad = NULL;
	const char *badval = NULL;
	fxt_settings_default(&a);
	fxt_settings_default(&b);
	env_name = e->env;
	env_value = value;
	int env_ok = fxt_settings_read(&a, fake_getenv, &bad, &badval) == 0;
	int flag_ok = e->parse(value, &b) == 0;
	env_name = NULL;
	if (!env_ok && (bad != e || badval != value))
		return -1;
	if (env_ok != flag_ok || (env_ok && memcmp(&a, &b, sizeof(a))))
		return -1;
	if (out)
		*out = a;
	return env_ok;
}

static struct fxt_settings good(const char *name, const char *value)
{
	struct fxt_settings s;
	const struct fxt_option *e = fxt_option_find(name, 0);
	memset(&s, 0xff, sizeof(s));
	ok(e && both(e, value, &s) == 1, "%s=%s is accepted by the preload and by fxtrun", name,
	   value);
	return s;
}

int main(int argc, char **argv)
{
	static char long4096[4097];
	int lines[64] = { 0 };
	char line[512];
	FILE *f = fopen(argc > 1 ? argv[1] : SETTINGS_BAD, "r");

	ok(f != NULL, "the list of bad values opens");
	ok(fxt_options_count <= 64, "the table has %zu settings", fxt_options_count);
	memset(long4096, 'a', 4096);
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		char *eq = strchr(line, '=');
		if (!ok(eq != NULL, "line '%s' is NAME=VALUE", line))
			continue;
		*eq = 0;
		const char *value = strcmp(eq + 1, "@LONG4096") ? eq + 1 : long4096;
		const struct fxt_option *e = fxt_option_find(line, 0);
		if (!ok(e != NULL, "%s is a setting of the table", line))
			continue;
		lines[e - fxt_options]++;
		ok(both(e, value, NULL) == 0, "%s='%.40s' is refused by the preload and by fxtrun",
		   line, value);
	}
	if (f)
		fclose(f);
	for (size_t i = 0; i < fxt_options_count; i++) {
		const struct fxt_option *e = &fxt_options[i];
		ok(lines[i] > 0, "%s has bad values in the list", e->env);
		ok(e->env && !strncmp(e->env, "FXT_", 4) && e->help && e->expected && e->parse &&
		   e->metavar, "%s has a name, help, expectation and parser", e->env);
		ok(!e->flag || fxt_option_find(e->flag, 1) == e, "%s: fxtrun option --%s is unique",
		   e->env, e->flag ? e->flag : "");
	}

	struct fxt_settings d;
	fxt_settings_default(&d);
	ok(d.buffer_size == 64u << 20 && !d.max_depth && !d.sample_hz && d.log_events &&
	   d.lock_labels && d.log_streams == (FXT_LOG_STDERR | FXT_LOG_SYSLOG),
	   "defaults: 64M, unlimited depth, no sampling, stderr+syslog logs with events, labels");
	ok(good("FXT_BUFFER_SIZE", "1M").buffer_size == 1u << 20, "1M is 1 MiB");
	ok(good("FXT_BUFFER_SIZE", "64G").buffer_size == 64ULL << 30, "64G is the largest");
	ok(good("FXT_BUFFER_SIZE", "2048k").buffer_size == 2u << 20, "2048k is 2 MiB");
	ok(good("FXT_MAX_DEPTH", "1").max_depth == 1, "depth 1");
	ok(good("FXT_MAX_DEPTH", "2147483648").max_depth == 2147483648u, "depth 2^31");
	ok(good("FXT_MIN_DURATION", "10us").min_duration_ns == 10000, "10us is 10000 ns");
	ok(good("FXT_MIN_DURATION", "7").min_duration_ns == 7, "a bare number is ns");
	ok(good("FXT_MIN_DURATION", "18446744073s").min_duration_ns == 18446744073000000000ULL,
	   "the largest whole seconds");
	ok(good("FXT_SAMPLE", "").sample_hz == FXT_SAMPLE_DEFAULT_HZ, "empty FXT_SAMPLE: 997 Hz");
	ok(good("FXT_SAMPLE", "1").sample_hz == 1, "FXT_SAMPLE=1 is 1 Hz (was 997)");
	ok(good("FXT_SAMPLE", "100000").sample_hz == 100000, "100000 Hz is the largest");
	ok(good("FXT_LOG", "none").log_streams == 0, "FXT_LOG=none: no stream");
	ok(good("FXT_LOG", "stdout,stderr").log_streams == (FXT_LOG_STDOUT | FXT_LOG_STDERR),
	   "FXT_LOG=stdout,stderr");
	ok(good("FXT_LOG", "syslog").log_streams == FXT_LOG_SYSLOG, "FXT_LOG=syslog");
	ok(good("FXT_LOG_EVENTS", "0").log_events == 0, "FXT_LOG_EVENTS=0");
	ok(good("FXT_LOCK_LABELS", "1").lock_labels == 1, "FXT_LOCK_LABELS=1");
	ok(good("FXT_REGISTER", "1").register_wait == 1 && good("FXT_REGISTER", "0").register_wait == 0,
	   "FXT_REGISTER=1, 0");
	ok(!strcmp(good("FXT_FILTER", "main,work*,ns::*").filter, "main,work*,ns::*"),
	   "FXT_FILTER keeps its globs");
	ok(!strcmp(good("FXT_EXCLUDE", "*").exclude, "*"), "FXT_EXCLUDE=*");
	long4096[4095] = 0;
	ok(good("FXT_CATEGORIES", long4096).categories == long4096, "4095 bytes of categories");
	ok(!strcmp(good("FXT_OUTPUT", "t.fxt").output, "t.fxt"), "FXT_OUTPUT");
	return done();
}
