/* Per-provider string and thread tables of the reader, provider names, UTF-8 validation and
 * tick-to-nanosecond conversion. Tables are calloc'ed per provider (untouched pages stay
 * unbacked); lookups are array indexing. One reader per thread. */
/* SPDX-License-Identifier: MIT */
#include "reader/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fxt_provider_switch(struct fxt_reader *r, uint32_t id, int reset)
{
	if (r->cur && r->cur->id == id && !reset)
		return 0;
	for (size_t i = 0; i < r->nproviders; i++) {
		struct fxt_provider *p = r->providers[i];
		if (p->id != id)
			continue;
		if (reset) {
			memset(p->strings, 0, sizeof(p->strings));
			memset(p->thread_set, 0, sizeof(p->thread_set));
			p->ticks_per_second = 0;
		}
		r->cur = p;
		return 0;
	}
	struct fxt_provider *p = calloc(1, sizeof(*p));
	struct fxt_provider **grown = realloc(r->providers, (r->nproviders + 1) * sizeof(*grown));
	if (!p || !grown) {
		free(p);
		if (grown)
			r->providers = grown;
		return -ENOMEM;
	}
	p->id = id;
	p->name.s = "";
	r->providers = grown;
	r->providers[r->nproviders++] = p;
	r->cur = p;
	return 0;
}

void fxt_providers_free(struct fxt_reader *r)
{
	for (size_t i = 0; i < r->nproviders; i++)
		free(r->providers[i]);
	free(r->providers);
}

struct fxt_sv fxt_reader_provider_name(const struct fxt_reader *r, uint32_t provider_id)
{
	for (size_t i = 0; i < r->nproviders; i++)
		if (r->providers[i]->id == provider_id)
			return r->providers[i]->name;
	return (struct fxt_sv){ "", 0 };
}

uint64_t fxt_reader_ticks_to_ns(const struct fxt_reader *r, uint64_t ticks)
{
	uint64_t tps = r->cur->ticks_per_second;
	if (tps == 0 || tps == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / tps);
}

int fxt_utf8_valid(const char *str, uint32_t len)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + len;
	while (s < end) {
		/* ASCII runs eight bytes at a time. */
		while (end - s >= 8) {
			uint64_t w;
			memcpy(&w, s, 8);
			if (w & 0x8080808080808080ULL)
				break;
			s += 8;
		}
		if (s >= end)
			break;
		unsigned c = *s;
		if (c < 0x80) {
			s++;
			continue;
		}
		unsigned n, min;
		uint32_t cp;
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1, min = 0x80, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2, min = 0x800, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3, min = 0x10000, cp = c & 0x07;
		} else {
			return 0;
		}
		if ((size_t)(end - s) <= n)
			return 0;
		for (unsigned i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		s += n + 1;
	}
	return 1;
}
