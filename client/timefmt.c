/* Time values for the client commands: parsing "10ms"-style options and printing durations in
 * the unit that reads best. Pure functions, thread-safe. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

int fxt_time_parse(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 },
	};
	char *end;
	double v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			double r = v * units[i].mult;
			if (r >= 1.8e19)
				return -EINVAL;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

char *fxt_time_fmt(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}
