/* Tiny TAP helpers for the unit tests: plan-free ok(cond, "claim") lines, a summary,
 * and an exit status that is non-zero when any claim failed. Header-only, one test per binary. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_TESTS_CHECK_H
#define FXT_TESTS_CHECK_H
#include <stdio.h>
#include <stdarg.h>

static int check_run, check_failed;

__attribute__((format(printf, 2, 3), unused)) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	check_run++;
	if (!cond)
		check_failed++;
	printf("%sok %d - ", cond ? "" : "not ", check_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

/* Prints the TAP plan and returns the process exit status: 0 only if every claim held. */
__attribute__((unused)) static int done(void)
{
	printf("1..%d\n", check_run);
	if (check_failed)
		printf("# %d of %d claims failed\n", check_failed, check_run);
	return check_failed ? 1 : (check_run ? 0 : 1);
}
#endif
