/* Archive writing of the trace manager (saver.h). A save reads the chunks in sequence order,
 * each from where the last save of the same sequence number stopped up to its first zero or
 * torn header (a sweep: writer/sweep.h), copied straight into the archive's write buffer and
 * kept only if word 0 still holds that sequence afterwards (a circular buffer may reuse it
 * meanwhile). A continued chunk is re-opened with its thread record (thread indexes are per chunk). Records
 * are copied once, from the shared mapping into the write buffer (out.h), and vetted there
 * (vet.h) before they are committed: the provider's bytes are untrusted, the bytes checked are the
 * bytes written. The layout comes from the header copied at attach; counters read from the
 * mapping are bounded by it. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/manager/saver.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/protocol.h"
#include "writer/fields.h"
#include "writer/outfile.h"
#include "writer/records.h"
#include "writer/sweep.h"

/* More dropped records than any run drops: a scribbled counter. */
#define FXT_SAVER_DROPPED_MAX (1ULL << 48)

/* Durable records are copied in pieces of at most this many words (half the write buffer). */
#define PIECE_WORDS 32768u

/* ---- one provider ---- */

/* The name of the process kernel object record for pid in the durable records d (a private
 * copy: the preload writes it inline), or "" if there is none. */
static void process_name(const uint64_t *d, size_t words, int pid, char *name, size_t size)
{
	name[0] = 0;
	struct fxt_sweep s = fxt_sweep_over(d, 0, words);
	for (size_t n; (n = fxt_sweep_peek(&s)); s.at += n) {
		uint64_t h = s.header, ref = fxt_field_get(FXT_KOBJ_NAME_REF, h);
		if (fxt_field_get(FXT_RECORD_TYPE, h) != FXT_RT_KERNEL_OBJECT || n < 2 ||
		    fxt_field_get(FXT_KOBJ_TYPE, h) != FXT_OBJ_TYPE_PROCESS ||
		    d[s.at + 1] != (uint64_t)pid || !(ref & FXT_STRREF_INLINE))
			continue;
		size_t len = ref & FXT_STRREF_LEN_MASK;
		if (len > size - 1 || 2 + fxt_pad_words((uint32_t)len) > n)
			continue;
		memcpy(name, &d[s.at + 2], len);
		name[len] = 0;
	}
}

/* The process, named, with a `parent` koid argument.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#kernel-object-record */
static int emit_process(struct fxt_out *o, int pid, int ppid, const char *name)
{
	struct fxt_warg parent = fxt_arg_koid(fxt_str_inl("parent", 6), (uint64_t)ppid);
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_PROCESS, .koid = (uint64_t)pid,
			      .name = fxt_str_inl(name, (uint32_t)strlen(name)),
			      .args = &parent, .nargs = 1 };
	uint64_t rec[64];
	int n = fxt_kobj_words(&k) <= 64 ? fxt_kobj_write(rec, &k) : -EINVAL;
	return n < 0 ? n : fxt_out_emit(o, rec, (size_t)n * 8);
}

/* Remembers the thread koids named by thread kernel object records in a valid run. */
static void count_threads(struct fxt_saved *s, const uint64_t *p, size_t words)
{
	struct fxt_sweep w = fxt_sweep_over(p, 0, words);
	for (size_t n; (n = fxt_sweep_peek(&w)); w.at += n) {
		if (fxt_field_get(FXT_RECORD_TYPE, w.header) != FXT_RT_KERNEL_OBJECT ||
		    fxt_field_get(FXT_KOBJ_TYPE, w.header) != FXT_OBJ_TYPE_THREAD || n < 2)
			continue;
		uint64_t koid = p[w.at + 1];
		size_t i = 0;
		while (i < s->nkoids && s->koids[i] != koid)
			i++;
		if (i < s->nkoids)
			continue;	/* a renamed thread has several records */
		if (FXT_GROW(s->koids, &s->koids_cap, s->nkoids + 1) < 0)
			return;
		s->koids[s->nkoids++] = koid;
	}
	s->st.threads = s->nkoids;
}

