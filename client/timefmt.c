/* Time values for the client commands: parsing "10ms"-style durations and "12.5 s"-style stamps
 * exactly (decimal digits, no floating point: a stamp of a machine up for months keeps its
 * nanoseconds), printing durations in the unit that reads best and stamps in seconds with
 * nanoseconds (in integers where that prints the same: fxt replay prints millions). Pure
 * functions, thread-safe. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

int fxt_time_parse_in(const char *s, uint64_t bare_unit, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	uint64_t whole = 0, frac = 0, scale = 1, mult = bare_unit;
	const char *p = s;
	int digits = 0;

	if (!s)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale <= UINT64_MAX / 100) {	/* digits past 1e-18 count for nothing */
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	if (!digits)
		return -EINVAL;
	if (*p == ' ' && p[1])
		p++;	/* "1.200 s", as durations print */
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]) && strcmp(p, units[i].unit); i++)
			;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		mult = units[i].mult;
	}
	if (whole > UINT64_MAX / mult)
		return -EINVAL;
	/* the fraction in ns, rounded to the nearest: frac / scale * mult */
	unsigned __int128 f = ((unsigned __int128)frac * mult * 2 + scale) / (scale * 2);
	if (f > UINT64_MAX - whole * mult)
		return -EINVAL;
	*ns = whole * mult + (uint64_t)f;
	return 0;
}

int fxt_time_parse(const char *s, uint64_t *ns)
{
	return fxt_time_parse_in(s, 1, ns);
}

/* Writes v's decimal digits at the end of [buf, end), at least min of them. Returns where they
 * begin. */
static char *digits(char *end, uint64_t v, int min)
{
	for (int n = 0; n < min || v; n++) {
		*--end = (char)('0' + v % 10);
		v /= 10;
	}
	return end;
}

/* Writes [from, to) into buf (len > 0), cut to fit, NUL-terminated. Returns buf. */
static char *put(char *buf, size_t len, const char *from, const char *to)
{
	size_t n = (size_t)(to - from) < len ? (size_t)(to - from) : len - 1;

	memcpy(buf, from, n);
	buf[n] = 0;
	return buf;
}

char *fxt_time_fmt(char *buf, size_t len, uint64_t ns)
{
	char tmp[32], *end = tmp + sizeof(tmp), *p;

	if (ns < 1000000) {	/* in integers: what %.3f of ns / 1e3 prints, exact */
		memcpy(end - 3, ns < 1000 ? " ns" : " us", 3);
		if (ns < 1000)
			return put(buf, len, digits(end - 3, ns, 1), end);
		p = digits(end - 3, ns % 1000, 3);
		*--p = '.';
		return put(buf, len, digits(p, ns / 1000, 1), end);
	}
	if (ns < 1000000000)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

char *fxt_time_fmt_stamp(char *buf, size_t len, uint64_t ns)
{
	char tmp[32], *end = tmp + sizeof(tmp), *p = digits(end, ns % 1000000000, 9);

	*--p = '.';
	return put(buf, len, digits(p, ns / 1000000000, 1), end);
}
