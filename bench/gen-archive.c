/* gen-archive: writes a realistic FXT archive with the writer's encoders (writer/records.h) for
 * the reader benchmark and the `fxt dump`/`fxt check` tests: per provider its metadata, ticks,
 * strings, threads and kernel objects, then chunks of one thread's events (call trees of
 * complete events written callees first, begin/end pairs with arguments, instants, counters,
 * async and flow pairs) interleaved over many threads. --corrupt KIND appends or changes one
 * thing so that the archive breaks exactly one rule. Deterministic for a given --seed. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer/records.h"

#define NAMES 64
#define MAX_THREADS 255

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Output buffer of words, flushed to the file when full. */
static uint64_t buf[1 << 17];
static size_t nbuf;
static FILE *out;
static uint64_t written; /* bytes */

static void flush(void)
{
	if (nbuf && fwrite(buf, 8, nbuf, out) != nbuf) {
		perror("gen-archive: write");
		exit(1);
	}
	written += nbuf * 8;
	nbuf = 0;
}

/* Room for a record of n words (zeroed: the writer commits the header last). */
static uint64_t *room(uint32_t n)
{
	if (nbuf + n > sizeof(buf) / 8)
		flush();
	memset(buf + nbuf, 0, n * 8);
	return buf + nbuf;
}

static void wrote(int n)
{
	if (n <= 0) {
		fprintf(stderr, "gen-archive: the writer refused a record (%d)\n", n);
		exit(1);
	}
	nbuf += (size_t)n;
}

static void event(const struct fxt_event *e)
{
	wrote(fxt_event_write(room(fxt_event_words(e)), e));
}

struct thread {
	uint64_t pid, tid, clock;
	uint8_t index;
	uint64_t open_async; /* an async id begun by this thread and not ended yet, or 0 */
};

/* One call tree on thread t, callees written before callers; returns nothing, moves the clock. */
static void call_tree(struct thread *t, unsigned depth)
{
	uint64_t start = t->clock;
	t->clock += 1 + rnd(20);
	unsigned kids = depth < 6 ? (unsigned)rnd(4) : 0;
	for (unsigned i = 0; i < kids; i++)
		call_tree(t, depth + 1);
	t->clock += 1 + rnd(20);
	struct fxt_event e = fxt_ev_complete(fxt_thread_idx(t->index), fxt_str_idx(0),
					     fxt_str_idx((uint16_t)(1 + rnd(NAMES))), start, t->clock);
	event(&e);
}

/* Some events of every other kind on thread t: begin/end with arguments, an instant, a counter,
 * async and flow pairs. */
static void other_events(struct thread *t, uint64_t *next_id)
{
	struct fxt_thread th = fxt_thread_idx(t->index);
	struct fxt_str cat = fxt_str_idx(NAMES + 1), name = fxt_str_idx((uint16_t)(1 + rnd(NAMES)));
	struct fxt_warg args[3] = {
		fxt_arg_int64(fxt_str_idx(NAMES + 2), (int64_t)rnd(1 << 20)),
		fxt_arg_string(fxt_str_idx(NAMES + 3), fxt_str_idx((uint16_t)(1 + rnd(NAMES)))),
		fxt_arg_double(fxt_str_idx(NAMES + 4), 0.5 * (double)rnd(100)),
	};
	struct fxt_event e = fxt_ev_begin(th, cat, name, t->clock++);
	e.args = args;
	e.nargs = 3;
	event(&e);
	e = fxt_ev_instant(th, cat, fxt_str_inl("tick", 4), t->clock++);
	event(&e);
	e = fxt_ev_counter(th, cat, fxt_str_idx(NAMES + 5), t->clock++, 1);
	e.args = args;
	e.nargs = 1;
	event(&e);
	e = fxt_ev_end(th, cat, name, t->clock++);
	event(&e);
	if (t->open_async) {
		e = fxt_ev_async_end(th, cat, fxt_str_idx(NAMES + 6), t->clock++, t->open_async);
		t->open_async = 0;
	} else {
		e = fxt_ev_async_begin(th, cat, fxt_str_idx(NAMES + 6), t->clock++, t->open_async = (*next_id)++);
	}
	event(&e);
	uint64_t flow = (*next_id)++;
	e = fxt_ev_flow_begin(th, cat, fxt_str_idx(NAMES + 7), t->clock++, flow);
	event(&e);
	e = fxt_ev_flow_end(th, cat, fxt_str_idx(NAMES + 7), t->clock++, flow);
	event(&e);
}

static const char *const extra_names[] = { "cat", "count", "what", "ratio", "counter", "request", "flow" };