/* The provider's clock as its records say it: the pairs of its clock record and the ticks per
 * second of its initialization record. Its own where it stored them: the start at its buffer's
 * creation, the end and the rate once it stopped (stored before its state, release); else the
 * manager's readings (a killed provider, one still running, a start not yet stored). */
struct provider_clock {
	struct fxt_clock_pair start, end;
	uint64_t tps;
};

static struct provider_clock clock_of(const struct fxt_saved *s, const struct fxt_saver_clock *c)
{
	const struct fxt_buf_hdr *h = s->live;
	struct provider_clock pc = { .start = c->start, .end = c->now, .tps = c->tps };
	struct fxt_clock_pair start = { __atomic_load_n(&h->clock_start.ticks, __ATOMIC_RELAXED),
					__atomic_load_n(&h->clock_start.ns, __ATOMIC_RELAXED) };
	if (start.ticks && start.ns)
		pc.start = start;
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != FXT_BUF_STOPPED)
		return pc;
	struct fxt_clock_pair end = { __atomic_load_n(&h->clock_end.ticks, __ATOMIC_RELAXED),
				      __atomic_load_n(&h->clock_end.ns, __ATOMIC_RELAXED) };
	uint64_t tps = __atomic_load_n(&h->ticks_per_second, __ATOMIC_RELAXED);
	if (end.ticks && end.ns)
		pc.end = end;
	if (tps)
		pc.tps = tps;
	return pc;
}

/* Durable bytes the provider reserved, bounded by the area. */
static uint64_t durable_used(const struct fxt_saved *s)
{
	uint64_t used = __atomic_load_n(&s->live->durable_used, __ATOMIC_ACQUIRE);
	return used < s->layout.durable_size ? used : s->layout.durable_size;
}

/* Finds the process name in a private copy of the first durable records. */
static void find_name(struct fxt_saved *s)
{
	size_t words = durable_used(s) / 8;
	if (words > PIECE_WORDS)
		words = PIECE_WORDS;
	uint64_t *d = malloc(words * 8 + 8);
	s->name[0] = 0;
	if (!d)
		return;
	memcpy(d, fxt_buf_durable(&s->buf), words * 8);
	process_name(d, words, s->pid, s->name, sizeof(s->name));
	free(d);
}

/* The first bytes of a provider: info (named after its process), section, initialization,
 * clock. */
static int prologue(struct fxt_out *o, struct fxt_saved *s, const struct fxt_saver_clock *clock)
{
	char name[256];
	find_name(s);
	if (s->name[0])
		snprintf(name, sizeof(name), "%s", s->name);
	else
		snprintf(name, sizeof(name), "pid %d", s->pid);
	struct provider_clock pc = clock_of(s, clock);
	uint64_t rec[1 + 32 + 1 + 2 + FXT_CLOCK_WORDS];
	int n = fxt_provider_info_write(rec, s->id, name, (uint32_t)strlen(name));
	n += fxt_provider_section_write(rec + n, s->id);
	s->init_at = o->bytes + (uint64_t)n * 8 + 8;
	n += fxt_init_write(rec + n, pc.tps);
	s->clock_at = o->bytes + (uint64_t)(n + FXT_CLOCK_WORDS - 4) * 8;	/* its last 4 words */
	n += fxt_clock_write(rec + n, pc.start, pc.end);
	return fxt_out_emit(o, rec, (size_t)n * 8);
}

/* Opens a run of this provider's records: the prologue once, else a section record. */
static int open_section(struct fxt_out *o, struct fxt_saved *s,
			const struct fxt_saver_clock *clock, int *opened)
{
	if (*opened)
		return 0;
	*opened = 1;
	if (!s->init_at)
		return prologue(o, s, clock);
	uint64_t rec;
	return fxt_out_emit(o, &rec, (size_t)fxt_provider_section_write(&rec, s->id) * 8);
}

/* The end (word offset) of what to save of [p + from, p + words): the committed records as the
 * live headers say, up to the first zero header (not committed yet); a torn header (size 0, or
 * running past the area: no writer commits one) is included as one word, for the vetting to
 * report. */
