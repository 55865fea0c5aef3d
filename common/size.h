/* The one grammar of a byte size, shared by fxtrun's options and the preload's FXT_* variables (so
 * fxtrun refuses exactly what the preload would): digits (nothing before them), then an optional K,
 * M or G (powers of 1024, either case), then an optional B. Header-only, no state. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_SIZE_H
#define FXT_COMMON_SIZE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Parses s into *out bytes. Fails (-1, *out untouched) on anything else or on overflow. */
static inline int fxt_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno)	/* no sign, no leading space */
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

#endif
