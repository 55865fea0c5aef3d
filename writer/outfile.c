/* The standalone archive file (writer/outfile.h): its prologue, the growing chunk policy (chunks
 * in file order, each backed before it is handed out), finishing chunks into plain FXT in place,
 * and finishing or recovering a whole file. Memory work only: async-signal-safe, no malloc. */
/* SPDX-License-Identifier: MIT */
#include "writer/outfile.h"

#include <errno.h>
#include <string.h>

#include "writer/fields.h"
#include "writer/records.h"
#include "writer/sweep.h"

#define BLOB_NAME "fxt-buffer"

static uint64_t section_word(uint32_t provider_id)
{
	uint64_t w;
	fxt_provider_section_write(&w, provider_id);
	return w;
}

static uint64_t *chunk_at(const struct fxt_buf *b, uint64_t i)
{
	return (uint64_t *)(b->base + b->hdr->chunks_off + i * b->hdr->chunk_size);
}

static uint64_t *slots(const struct fxt_buf *b)
{
	return (uint64_t *)(b->base + FXT_OUTFILE_SLOTS_OFF);
}

/* Enters chunk seq (0-based) in the open-chunk table; returns its slot, or FXT_OUTFILE_NO_SLOT
 * (the table is full: the finish will scan every chunk). */
static uint64_t open_slot(struct fxt_buf *b, uint64_t seq)
{
	uint64_t *t = slots(b);
	for (uint64_t k = 0; k < FXT_OUTFILE_SLOTS; k++) {
		uint64_t i = (seq + k) % FXT_OUTFILE_SLOTS, free_ = 0;
		if (__atomic_compare_exchange_n(&t[i], &free_, seq + 1, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return i;
	}
	atomic_store_explicit(&b->hdr->open_overflow, 1, memory_order_release);
	return FXT_OUTFILE_NO_SLOT;
}

uint64_t fxt_outfile_pad_word(size_t n, uint32_t provider_id)
{
	return n == 1 ? section_word(provider_id)
		      : fxt_padding_hdr((uint32_t)(n > 4095 ? 4095 : n));
}

void fxt_outfile_pad(uint64_t *p, size_t n, uint32_t provider_id, int robust)
{
	while (n) {
		uint64_t w = fxt_outfile_pad_word(robust ? 1 : n, provider_id);
		size_t k = (size_t)fxt_record_words(w);
		/* The header is stored last (release): a reader never sees a padding header
		 * whose words are not yet its own. */
		__atomic_store_n(p, w, __ATOMIC_RELEASE);
		p += k;
		n -= k;
	}
}

/* Pads chunk c from word `at` on and makes word 0 a provider section record (last), freeing
 * its entry in the open-chunk table. */
static void close_chunk(const struct fxt_buf *b, uint64_t *c, size_t at, int robust)
{
	const struct fxt_outfile *o = b->ctx;
	fxt_outfile_pad(c + at, b->hdr->chunk_size / 8 - at, o->provider_id, robust);
	uint64_t w0 = __atomic_load_n(&c[0], __ATOMIC_ACQUIRE);
	__atomic_store_n(&c[0], section_word(o->provider_id), __ATOMIC_RELEASE);
	/* The chunk is plain FXT now: its entry in the open-chunk table is free again. */
	uint64_t slot = (w0 >> FXT_OUTFILE_SLOT_SHIFT) & 0xfff;
	if ((w0 & FXT_OUTFILE_OPEN) && slot < FXT_OUTFILE_SLOTS) {
		uint64_t seq = w0 & ((1ULL << FXT_OUTFILE_SLOT_SHIFT) - 1);
		__atomic_compare_exchange_n(&slots(b)[slot], &seq, 0, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
}

void fxt_outfile_finish_chunk(const struct fxt_buf *b, uint64_t *c, uint64_t cutoff, int robust)
{
	const struct fxt_outfile *o = b->ctx;
	struct fxt_sweep s = fxt_sweep_over(c, 1, b->hdr->chunk_size / 8);
	for (size_t n; (n = fxt_sweep_peek(&s)); s.at += n)
		if (cutoff && fxt_sweep_stamp(&s, n) > cutoff)
			fxt_outfile_pad(c + s.at, n, o->provider_id, 1);
	close_chunk(b, c, s.at, robust);
}

/* ---- the growing policy ---- */

uint64_t *fxt_outfile_take(struct fxt_buf *b)
{
	struct fxt_outfile *o = b->ctx;
	struct fxt_buf_hdr *h = b->hdr;
	__atomic_fetch_add(&o->taking, 1, __ATOMIC_SEQ_CST);
	uint64_t *c = NULL;
	if (__atomic_load_n(&o->stopped, __ATOMIC_SEQ_CST))
		goto out;
	uint64_t seq = atomic_fetch_add_explicit(&h->next_chunk, 1, memory_order_relaxed);
	if (seq >= h->nchunks) {
		fxt_buf_drop_reason(b, FXT_DROP_FULL);
		goto out;
	}
	int err = o->back(b, h->chunks_off + (seq + 1) * h->chunk_size);
	if (err < 0) {
		fxt_buf_refused(b, err);
		goto out;
	}
	c = chunk_at(b, seq);
	uint64_t slot = open_slot(b, seq);
	__atomic_store_n(&c[0], FXT_OUTFILE_OPEN | slot << FXT_OUTFILE_SLOT_SHIFT | (seq + 1),
			 __ATOMIC_RELEASE);
out:
	__atomic_fetch_sub(&o->taking, 1, __ATOMIC_RELEASE);
	return c;
}

void fxt_outfile_stop(struct fxt_buf *b)
{
	struct fxt_outfile *o = b->ctx;
	__atomic_store_n(&o->stopped, 1, __ATOMIC_SEQ_CST);
	/* A take that saw `stopped` clear stamps its chunk within a grow step; bounded anyway. */
	for (unsigned long spin = 0; __atomic_load_n(&o->taking, __ATOMIC_ACQUIRE) &&
				     spin < (1ul << 21); spin++)
		__builtin_ia32_pause();
}

void fxt_outfile_release(struct fxt_buf *b, uint64_t *c, const uint64_t *end)
{
	/* Its writer says where its records end: no walk over them. */
	if (end > c && end <= c + b->hdr->chunk_size / 8)
		close_chunk(b, c, (size_t)(end - c), 0);
	else
		fxt_outfile_finish_chunk(b, c, 0, 0);
}

static const struct fxt_buf_policy grow_policy = { fxt_outfile_take, fxt_outfile_release };

/* ---- the prologue ---- */

int fxt_outfile_init(struct fxt_buf *b, struct fxt_outfile *o, void *mem, size_t size,
		     uint64_t durable_size, uint32_t chunk_size, uint64_t pid, const char *name,
		     uint64_t ticks_per_second, struct fxt_clock_pair clock_start)
{
	uint64_t *w = mem;
	size_t at = 0;
	uint32_t len = (uint32_t)strnlen(name ? name : "", FXT_OUTFILE_MAX_NAME);
	if (durable_size > FXT_OUTFILE_MAX_DURABLE)
		return -EINVAL;
	o->provider_id = (uint32_t)pid;
	o->stopped = 0;
	o->taking = 0;
	at += (size_t)fxt_magic_write(w + at);
	at += (size_t)fxt_provider_info_write(w + at, o->provider_id, name ? name : "", len);
	at += (size_t)fxt_provider_section_write(w + at, o->provider_id);
	o->init_off = (uint32_t)(at + 1) * 8;
	at += (size_t)fxt_init_write(w + at, ticks_per_second ? ticks_per_second : 1000000000ULL);
	at += (size_t)fxt_clock_write(w + at, clock_start, (struct fxt_clock_pair){ 0, 0 });
	/* The blob fills the rest of the page; its payload holds the buffer header. */
	size_t blob = FXT_BUF_HDR_SIZE / 8 - at;
	struct fxt_str nm = fxt_str_inl(BLOB_NAME, sizeof(BLOB_NAME) - 1);
	size_t payload_at = at + 1 + fxt_str_words(&nm);
	_Static_assert(FXT_OUTFILE_HDR_OFF + sizeof(struct fxt_buf_hdr) <= FXT_OUTFILE_SLOTS_OFF,
		       "the buffer header fits before the open-chunk table");
	if (payload_at * 8 > FXT_OUTFILE_HDR_OFF)
		return -EINVAL;
	int rc = fxt_buf_init_at(b, mem, size, FXT_OUTFILE_HDR_OFF, durable_size, chunk_size,
				 FXT_BUF_GROWING, pid);
	if (rc < 0)
		return rc;
	memcpy(w + at + 1, BLOB_NAME, sizeof(BLOB_NAME) - 1);
	__atomic_store_n(&w[at], fxt_record_hdr(FXT_RT_BLOB, (uint32_t)blob) |
					 fxt_field_prep(FXT_BLOB_NAME_REF, fxt_str_ref(&nm)) |
					 fxt_field_prep(FXT_BLOB_SIZE, (blob - 1 - fxt_str_words(&nm)) * 8) |
					 fxt_field_prep(FXT_BLOB_TYPE, FXT_BT_DATA),
			 __ATOMIC_RELEASE);
	b->hdr->ticks_per_second = ticks_per_second;
	b->hdr->clock_start = clock_start;
	b->policy = &grow_policy;
	b->ctx = o;
	return 0;
}

/* Stores pair p at dst (two words) so that a process killed between the stores leaves a pair
 * readers refuse (ticks 0) rather than half of each. */
static void store_pair(struct fxt_clock_pair *dst, struct fxt_clock_pair p)
{
	__atomic_store_n(&dst->ticks, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&dst->ns, p.ns, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&dst->ticks, p.ticks, __ATOMIC_RELAXED);
}

void fxt_outfile_set_tps(struct fxt_buf *b, uint64_t ticks_per_second,
			 const struct fxt_clock_pair *end)
{
	const struct fxt_outfile *o = b->ctx;
	__atomic_store_n((uint64_t *)(b->base + o->init_off), ticks_per_second, __ATOMIC_RELAXED);
	__atomic_store_n(&b->hdr->ticks_per_second, ticks_per_second, __ATOMIC_RELAXED);
	if (!end)
		return;
	/* The clock record follows the initialization record (2 words) */
	store_pair((struct fxt_clock_pair *)(b->base + o->init_off + (1 + FXT_CLOCK_END_WORD) * 8),
		   *end);
	store_pair(&b->hdr->clock_end, *end);
}

/* ---- finishing ---- */

/* The durable area up to the first hole, then (a killed writer may have left a reservation
 * unwritten between committed records) hole words padded one by one and only durable record
 * types kept after a hole, except from word `ours` on (the trailer the finisher wrote: its
 * records are whole); the rest padding. robust: the first words of the tail are one-word
 * padding, for a record committed late. */
static void finish_durable(struct fxt_buf *b, int robust, size_t ours)
{
	const struct fxt_buf_hdr *h = b->hdr;
	const struct fxt_outfile *o = b->ctx;
	uint64_t *d = (uint64_t *)(b->base + h->durable_off);
	size_t words = h->durable_size / 8;
	uint64_t used = atomic_load_explicit(&h->durable_used, memory_order_acquire);
	size_t used_words = used / 8 < words ? used / 8 : words;
	struct fxt_sweep s = fxt_sweep_over(d, 0, words);
	int hole = 0;
	while (s.at < used_words) {
		size_t n = fxt_sweep_peek_durable(&s, hole && s.at < ours);
		if (n) {
			s.at += n;
			continue;
		}
		hole = 1;
		fxt_outfile_pad(d + s.at, 1, o->provider_id, 1);
		s.at++;
	}
	size_t tail = words - s.at, careful = robust ? (tail < 4096 ? tail : 4096) : 0;
	fxt_outfile_pad(d + s.at, careful, o->provider_id, 1);
	fxt_outfile_pad(d + s.at + careful, tail - careful, o->provider_id, 0);
}

/* fxt_outfile_finish(), the durable area trusted from word ours on. */
static uint64_t finish(struct fxt_buf *b, uint64_t chunks, uint64_t cutoff, int robust,
		       size_t ours)
{
	const struct fxt_buf_hdr *h = b->hdr;
	const struct fxt_outfile *o = b->ctx;
	uint64_t done = section_word(o->provider_id);
	finish_durable(b, robust, ours);
	if (chunks > h->nchunks)
		chunks = h->nchunks;
	if (atomic_load_explicit(&h->open_overflow, memory_order_acquire)) {
		for (uint64_t i = 0; i < chunks; i++) {	/* more open chunks than slots */
			uint64_t *c = chunk_at(b, i);
			if (__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) != done)
				fxt_outfile_finish_chunk(b, c, cutoff, robust);
		}
	} else {
		/* Only the chunks writers hold (the table), and the last ones taken: a take cut
		 * short by a kill may have entered no slot yet (its chunk is then all zeros). */
		uint64_t *t = slots(b);
		for (uint64_t k = 0; k < FXT_OUTFILE_SLOTS; k++) {
			uint64_t v = __atomic_load_n(&t[k], __ATOMIC_ACQUIRE);
			if (!v || v > chunks)
				continue;
			uint64_t *c = chunk_at(b, v - 1);
			if (__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) != done)
				fxt_outfile_finish_chunk(b, c, cutoff, robust);
			__atomic_store_n(&t[k], 0, __ATOMIC_RELAXED);
		}
		for (uint64_t i = chunks > 8 ? chunks - 8 : 0; i < chunks; i++) {
			uint64_t *c = chunk_at(b, i);
			if (__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) != done)
				fxt_outfile_finish_chunk(b, c, cutoff, robust);
		}
	}
	return h->chunks_off + chunks * h->chunk_size;
}

uint64_t fxt_outfile_finish(struct fxt_buf *b, uint64_t chunks, uint64_t cutoff, int robust)
{
	return finish(b, chunks, cutoff, robust, SIZE_MAX);
}

uint64_t fxt_outfile_seal(struct fxt_buf *b, uint64_t chunks, uint64_t cutoff, uint64_t ts,
			  int robust)
{
	const struct fxt_outfile *o = b->ctx;
	uint64_t trailer[FXT_OUTFILE_TRAILER_WORDS];
	uint32_t n = fxt_outfile_trailer(b, o->provider_id, ts, trailer);
	uint64_t *at = n ? fxt_buf_durable_reserve(b, n) : NULL;
	if (!at)
		return finish(b, chunks, cutoff, robust, SIZE_MAX);
	memcpy(at + 1, trailer + 1, (n - 1) * 8);
	__atomic_store_n(at, trailer[0], __ATOMIC_RELEASE);
	return finish(b, chunks, cutoff, robust, (size_t)(at - fxt_buf_durable(b)));
}

/* An instant of category fxtauto on the process's main thread at ts, named name, with args. */
static int fxtauto_instant(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
			   struct fxt_str name, const struct fxt_warg *args, unsigned nargs)
{
	struct fxt_event e = fxt_ev_instant(fxt_thread_inl(pid, pid), fxt_str_inl("fxtauto", 7),
					    name, ts);
	e.args = args;
	e.nargs = nargs;
	if (fxt_event_words(&e) > dst_words)
		return -EINVAL;
	return fxt_event_write(dst, &e);
}

int fxt_dropped_event_write(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
			    uint64_t records, uint32_t reasons)
{
	char why[160];
	fxt_drop_reasons_str(reasons, why, sizeof(why));
	struct fxt_warg args[2] = {
		fxt_arg_uint64(fxt_str_inl("records", 7), records),
		fxt_arg_string(fxt_str_inl("reason", 6), fxt_str_inl(why, (uint32_t)strlen(why))),
	};
	return fxtauto_instant(dst, dst_words, pid, ts, fxt_str_inl("records dropped", 15), args, 2);
}

int fxt_overwritten_event_write(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
				uint64_t records, uint64_t kept_from, uint64_t chunks)
{
	struct fxt_warg args[3] = {
		fxt_arg_uint64(fxt_str_inl("records", 7), records),
		fxt_arg_uint64(fxt_str_inl("kept_from", 9), kept_from),
		fxt_arg_uint64(fxt_str_inl("chunks", 6), chunks),
	};
	return fxtauto_instant(dst, dst_words, pid, ts, fxt_str_inl("records overwritten", 19),
			       args, 3);
}

uint32_t fxt_outfile_trailer(const struct fxt_buf *b, uint32_t provider_id, uint64_t ts,
			     uint64_t *dst)
{
	const struct fxt_buf_hdr *h = b->hdr;
	uint64_t dropped = atomic_load_explicit(&h->dropped, memory_order_relaxed);
	uint32_t reasons = atomic_load_explicit(&h->drop_reasons, memory_order_relaxed);
	if (!dropped && !(reasons & FXT_DROP_KILLED))
		return 0;
	int n = fxt_provider_event_write(dst, provider_id, FXT_PE_BUFFER_OVERFLOW);
	int m = fxt_dropped_event_write(dst + n, FXT_OUTFILE_TRAILER_WORDS - (size_t)n, h->pid, ts,
					dropped, reasons);
	return (uint32_t)(n + (m > 0 ? m : 0));
}

/* Appends s to buf (n bytes used of size), cut to fit. */
static size_t append(char *buf, size_t n, size_t size, const char *s)
{
	size_t k = strlen(s);
	if (k > size - 1 - n)
		k = size - 1 - n;
	memcpy(buf + n, s, k);
	buf[n + k] = 0;
	return n + k;
}

void fxt_drop_reasons_str(uint32_t reasons, char *buf, size_t size)
{
	static const char *const names[] = {
		"buffer full", "saving did not keep up (--overflow drop)",
		"the trace manager did not answer", "no space left to grow the buffer",
		"string table full", "record larger than a chunk",
		"the process was killed (open calls and flows cut)",
		"context switches lost: the kernel's ring overflowed", "file size limit",
		("cut by a snapshot of the running process (calls open at the cut are not in it, "
		 "but a snapshot trigger's own chain: ended there)"),
		"the trace manager was killed (what it had not saved yet is lost)",
	};
	size_t n = 0;
	if (!size)
		return;
	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (reasons & (1u << i))
			n = append(buf, append(buf, n, size, n ? ", " : ""), size, names[i]);
	if (!n)
		append(buf, 0, size, "unknown");
}

/* ---- attaching to a file ---- */

/* The prologue of page (magic, provider info, section, initialization, clock, then the blob
 * holding the header) and the header's own fields; *id and *init_off receive the provider id and the
 * offset of the ticks-per-second word. 0, -EINVAL or -EPROTONOSUPPORT. */
static int check_page(const void *page, uint32_t *id, uint32_t *init_off)
{
	const uint64_t *w = page;
	if ((uintptr_t)page & 7)
		return -EINVAL;
	uint64_t magic;
	fxt_magic_write(&magic);
	if (w[0] != magic)
		return -EINVAL;
	/* The layout version first: an older file's prologue differs (no clock record). */
	const struct fxt_buf_hdr *h = (const struct fxt_buf_hdr *)((const uint8_t *)page +
								   FXT_OUTFILE_HDR_OFF);
	if (h->magic != FXT_BUF_MAGIC)
		return -EINVAL;
	if (h->version != FXT_BUF_VERSION)
		return -EPROTONOSUPPORT;
	struct fxt_sweep s = fxt_sweep_over(w, 1, FXT_BUF_HDR_SIZE / 8);
	for (int i = 0; i < 5 && s.at < FXT_BUF_HDR_SIZE / 8; i++) {
		size_t n = fxt_sweep_peek(&s);
		unsigned type = (unsigned)fxt_field_get(FXT_RECORD_TYPE, s.header);
		if (!n)
			return -EINVAL;
		if (i == 0 && (type != FXT_RT_METADATA ||
			       fxt_field_get(FXT_META_TYPE, s.header) != FXT_MT_PROVIDER_INFO))
			return -EINVAL;
		if (i == 0)
			*id = (uint32_t)fxt_field_get(FXT_META_PROVIDER_ID, s.header);
		if (i == 2 && type != FXT_RT_INITIALIZATION)
			return -EINVAL;
		if (i == 2)
			*init_off = (uint32_t)(s.at + 1) * 8;
		if (i == 3 && (type != FXT_RT_BLOB || n != FXT_CLOCK_WORDS))
			return -EINVAL;
		if (i == 4 && (type != FXT_RT_BLOB || (s.at + n) * 8 != FXT_BUF_HDR_SIZE))
			return -EINVAL;
		s.at += n;
	}
	if (h->mode != FXT_BUF_GROWING || h->hdr_off != FXT_OUTFILE_HDR_OFF ||
	    h->durable_off != FXT_BUF_HDR_SIZE || (h->durable_size & 7) ||
	    h->durable_size > FXT_OUTFILE_MAX_DURABLE ||
	    h->chunks_off != h->durable_off + h->durable_size ||
	    h->chunk_size < FXT_BUF_MIN_CHUNK || (h->chunk_size & 7) || h->chunk_size > (1u << 20))
		return -EINVAL;
	return 0;
}

const struct fxt_buf_hdr *fxt_outfile_header(const void *page)
{
	uint32_t id, init_off;
	int rc = check_page(page, &id, &init_off);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return (const struct fxt_buf_hdr *)((const uint8_t *)page + FXT_OUTFILE_HDR_OFF);
}

int fxt_outfile_attach(struct fxt_buf *b, struct fxt_outfile *o, void *mem, size_t size)
{
	uint32_t id = 0, init_off = 0;
	if (size < FXT_BUF_HDR_SIZE || ((uintptr_t)mem & 63))
		return -EINVAL;
	int rc = check_page(mem, &id, &init_off);
	if (rc < 0)
		return rc;
	const struct fxt_buf_hdr *h = (const struct fxt_buf_hdr *)((const uint8_t *)mem +
								   FXT_OUTFILE_HDR_OFF);
	if (h->durable_size > size - FXT_BUF_HDR_SIZE)
		return -EINVAL;
	o->init_off = init_off;
	memset(b, 0, sizeof(*b));
	b->hdr = (struct fxt_buf_hdr *)h;
	b->base = mem;
	b->policy = &grow_policy;
	b->ctx = o;
	o->provider_id = id;
	o->stopped = 1;
	o->back = NULL;
	return 0;
}