static size_t to_save(const uint64_t *p, size_t from, size_t words)
{
	struct fxt_sweep s = fxt_sweep_over(p, from, words);
	size_t end = fxt_sweep_run(&s);
	return s.stop == FXT_SWEEP_TORN ? end + 1 : end;
}

/* A chunk's records to save: chunk idx (sequence seq) words [from, end) after its word 0; with
 * `left`, words [from, the chunk's end) hold them up to its first zero header, found by the
 * vetting of the copy. */
struct run {
	uint64_t seq;
	uint32_t idx;
	uint32_t from, end;
	int left;
};

static int by_seq(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Chunks that may hold records (fxt_buf_slots_used() with the live counters, bounded by the
 * layout as attached). */
static uint32_t slots_used(const struct fxt_saved *s)
{
	const struct fxt_buf_hdr *h = &s->layout;
	uint64_t backed = __atomic_load_n(&s->live->backed, __ATOMIC_ACQUIRE);
	uint64_t n = backed ? (backed > h->chunks_off ? (backed - h->chunks_off) / h->chunk_size : 0)
			    : __atomic_load_n(&s->live->next_chunk, __ATOMIC_ACQUIRE);
	return n < h->nchunks ? (uint32_t)n : h->nchunks;
}

/* What every chunk gained since the last save, in sequence order: *runs (malloc'd), returns
 * their number or -ENOMEM. Only headers are read here (acquire): every record counted was
 * committed, and so was every string record it refers to (committed before it). A streaming
 * chunk its writer left holds only committed records (word 0 was published after them): its
 * records are not walked here, only by the vetting of the copy (a walk is a chain of dependent
 * loads: 5% of the manager's time on speedtest1); circular saves need each run's end
 * (find_kept). */
static long plan(struct fxt_saved *s, struct run **runs)
{
	const struct fxt_buf_hdr *h = &s->layout;
	uint32_t slots = slots_used(s);
	struct run *r = malloc((size_t)slots * sizeof(*r) + 1);
	if (!r)
		return -ENOMEM;
	size_t k = 0, words = h->chunk_size / 8 - 1;
	int streaming = h->mode == FXT_BUF_STREAMING;
	for (uint32_t i = 0; i < slots; i++) {
		const uint64_t *c = fxt_buf_chunk(&s->buf, i);
		uint64_t w0 = __atomic_load_n(c, __ATOMIC_ACQUIRE), seq = fxt_chunk_word_seq(w0);
		if (!seq)
			continue;
		const struct saved_chunk *sc = &s->chunks[i];
		size_t from = sc->seq == seq ? sc->bytes / 8 : 0, end;
		int left = streaming && (w0 & FXT_CHUNK_CLOSED);
		if (left)
			end = from < words && __atomic_load_n(&c[1 + from], __ATOMIC_RELAXED) ? words
											    : from;
		else
			end = to_save(c + 1, from, words);
		if (end > from)
			r[k++] = (struct run){ seq, i, (uint32_t)from, (uint32_t)end, left };
	}
	qsort(r, k, sizeof(*r), by_seq);
	*runs = r;
	return (long)k;
}

/* Circular: where the window kept begins, and how full the chunks kept are; for saying what was
 * kept. Chunks are overwritten in claim order, except one a writer still holds (a quiet thread's
 * chunk can be the oldest one kept): the window begins with the first record of the chunk
 * claimed after the newest one overwritten (the first sequence after the last gap). Reads live
 * words bounded by the runs (a reused chunk gives a wrong stamp, never a fault). */
static void find_kept(struct fxt_saved *s, const struct run *r, size_t k)
{
	size_t after_gap = 0;
	s->kept_chunks = k;
	s->kept_words = 0;
	s->kept_from = 0;
	for (size_t j = 0; j < k; j++) {
		s->kept_words += r[j].end - r[j].from;
		if (r[j].seq != (j ? r[j - 1].seq + 1 : 1))
			after_gap = j;
	}
	for (size_t j = after_gap; j < k && !s->kept_from; j++) {
		struct fxt_sweep w = fxt_sweep_over(fxt_buf_chunk(&s->buf, r[j].idx) + 1, r[j].from,
						    r[j].end);
		for (size_t n; !s->kept_from && (n = fxt_sweep_peek(&w)); w.at += n)
			s->kept_from = fxt_sweep_stamp(&w, n);
	}
}

/* Appends the planned runs: each copied straight into the write buffer, kept only if the chunk
 * still holds the same sequence afterwards (a circular buffer may reuse it meanwhile), then
 * vetted in the buffer (events stamped after cutoff left out: threads still running while the
 * provider's exit flush closed their frames would overlap the closed frames). A continued chunk
 * is re-opened with its thread record (thread indexes are per chunk). */
static int copy_runs(struct fxt_out *o, struct fxt_saved *s, const struct run *r, size_t k,
		     uint64_t cutoff)
{
	for (size_t j = 0; j < k && !fxt_vet_problem(s->vet); j++) {
		const uint64_t *c = fxt_buf_chunk(&s->buf, r[j].idx);
		uint64_t first = __atomic_load_n(&c[1], __ATOMIC_RELAXED);
		int reopen = r[j].from && fxt_field_get(FXT_RECORD_TYPE, first) == FXT_RT_THREAD &&
			     fxt_record_words(first) == 3;
		size_t len = (reopen ? 3 : 0) + r[j].end - r[j].from;
		uint64_t *dst = fxt_out_reserve(o, len * 8);
		if (!dst)
			return o->err ? o->err : -EIO;
		if (reopen)
			memcpy(dst, c + 1, 24);
		memcpy(dst + (reopen ? 3 : 0), c + 1 + r[j].from, (size_t)(r[j].end - r[j].from) * 8);
		atomic_thread_fence(memory_order_acquire);
		if ((__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) & FXT_CHUNK_SEQ_MASK) != r[j].seq)
			continue;	/* reused while read: its old records were saved before */
		uint64_t events;
		size_t walked;	/* a chunk left: its records end at the copy's first zero header */
		size_t kept = fxt_vet_records(s->vet, dst, len, o->bytes, cutoff, &events,
					      r[j].left ? &walked : NULL);
		size_t head = reopen ? 3 : 0, end = r[j].end;
		if (r[j].left)
			end = walked > head ? r[j].from + walked - head : r[j].from;
		fxt_out_commit(o, kept * 8);
		s->st.events += events;
		s->chunks[r[j].idx] = (struct saved_chunk){ r[j].seq, (uint64_t)end * 8 };
	}
	return 0;
}

