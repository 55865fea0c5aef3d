/* Per-provider string and thread tables of the reader, provider lookup by id (open addressing),
 * provider names, UTF-8 validation and tick-to-nanosecond conversion (by the initialization
 * record, and to CLOCK_MONOTONIC by the clock record). Tables are allocated at
 * their first registration (a 256-slot page of strings, the 255-slot thread table), so an
 * archive naming many providers costs a few words per provider. One reader per thread. */
/* SPDX-License-Identifier: MIT */
#include "reader/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

static void provider_clear(struct fxt_provider *p)
{
	if (p->strpages)
		for (unsigned i = 0; i < FXT_STRPAGES; i++)
			free(p->strpages[i]);
	free(p->strpages);
	free(p->threads);
	p->strpages = NULL;
	p->threads = NULL;
	p->ticks_per_second = 0;
	p->has_clock = 0;
}

static size_t slot_of(uint32_t id, size_t cap)
{
	return (size_t)(((uint64_t)id * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static struct fxt_provider **provider_slot(struct fxt_reader *r, uint32_t id)
{
	size_t i = slot_of(id, r->capproviders);
	while (r->providers[i] && r->providers[i]->id != id)
		i = (i + 1) & (r->capproviders - 1);
	return &r->providers[i];
}

/* Keeps the table at most half full. */
static int providers_grow(struct fxt_reader *r)
{
	if ((r->nproviders + 1) * 2 <= r->capproviders)
		return 0;
	size_t oldcap = r->capproviders, cap = fxt_grow_cap(oldcap, (r->nproviders + 1) * 2);
	struct fxt_provider **old = r->providers, **n = cap ? calloc(cap, sizeof(*n)) : NULL;
	if (!n)
		return -ENOMEM;
	r->providers = n;
	r->capproviders = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			*provider_slot(r, old[i]->id) = old[i];
	free(old);
	return 0;
}

int fxt_provider_switch(struct fxt_reader *r, uint32_t id, int reset)
{
	if (r->cur && r->cur->id == id && !reset)
		return 0;
	if (providers_grow(r) < 0)
		return -ENOMEM;
	struct fxt_provider **slot = provider_slot(r, id);
	if (!*slot) {
		struct fxt_provider *p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->id = id;
		p->name.s = "";
		*slot = p;
		r->nproviders++;
	} else if (reset) {
		provider_clear(*slot);
	}
	r->cur = *slot;
	return 0;
}

void fxt_providers_free(struct fxt_reader *r)
{
	for (size_t i = 0; i < r->capproviders; i++)
		if (r->providers[i]) {
			provider_clear(r->providers[i]);
			free(r->providers[i]);
		}
	free(r->providers);
}

int fxt_string_set(struct fxt_reader *r, unsigned idx, struct fxt_sv s)
{
	struct fxt_provider *p = r->cur;
	if (!p->strpages && !(p->strpages = calloc(FXT_STRPAGES, sizeof(*p->strpages))))
		return -ENOMEM;
	struct fxt_sv **page = &p->strpages[idx >> FXT_STRPAGE_BITS];
	if (!*page && !(*page = calloc(FXT_STRPAGE_SIZE, sizeof(**page))))
		return -ENOMEM;
	(*page)[idx & (FXT_STRPAGE_SIZE - 1)] = s;
	return 0;
}

int fxt_thread_set(struct fxt_reader *r, unsigned idx, struct fxt_koids k)
{
	struct fxt_provider *p = r->cur;
	if (!p->threads && !(p->threads = calloc(1, sizeof(*p->threads))))
		return -ENOMEM;
	p->threads->koids[idx] = k;
	p->threads->set[idx] = 1;
	return 0;
}

struct fxt_sv fxt_reader_provider_name(const struct fxt_reader *r, uint32_t provider_id)
{
	if (r->capproviders) {
		size_t i = slot_of(provider_id, r->capproviders);
		for (; r->providers[i]; i = (i + 1) & (r->capproviders - 1))
			if (r->providers[i]->id == provider_id)
				return r->providers[i]->name;
	}
	return (struct fxt_sv){ "", 0 };
}

uint64_t fxt_reader_ticks_to_ns(const struct fxt_reader *r, uint64_t ticks)
{
	uint64_t tps = r->cur->ticks_per_second;
	if (tps == 0 || tps == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / tps);
}

/* The point at ticks on the line through (t0, n0) of slope num / den ns per tick (den > 0),
 * clamped to [0, 2^64 - 1]: |ticks - t0| < 2^64 and num < 2^64, so the product fits 128 bits. */
static uint64_t on_line(uint64_t t0, uint64_t n0, uint64_t ticks, uint64_t num, uint64_t den)
{
	int after = ticks >= t0;
	unsigned __int128 q = (unsigned __int128)(after ? ticks - t0 : t0 - ticks) * num / den;
	if (after)
		return q > UINT64_MAX - n0 ? UINT64_MAX : n0 + (uint64_t)q;
	return q > n0 ? 0 : n0 - (uint64_t)q;
}

int fxt_reader_mono_ns(const struct fxt_reader *r, uint64_t ticks, uint64_t *ns)
{
	const struct fxt_provider *p = r->cur;
	if (!p || !p->has_clock) {
		*ns = fxt_reader_ticks_to_ns(r, ticks);
		return 0;
	}
	const struct fxt_clock *c = &p->clock;
	if (c->end_ticks > c->start_ticks && c->end_ns > c->start_ns)
		*ns = on_line(c->start_ticks, c->start_ns, ticks, c->end_ns - c->start_ns,
			      c->end_ticks - c->start_ticks);
	else
		*ns = on_line(c->start_ticks, c->start_ns, ticks, 1000000000ULL,
			      p->ticks_per_second ? p->ticks_per_second : 1000000000ULL);
	return 1;
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
