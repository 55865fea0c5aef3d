/* Archive writing of the trace manager (saver.h). A chunk is read by a "sweep": chunks in
 * sequence order, each from where the last sweep of the same sequence number stopped up to its
 * first zero or torn header, copied straight into the archive's write buffer and kept only if
 * word 0 still holds that sequence afterwards (a circular buffer may reuse it meanwhile). A
 * continued chunk is re-opened with its thread record (thread indexes are per chunk). Streaming
 * saves write the records from the shared mapping with writev (the kernel's copy the only
 * one); other sweeps copy them once into the write buffer, and large durable runs are written
 * from the mapping directly. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "launcher/saver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/protocol.h"
#include "writer/archive.h"
#include "writer/fields.h"
#include "writer/outfile.h"
#include "writer/records.h"

/* ---- the buffered archive writer ---- */

static int write_all(int fd, const void *data, size_t len)
{
	const char *s = data;
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;	/* a short write is an error (full disk) */
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* writev until every byte is written (a short write continues; an error is returned). */
static int writev_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		while (n && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int fxt_out_flush(struct fxt_out *o)
{
	if (!o->err && o->n)
		o->err = write_all(o->fd, o->buf, o->n);
	o->n = 0;
	return o->err;
}

static int emit(struct fxt_out *o, const void *data, size_t len)
{
	if (o->n + len > sizeof(o->buf) && fxt_out_flush(o))
		return o->err;
	o->bytes += len;
	if (len > sizeof(o->buf) / 2)
		return o->err = write_all(o->fd, data, len);	/* straight from the mapping */
	memcpy(o->buf + o->n, data, len);
	o->n += len;
	return o->err;
}

/* Room for len bytes at the end of the write buffer (len <= half of it), or NULL (error). */
static void *reserve(struct fxt_out *o, size_t len)
{
	if (o->n + len > sizeof(o->buf) && fxt_out_flush(o))
		return NULL;
	return o->err ? NULL : o->buf + o->n;
}

static void commit(struct fxt_out *o, size_t len)
{
	o->n += len;
	o->bytes += len;
}

/* Overwrites 8 bytes at archive offset at (buffered or already written). */
static int patch(struct fxt_out *o, uint64_t at, uint64_t value)
{
	uint64_t flushed = o->bytes - o->n;
	if (at >= flushed) {
		memcpy(o->buf + (at - flushed), &value, 8);
		return 0;
	}
	if (pwrite(o->fd, &value, 8, (off_t)at) != 8)
		return o->err = errno ? -errno : -EIO;
	return 0;
}

int fxt_out_start(struct fxt_out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->n = 0;
	o->bytes = 0;
	uint64_t magic;
	return emit(o, &magic, (size_t)fxt_magic_write(&magic) * 8);
}

/* ---- one provider ---- */

/* The name of the process kernel object record for pid in the durable records (the preload
 * writes it inline), or "" if there is none. */
static void process_name(const uint64_t *d, size_t words, int pid, char *name, size_t size)
{
	name[0] = 0;
	for (size_t at = 0; at < words; at += fxt_record_words(d[at])) {
		uint64_t h = d[at];
		uint64_t ref = fxt_field_get(FXT_KOBJ_NAME_REF, h);
		if (fxt_field_get(FXT_RECORD_TYPE, h) != FXT_RT_KERNEL_OBJECT ||
		    fxt_record_words(h) < 2 ||
		    fxt_field_get(FXT_KOBJ_TYPE, h) != FXT_OBJ_TYPE_PROCESS ||
		    d[at + 1] != (uint64_t)pid || !(ref & FXT_STRREF_INLINE))
			continue;
		size_t len = ref & FXT_STRREF_LEN_MASK;
		if (len > size - 1 || 2 + fxt_pad_words((uint32_t)len) > fxt_record_words(h))
			continue;
		memcpy(name, &d[at + 2], len);
		name[len] = 0;
	}
}

/* trace-format.md#kernel-object-record: the process, named, with a `parent` koid argument. */
static int emit_process(struct fxt_out *o, int pid, int ppid, const char *name)
{
	struct fxt_warg parent = fxt_arg_koid(fxt_str_inl("parent", 6), (uint64_t)ppid);
	struct fxt_kobj k = { .obj_type = FXT_OBJ_TYPE_PROCESS, .koid = (uint64_t)pid,
			      .name = fxt_str_inl(name, (uint32_t)strlen(name)),
			      .args = &parent, .nargs = 1 };
	uint64_t rec[64];
	int n = fxt_kobj_words(&k) <= 64 ? fxt_kobj_write(rec, &k) : -EINVAL;
	return n < 0 ? n : emit(o, rec, (size_t)n * 8);
}

/* Remembers the thread koids named by thread kernel object records in a valid run. */
static void count_threads(struct fxt_saved *s, const uint64_t *p, size_t words)
{
	for (size_t at = 0; at < words; at += fxt_record_words(p[at])) {
		if (fxt_field_get(FXT_RECORD_TYPE, p[at]) != FXT_RT_KERNEL_OBJECT ||
		    fxt_field_get(FXT_KOBJ_TYPE, p[at]) != FXT_OBJ_TYPE_THREAD ||
		    fxt_record_words(p[at]) < 2)
			continue;
		size_t i = 0;
		while (i < s->nkoids && s->koids[i] != p[at + 1])
			i++;
		if (i < s->nkoids)
			continue;	/* a renamed thread has several records */
		if (s->nkoids == s->koids_cap) {
			size_t cap = s->koids_cap ? s->koids_cap * 2 : 16;
			uint64_t *k = realloc(s->koids, cap * sizeof(*k));
			if (!k)
				return;
			s->koids = k;
			s->koids_cap = cap;
		}
		s->koids[s->nkoids++] = p[at + 1];
	}
	s->st.threads = s->nkoids;
}

/* The first bytes of a provider: info (named after its process), section, initialization. */
static int prologue(struct fxt_out *o, struct fxt_saved *s, uint64_t fallback_tps)
{
	const struct fxt_buf_hdr *h = s->buf.hdr;
	uint64_t used = __atomic_load_n(&h->durable_used, __ATOMIC_ACQUIRE);
	if (used > h->durable_size)
		used = h->durable_size;
	char name[256];
	const uint64_t *d = fxt_buf_durable(&s->buf);
	process_name(d, fxt_archive_valid_prefix(d, used / 8) / 8, s->pid, name, sizeof(name));
	if (!name[0])
		snprintf(name, sizeof(name), "pid %d", s->pid);
	uint64_t rec[1 + 32];
	int n = fxt_provider_info_write(rec, s->id, name, (uint32_t)strlen(name));
	n += fxt_provider_section_write(rec + n, s->id);
	uint64_t tps = h->ticks_per_second ? h->ticks_per_second : fallback_tps;
	s->init_at = o->bytes + (uint64_t)n * 8 + 8;
	n += fxt_init_write(rec + n, tps);
	return emit(o, rec, (size_t)n * 8);
}

/* Opens a run of this provider's records: the prologue once, else a section record. */
static int open_section(struct fxt_out *o, struct fxt_saved *s, uint64_t fallback_tps,
			int *opened)
{
	if (*opened)
		return 0;
	*opened = 1;
	if (!s->init_at)
		return prologue(o, s, fallback_tps);
	uint64_t rec;
	return emit(o, &rec, (size_t)fxt_provider_section_write(&rec, s->id) * 8);
}

/* The valid records of [p + from, p + words) (word offsets), counting events; returns the end
 * of the valid run in words. */
static size_t valid_end(const uint64_t *p, size_t from, size_t words, uint64_t *events)
{
	size_t at = from;
	uint64_t ev = 0;
	while (at < words) {
		uint64_t h = __atomic_load_n(&p[at], __ATOMIC_ACQUIRE);
		uint64_t n = fxt_record_words(h);
		if (!h || !n || n > words - at)
			break;
		ev += fxt_field_get(FXT_RECORD_TYPE, h) == FXT_RT_EVENT;
		at += n;
	}
	*events = ev;
	return at;
}

/* Drops the records of [p, p + words) stamped after cutoff, in place; returns the words kept. */
static size_t cut_after(uint64_t *p, size_t words, uint64_t cutoff)
{
	size_t at = 0, kept = 0;
	while (at < words) {
		uint64_t n = fxt_record_words(p[at]);
		if (!fxt_archive_after(p + at, n, cutoff)) {
			memmove(p + kept, p + at, n * 8);
			kept += n;
		}
		at += n;
	}
	return kept;
}

/* A chunk's records to save: chunk idx (sequence seq) words [from, end) after its word 0. */
struct run {
	uint64_t seq, events;
	uint32_t idx;
	uint32_t from, end;
};

static int by_seq(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What every chunk gained since the last save, in sequence order: *runs (malloc'd), returns
 * their number or -ENOMEM. Only headers are read here (acquire): every record counted was
 * committed, and so was every string record it refers to (committed before it). */
static long plan(struct fxt_saved *s, struct run **runs)
{
	const struct fxt_buf_hdr *h = s->buf.hdr;
	uint32_t slots = fxt_buf_slots_used(&s->buf);
	struct run *r = malloc((size_t)slots * sizeof(*r) + 1);
	if (!r)
		return -ENOMEM;
	size_t k = 0, words = h->chunk_size / 8 - 1;
	for (uint32_t i = 0; i < slots; i++) {
		const uint64_t *c = fxt_buf_chunk(&s->buf, i);
		uint64_t seq = fxt_chunk_word_seq(__atomic_load_n(c, __ATOMIC_ACQUIRE));
		if (!seq)
			continue;
		const struct saved_chunk *sc = &s->chunks[i];
		size_t from = sc->seq == seq ? sc->bytes / 8 : 0;
		uint64_t events;
		size_t end = valid_end(c + 1, from, words, &events);
		if (end > from)
			r[k++] = (struct run){ seq, events, i, (uint32_t)from, (uint32_t)end };
	}
	qsort(r, k, sizeof(*r), by_seq);
	*runs = r;
	return (long)k;
}

/* Streaming, before the exit: the planned chunk records cannot change under us (a chunk is
 * reused only once this save is acknowledged), so they go to the file straight from the shared
 * mapping with writev, the kernel's copy the only one. */
static int write_runs(struct fxt_out *o, struct fxt_saved *s, const struct run *r, size_t k)
{
	struct iovec iov[512];
	int n = 0;
	if (fxt_out_flush(o))
		return o->err;
	for (size_t j = 0; j <= k; j++) {
		if (n && (j == k || n + 2 > (int)(sizeof(iov) / sizeof(iov[0])))) {
			size_t len = 0;
			for (int i = 0; i < n; i++)
				len += iov[i].iov_len;
			if ((o->err = writev_all(o->fd, iov, n)) < 0)
				return o->err;
			o->bytes += len;
			n = 0;
		}
		if (j == k)
			break;
		const uint64_t *c = fxt_buf_chunk(&s->buf, r[j].idx);
		if (r[j].from && fxt_field_get(FXT_RECORD_TYPE, c[1]) == FXT_RT_THREAD &&
		    fxt_field_get(FXT_RECORD_SIZE, c[1]) == 3)
			iov[n++] = (struct iovec){ (void *)(c + 1), 24 };	/* re-opened */
		iov[n++] = (struct iovec){ (void *)(c + 1 + r[j].from),
					   (size_t)(r[j].end - r[j].from) * 8 };
		s->st.events += r[j].events;
		s->chunks[r[j].idx] = (struct saved_chunk){ r[j].seq, (uint64_t)r[j].end * 8 };
	}
	return 0;
}

/* Appends the planned runs: each copied straight into the write buffer, kept only if the chunk
 * still holds the same sequence afterwards (a circular buffer may reuse it meanwhile). A
 * continued chunk is re-opened with its thread record (thread indexes are per chunk). */
static int copy_runs(struct fxt_out *o, struct fxt_saved *s, const struct run *r, size_t k,
		     uint64_t cutoff)
{
	for (size_t j = 0; j < k; j++) {
		const uint64_t *c = fxt_buf_chunk(&s->buf, r[j].idx);
		int reopen = r[j].from && fxt_field_get(FXT_RECORD_TYPE, c[1]) == FXT_RT_THREAD &&
			     fxt_field_get(FXT_RECORD_SIZE, c[1]) == 3;
		size_t len = (reopen ? 3 : 0) + r[j].end - r[j].from;
		uint64_t *dst = reserve(o, len * 8);
		if (!dst)
			return o->err ? o->err : -EIO;
		if (reopen)
			memcpy(dst, c + 1, 24);
		memcpy(dst + (reopen ? 3 : 0), c + 1 + r[j].from, (size_t)(r[j].end - r[j].from) * 8);
		atomic_thread_fence(memory_order_acquire);
		if ((__atomic_load_n(&c[0], __ATOMIC_ACQUIRE) & FXT_CHUNK_SEQ_MASK) != r[j].seq)
			continue;	/* reused while read: its old records were saved before */
		/* Events stamped after the provider's stop (threads still running while its exit
		 * flush closed their frames) would overlap the closed frames: leave them out. */
		if (cutoff)
			len = cut_after(dst, len, cutoff);
		commit(o, len * 8);
		s->st.events += r[j].events;
		s->chunks[r[j].idx] = (struct saved_chunk){ r[j].seq, (uint64_t)r[j].end * 8 };
	}
	return 0;
}

int fxt_saver_save(struct fxt_out *o, struct fxt_saved *s, uint64_t cutoff,
		   uint64_t fallback_tps)
{
	const struct fxt_buf_hdr *h = s->buf.hdr;
	uint64_t start = o->bytes;
	int opened = 0, rc = 0;
	/* The chunks' new records first, then the durable records: those include every string
	 * the planned records refer to, and go into the archive before them. */
	struct run *runs;
	long k = plan(s, &runs);
	if (k < 0)
		return (int)k;
	uint64_t used = __atomic_load_n(&h->durable_used, __ATOMIC_ACQUIRE);
	if (used > h->durable_size)
		used = h->durable_size;
	const uint64_t *d = fxt_buf_durable(&s->buf);
	uint64_t events;
	size_t from = s->durable_saved / 8, end = valid_end(d, from, used / 8, &events);
	int first = !s->init_at;
	if (end > from || first || k) {
		rc = open_section(o, s, fallback_tps, &opened);
		if (!rc)
			rc = emit(o, d + from, (end - from) * 8);
		count_threads(s, d + from, end - from);
		s->durable_saved = end * 8;
	}
	if (!rc && first) {
		if (s->ppid <= 0)
			s->ppid = (int)h->ppid; /* reaped before STARTED was read: its own word */
		char name[256];
		process_name(d, end, s->pid, name, sizeof(name));
		if (s->ppid > 0)
			rc = emit_process(o, s->pid, s->ppid, name[0] ? name : "process");
	}
	/* Read after the plan: 0 means every planned record was stamped before any stop. */
	uint64_t stop = __atomic_load_n(&h->stop_ticks, __ATOMIC_ACQUIRE);
	if (stop && (!cutoff || stop < cutoff))
		cutoff = stop;
	if (!rc)
		rc = h->mode == FXT_BUF_STREAMING && !cutoff ? write_runs(o, s, runs, (size_t)k)
							      : copy_runs(o, s, runs, (size_t)k, cutoff);
	free(runs);
	s->st.bytes += o->bytes - start;
	return rc ? rc : o->err;
}

int fxt_saver_finish(struct fxt_out *o, struct fxt_saved *s, uint64_t fallback_tps)
{
	const struct fxt_buf_hdr *h = s->buf.hdr;
	uint64_t stop = __atomic_load_n(&h->stop_ticks, __ATOMIC_ACQUIRE);
	int rc = fxt_saver_save(o, s, stop, fallback_tps);
	uint64_t dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
	uint64_t wraps = __atomic_load_n(&h->wraps, __ATOMIC_RELAXED);
	int overwritten = h->mode == FXT_BUF_CIRCULAR && wraps;
	uint64_t start = o->bytes;
	if (!rc && (dropped || overwritten)) {
		/* Circular mode that wrapped overwrote its oldest records: the archive says so. */
		uint64_t rec[FXT_OUTFILE_TRAILER_WORDS];
		int n = fxt_provider_section_write(rec, s->id);
		n += fxt_provider_event_write(rec + n, s->id, FXT_PE_BUFFER_OVERFLOW);
		int m = dropped ? fxt_dropped_event_write(rec + n, FXT_OUTFILE_TRAILER_WORDS - (size_t)n,
						      (uint64_t)s->pid, stop ? stop : h->start_ticks,
						      dropped,
						      __atomic_load_n(&h->drop_reasons,
								      __ATOMIC_RELAXED))
				: 0;
		rc = emit(o, rec, (size_t)(n + (m > 0 ? m : 0)) * 8);
	}
	if (!rc && s->init_at)
		rc = patch(o, s->init_at, h->ticks_per_second ? h->ticks_per_second : fallback_tps);
	s->st.bytes += o->bytes - start;
	s->st.dropped = dropped;
	s->st.drop_reasons = dropped ? __atomic_load_n(&h->drop_reasons, __ATOMIC_RELAXED) : 0;
	s->st.overwritten = overwritten;
	s->st.processes = 1;
	return rc ? rc : o->err;
}