/* Appends the durable records [from, end) (word offsets) in pieces of at most PIECE_WORDS,
 * vetted in the write buffer; a record cut by a piece's end starts the next piece. Returns the
 * word offset up to which they were consumed through *done. */
static int copy_durable(struct fxt_out *o, struct fxt_saved *s, size_t from, size_t end,
			size_t *done)
{
	const uint64_t *d = fxt_buf_durable(&s->buf);
	while (from < end && !fxt_vet_problem(s->vet)) {
		size_t len = end - from < PIECE_WORDS ? end - from : PIECE_WORDS;
		uint64_t *dst = fxt_out_reserve(o, len * 8);
		if (!dst)
			return o->err ? o->err : -EIO;
		memcpy(dst, d + from, len * 8);
		struct fxt_sweep w = fxt_sweep_piece(dst, 0, len, end - from);
		size_t whole = fxt_sweep_run(&w);
		if (w.stop == FXT_SWEEP_CUT && whole)
			len = whole;	/* the rest of the cut record comes with the next piece */
		uint64_t events;
		size_t kept = fxt_vet_records(s->vet, dst, len, o->bytes, 0, &events, NULL);
		count_threads(s, dst, kept);
		fxt_out_commit(o, kept * 8);
		from += len;
	}
	*done = from;
	return 0;
}

/* Whether the layout fields of the live header differ from the copy taken at attach (no writer
 * changes them: the provider scribbled over its header). */