static void provider_prologue(uint32_t id, struct thread *th, unsigned nthreads, uint64_t pid)
{
	char name[32];
	int len = snprintf(name, sizeof(name), "gen-%u", id);
	wrote(fxt_provider_info_write(room(fxt_provider_info_words(name, (uint32_t)len)), id, name, (uint32_t)len));
	wrote(fxt_provider_section_write(room(1), id));
	wrote(fxt_init_write(room(2), 1000000000));
	for (unsigned i = 1; i <= NAMES + 7; i++) {
		char s[48];
		int n = i <= NAMES ? snprintf(s, sizeof(s), "namespace::function_%u(int, char const*)", i)
				   : snprintf(s, sizeof(s), "%s", extra_names[i - NAMES - 1]);
		wrote(fxt_string_write(room(fxt_string_words(s, (uint32_t)n)), (uint16_t)i, s, (uint32_t)n));
	}
	struct fxt_warg proc = fxt_arg_koid(fxt_str_inl("process", 7), pid);
	struct fxt_kobj ko = { FXT_OBJ_TYPE_PROCESS, pid, fxt_str_inl(name, (uint32_t)len), NULL, 0 };
	wrote(fxt_kobj_write(room(fxt_kobj_words(&ko)), &ko));
	for (unsigned i = 0; i < nthreads; i++) {
		th[i] = (struct thread){ pid, pid + i, 1000, (uint8_t)(i + 1), 0 };
		wrote(fxt_thread_write(room(FXT_THREAD_WORDS), th[i].index, pid, th[i].tid));
		ko = (struct fxt_kobj){ FXT_OBJ_TYPE_THREAD, th[i].tid, fxt_str_inl("worker", 6), &proc, 1 };
		wrote(fxt_kobj_write(room(fxt_kobj_words(&ko)), &ko));
	}
}

/* The end of a provider: async operations still open are ended. */
static void provider_epilogue(struct thread *th, unsigned nthreads)
{
	for (unsigned i = 0; i < nthreads; i++)
		if (th[i].open_async) {
			struct fxt_event e = fxt_ev_async_end(fxt_thread_idx(th[i].index), fxt_str_idx(NAMES + 1),
							      fxt_str_idx(NAMES + 6), th[i].clock++, th[i].open_async);
			event(&e);
			th[i].open_async = 0;
		}
}