static int layout_changed(const struct fxt_saved *s)
{
	struct fxt_buf_hdr now;
	memcpy(&now, s->live, offsetof(struct fxt_buf_hdr, ticks_per_second));
	return memcmp(&now, &s->layout, offsetof(struct fxt_buf_hdr, ticks_per_second)) != 0;
}

/* The provider's last save (final): a hole left in its durable area (a reservation a killed
 * thread never wrote: exit() ends threads mid-record) stays one for good, and the records after
 * it (the strings of events saved now, say) are found word by word as the standalone file's
 * finish finds them (fxt_sweep_peek_durable), the hole's words left out. Returns the word
 * offset up to which they were consumed. */
static int copy_durable_past_holes(struct fxt_out *o, struct fxt_saved *s, size_t at,
				   size_t *done)
{
	struct fxt_sweep w = fxt_sweep_over(fxt_buf_durable(&s->buf), at, durable_used(s) / 8);
	int rc = 0;
	while (!rc && w.at < w.window && !fxt_vet_problem(s->vet)) {
		size_t n = fxt_sweep_peek_durable(&w, 1);
		if (n)
			rc = copy_durable(o, s, w.at, w.at + n, &w.at);
		else
			w.at++;
	}
	*done = w.at;
	return rc;
}

static int save(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		const struct fxt_saver_clock *clock, int final)
{
	uint64_t start = o->bytes;
	int opened = 0, rc = 0;
	s->buf.hdr = &s->layout;	/* s may have moved since attach (an array that grows) */
	if (!s->vet && !(s->vet = fxt_vet_new(s->id)))
		return -ENOMEM;
	if (!fxt_vet_problem(s->vet) && layout_changed(s))
		fxt_vet_fail(s->vet, "buffer header overwritten");
	if (fxt_vet_problem(s->vet))
		return 0;	/* its data ended at its last good record */
	/* The chunks' new records first, then the durable records: those include every string
	 * the planned records refer to, and go into the archive before them. */
	struct run *runs;
	long k = plan(s, &runs);
	if (k < 0)
		return (int)k;
	size_t from = s->durable_saved / 8, end = to_save(fxt_buf_durable(&s->buf), from,
							  durable_used(s) / 8);
	int first = !s->init_at;
	if (end > from || first || k || (final && durable_used(s) / 8 > end)) {
		rc = open_section(o, s, clock, &opened);
		size_t done = from;
		if (!rc)
			rc = copy_durable(o, s, from, end, &done);
		if (!rc && final)
			rc = copy_durable_past_holes(o, s, done, &done);
		s->durable_saved = done * 8;
	}
	if (!rc && first) {
		if (s->ppid <= 0)	/* reaped before STARTED was read: its own word */
			s->ppid = (int)__atomic_load_n(&s->live->ppid, __ATOMIC_RELAXED);
		if (s->ppid > 0)
			rc = emit_process(o, s->pid, s->ppid, s->name[0] ? s->name : "process");
	}
	/* Read after the plan: 0 means every planned record was stamped before any stop. */
	uint64_t stop = __atomic_load_n(&s->live->stop_ticks, __ATOMIC_ACQUIRE);
	if (stop && (!cutoff || stop < cutoff))
		cutoff = stop;
	/* a snapshot trigger's cut of its thread's open calls belongs to that snapshot only */
	uint64_t cut = __atomic_load_n(&s->live->snapshot_cut, __ATOMIC_ACQUIRE);
	fxt_vet_skip_end(s->vet, cut && cut != cutoff ? cut : 0);
	if (!rc && s->layout.mode == FXT_BUF_CIRCULAR)
		find_kept(s, runs, (size_t)k);
	if (!rc)
		rc = copy_runs(o, s, runs, (size_t)k, cutoff);
	free(runs);
	s->st.bytes += o->bytes - start;
	return rc ? rc : o->err;
}

int fxt_saver_save(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		   const struct fxt_saver_clock *clock)
{
	return save(o, s, cutoff, clock, 0);
}

/* An instant: fxtauto's note that the provider's data ended early.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#instant-event */
static int corrupt_event_write(uint64_t *dst, size_t dst_words, uint64_t pid, uint64_t ts,
			       const char *why)
{
	struct fxt_warg arg = fxt_arg_string(fxt_str_inl("reason", 6),
					     fxt_str_inl(why, (uint32_t)strlen(why)));
	struct fxt_event e = fxt_ev_instant(fxt_thread_inl(pid, pid), fxt_str_inl("fxtauto", 7),
					    fxt_str_inl("provider data corrupt", 21), ts);
	e.args = &arg;
	e.nargs = 1;
	if (fxt_event_words(&e) > dst_words)
		return -EINVAL;
	return fxt_event_write(dst, &e);
}

/* Circular: chunks taken over the whole run beyond those holding records now. */
static uint64_t overwritten_chunks(const struct fxt_saved *s)
{
	uint64_t taken = __atomic_load_n(&s->live->next_chunk, __ATOMIC_RELAXED);
	return taken > s->kept_chunks ? taken - s->kept_chunks : 0;
}

/* What a wrapped circular buffer kept, in its stats: about how many records it overwrote (its
 * overwritten chunks, taken as full, times the records per chunk's worth of words kept) and the window
 * kept, from its oldest record to `end`, of the whole one from its start. */
static void kept_account(struct fxt_saved *s, uint64_t end, const struct fxt_saver_clock *clock)
{
	uint64_t chunks = overwritten_chunks(s), tps = clock_of(s, clock).tps;
	s->st.overwritten_records =
		s->kept_words ? (uint64_t)((double)chunks * (double)(s->layout.chunk_size / 8 - 1) *
					   (double)s->st.events / (double)s->kept_words + 0.5)
			      : 0;
	/* live: stamped after the header was shared (attach may come first) */
	uint64_t start = __atomic_load_n(&s->live->start_ticks, __ATOMIC_RELAXED);
	uint64_t from = s->kept_from > start ? s->kept_from : start;
	if (!tps || !start || end < from)
		return;
	s->st.kept_ns = (uint64_t)((double)(end - from) * 1e9 / (double)tps);
	s->st.span_ns = (uint64_t)((double)(end - start) * 1e9 / (double)tps);
}

int fxt_saver_note(struct fxt_out *o, uint32_t id, const struct fxt_saver_clock *clock, int first,
		   int pid, const char *name, const char *event, const char *why)
{
	uint64_t rec[512], ts = clock->now.ticks;
	int n = 0;
	if (first) {
		n += fxt_provider_info_write(rec, id, "fxtrun", 6);
		n += fxt_provider_section_write(rec + n, id);
		n += fxt_init_write(rec + n, clock->tps);
		n += fxt_clock_write(rec + n, clock->start, clock->now);
	}
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_PROCESS, .koid = (uint64_t)pid,
			      .name = fxt_str_inl(name, (uint32_t)strnlen(name, 200)) };
	n += fxt_kobj_write(rec + n, &k);
	struct fxt_warg arg = fxt_arg_string(fxt_str_inl("reason", 6),
					     fxt_str_inl(why, (uint32_t)strnlen(why, 1000)));
	struct fxt_event e = fxt_ev_instant(fxt_thread_inl((uint64_t)pid, (uint64_t)pid),
					    fxt_str_inl("fxtauto", 7),
					    fxt_str_inl(event, (uint32_t)strnlen(event, 100)), ts);
	e.args = &arg;
	e.nargs = 1;
	n += fxt_event_write(rec + n, &e);
	return fxt_out_emit(o, rec, (size_t)n * 8);
}

/* The final ticks per second and clock pairs into the provider's initialization and clock
 * records. */
static int patch_clock(struct fxt_out *o, const struct fxt_saved *s,
		       const struct fxt_saver_clock *clock)
{
	struct provider_clock pc = clock_of(s, clock);
	const uint64_t words[4] = { pc.start.ticks, pc.start.ns, pc.end.ticks, pc.end.ns };
	int rc = fxt_out_patch(o, s->init_at, pc.tps);
	for (unsigned i = 0; i < 4 && !rc; i++)
		rc = fxt_out_patch(o, s->clock_at + i * 8, words[i]);
	return rc;
}