/* Appends what --corrupt KIND asks for; returns 0, or -1 for an unknown kind. */
static int corrupt(const char *kind, struct thread *t)
{
	struct fxt_thread th = fxt_thread_idx(t->index);
	struct fxt_event e;
	if (!strcmp(kind, "truncated")) {
		e = fxt_ev_complete(th, fxt_str_idx(0), fxt_str_idx(1), t->clock, t->clock + 1);
		event(&e);
		nbuf--; /* the file ends inside the last record */
	} else if (!strcmp(kind, "size0")) {
		*room(1) = 0;
		nbuf++;
	} else if (!strcmp(kind, "badref")) {
		e = fxt_ev_instant(th, fxt_str_idx(0), fxt_str_idx(9999), t->clock);
		event(&e);
	} else if (!strcmp(kind, "badthread")) {
		e = fxt_ev_instant(fxt_thread_idx(254), fxt_str_idx(0), fxt_str_idx(1), t->clock);
		event(&e);
	} else if (!strcmp(kind, "utf8")) {
		wrote(fxt_string_write(room(2), 500, "\xff\xfe", 2));
	} else if (!strcmp(kind, "reserved")) {
		wrote(fxt_init_write(room(2), 1000000000));
		buf[nbuf - 2] |= 1ULL << 63;
	} else if (!strcmp(kind, "overlap")) {
		e = fxt_ev_complete(th, fxt_str_idx(0), fxt_str_idx(1), t->clock + 10, t->clock + 20);
		event(&e);
		e = fxt_ev_complete(th, fxt_str_idx(0), fxt_str_idx(2), t->clock + 15, t->clock + 30);
		event(&e);
	} else if (!strcmp(kind, "backwards")) {
		e = fxt_ev_complete(th, fxt_str_idx(0), fxt_str_idx(1), t->clock + 10, t->clock + 5);
		event(&e);
	} else if (!strcmp(kind, "unbalanced")) {
		e = fxt_ev_begin(th, fxt_str_idx(0), fxt_str_idx(1), t->clock + 10);
		event(&e);
	} else if (!strcmp(kind, "async")) {
		e = fxt_ev_async_begin(th, fxt_str_idx(0), fxt_str_idx(1), t->clock + 10, 1ULL << 60);
		event(&e);
	} else if (!strcmp(kind, "flow")) {
		e = fxt_ev_flow_end(th, fxt_str_idx(0), fxt_str_idx(1), t->clock + 10, 1ULL << 61);
		event(&e);
	} else if (!strcmp(kind, "unknown")) { /* reserved record type 12: fxt check --lenient skips it */
		uint64_t *w = room(2);
		w[0] = fxt_record_hdr(12, 2);
		w[1] = 0x1234;
		nbuf += 2;
	} else if (!strcmp(kind, "argtype")) {	/* an int32 argument retyped to reserved type 10 */
		struct fxt_warg a = fxt_arg_int32(fxt_str_idx(2), 7);
		e = fxt_ev_instant(th, fxt_str_idx(0), fxt_str_idx(1), t->clock);
		e.args = &a;
		e.nargs = 1;
		event(&e);
		buf[nbuf - 1] = (buf[nbuf - 1] & ~0xfULL) | 10;
	} else if (!strncmp(kind, "async-", 6)) {	/* async records paired by count, not in time */
		uint64_t id = 1ULL << 59, c = t->clock + 10;
		const char *k = kind + 6;
		int dup = !strcmp(k, "twice"), late = !strcmp(k, "instant"), back = !strcmp(k, "back");
		if (!dup && !late && !back)
			return -1;
		struct fxt_event ev[4] = {
			fxt_ev_async_begin(th, fxt_str_idx(0), fxt_str_idx(1), c, id),
			fxt_ev_async_begin(th, fxt_str_idx(0), fxt_str_idx(1), c + 1, id),
			fxt_ev_async_end(th, fxt_str_idx(0), fxt_str_idx(1), back ? c - 5 : c + 2, id),
			fxt_ev_async_end(th, fxt_str_idx(0), fxt_str_idx(1), c + 3, id),
		};
		if (late)
			ev[1] = fxt_ev_async_instant(th, fxt_str_idx(0), fxt_str_idx(1), c + 4, id);
		for (unsigned i = 0; i < (dup ? 4u : late ? 3u : 1u); i++)
			event(&ev[i == 2 && late ? 3 : i]);
		if (back)
			event(&ev[2]);
	} else if (strcmp(kind, "nomagic") && strcmp(kind, "none")) {
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen-archive [-s BYTES] [-t THREADS] [-p PROVIDERS] [-S SEED] [-c KIND] OUT\n"
		   "Writes a realistic FXT archive of about BYTES (default 1 MiB) to OUT.\n"
		   "  -t  threads per provider, 1..255 (default 16)   -p  providers (default 2)\n"
		   "  -c  break one rule: truncated size0 badref badthread utf8 reserved overlap\n"
		   "      backwards unbalanced async flow nomagic unknown (reserved record type)\n"
		   "      argtype (reserved argument type) async-twice async-instant async-back\n"
		   "      (an async id begun twice, an instant after its end, an end before its begin)\n");
}

int main(int argc, char **argv)
{
	uint64_t size = 1 << 20;
	unsigned nthreads = 16, nproviders = 2;
	const char *kind = "none";
	int c;
	while ((c = getopt(argc, argv, "s:t:p:S:c:h")) != -1) {
		switch (c) {
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 't': nthreads = (unsigned)atoi(optarg); break;
		case 'p': nproviders = (unsigned)atoi(optarg); break;
		case 'S': rng = strtoull(optarg, NULL, 0) | 1; break;
		case 'c': kind = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || nthreads < 1 || nthreads > MAX_THREADS || nproviders < 1) {
		usage(stderr);
		return 2;
	}
	if (!(out = fopen(argv[optind], "wb"))) {
		fprintf(stderr, "gen-archive: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	static struct thread threads[MAX_THREADS];
	uint64_t next_id = 1, per_provider = size / nproviders;
	if (strcmp(kind, "nomagic"))
		wrote(fxt_magic_write(room(1)));
	for (unsigned p = 0; p < nproviders; p++) {
		provider_prologue(100 + p, threads, nthreads, 1000 + 1000 * p);
		uint64_t end = written + nbuf * 8 + per_provider;
		while (written + nbuf * 8 < end) {
			/* one chunk: a few call trees and other events of one thread */
			struct thread *t = &threads[rnd(nthreads)];
			for (int i = 0; i < 32; i++)
				call_tree(t, 0);
			other_events(t, &next_id);
		}
		provider_epilogue(threads, nthreads);
	}
	if (corrupt(kind, &threads[0]) < 0) {
		fprintf(stderr, "gen-archive: unknown --corrupt kind '%s'\n", kind);
		return 2;
	}
	flush();
	if (fclose(out) != 0) {
		perror("gen-archive: close");
		return 1;
	}
	return 0;
}