int fxt_saver_finish(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		     const struct fxt_saver_clock *clock)
{
	const struct fxt_buf_hdr *h = s->live;
	uint64_t stop = __atomic_load_n(&h->stop_ticks, __ATOMIC_ACQUIRE);
	if (cutoff && (!stop || cutoff < stop))
		stop = cutoff;
	int rc = save(o, s, stop, clock, 1);
	uint64_t dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
	uint64_t wraps = __atomic_load_n(&h->wraps, __ATOMIC_RELAXED);
	uint32_t reasons = __atomic_load_n(&h->drop_reasons, __ATOMIC_RELAXED);
	if (dropped > FXT_SAVER_DROPPED_MAX) {
		/* No run drops that many (2^48 records: days at one per ns): the provider wrote
		 * over its header's counters. Its count is not reported, its data is corrupt. */
		if (s->vet && !fxt_vet_problem(s->vet))
			fxt_vet_fail(s->vet, "buffer header overwritten (drop count)");
		dropped = 0;
		reasons = 0;
	}
	int overwritten = s->layout.mode == FXT_BUF_CIRCULAR && wraps;
	/* Killed before its exit flush (SIGKILL): its open calls and pending flows were never
	 * ended; the archive says so with its drop report, so readers excuse what is unpaired.
	 * A snapshot of a running provider: the same, said as what it is. */
	int killed = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != FXT_BUF_STOPPED;
	if (killed)
		reasons |= s->snapshot ? FXT_DROP_CUT : FXT_DROP_KILLED;
	/* Unpaired records of a provider that dropped none: its data is not what it wrote. */
	if (!rc && !dropped && !overwritten && !killed && s->vet)
		fxt_vet_finish(s->vet);
	const char *bad = s->vet ? fxt_vet_problem(s->vet) : NULL;
	uint64_t start = o->bytes;
	if (!rc && (dropped || overwritten || bad || killed)) {
		/* Circular mode that wrapped overwrote its oldest records: the archive says so. */
		uint64_t rec[FXT_OUTFILE_TRAILER_WORDS + 64];
		size_t cap = sizeof(rec) / 8;
		/* at the stop; else (killed, a snapshot) after its last record kept */
		uint64_t last = s->vet ? fxt_vet_last_stamp(s->vet) : 0;
		uint64_t ts = stop ? stop : last ? last : s->live->start_ticks;
		int n = fxt_provider_section_write(rec, s->id);
		n += fxt_provider_event_write(rec + n, s->id, FXT_PE_BUFFER_OVERFLOW);
		int m = dropped || killed ? fxt_dropped_event_write(rec + n, cap - (size_t)n,
								    (uint64_t)s->pid, ts, dropped,
								    reasons)
					  : 0;
		n += m > 0 ? m : 0;
		m = bad ? corrupt_event_write(rec + n, cap - (size_t)n, (uint64_t)s->pid, ts, bad) : 0;
		n += m > 0 ? m : 0;
		if (overwritten) {
			kept_account(s, last, clock);
			m = fxt_overwritten_event_write(rec + n, cap - (size_t)n, (uint64_t)s->pid,
							ts, s->st.overwritten_records,
							s->kept_from, overwritten_chunks(s));
			n += m > 0 ? m : 0;
		}
		rc = fxt_out_emit(o, rec, (size_t)n * 8);
	}
	if (!rc && s->init_at)
		rc = patch_clock(o, s, clock);
	if (s->vet)
		fxt_vet_rest(s->vet);	/* a long tree of processes keeps only the live ones' */
	s->st.bytes += o->bytes - start;
	s->st.dropped = dropped;
	s->st.drop_reasons = dropped ? reasons : 0;
	s->st.overwritten = overwritten;
	s->st.processes = 1;
	return rc ? rc : o->err;
}
