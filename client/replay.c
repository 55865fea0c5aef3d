/* Streaming replay of an archive (client.h, `fxt replay`): per thread, its calls in the order
 * they began, indented by depth, each with its duration (and on-CPU time when context switches
 * were recorded), and its log lines and events in place. FXT writes a call when it ends, so a
 * caller comes after its callees: each thread's events wait, sorted by start (the outer of two
 * with one start first), until the thread is printed: at the end of the archive, or as soon as
 * more than `hold` events wait in all (the thread holding the most is printed then). Printed
 * early, a thread's lines keep their order and nesting among themselves, but the calls still
 * open around them are read later: such a call is printed when it is read, right after the
 * lines it encloses, marked '^', and the depths printed until then count from the outermost
 * call read at the time. Memory: the events waiting (at most `hold` + the thread's stack, and
 * a printed thread gives back its room), the text of their arguments, context switches
 * (on-CPU time), names of threads and processes. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

#define NAME_CACHE 1024	/* --function matches by name address (indexed names share one) */
/* A thread printed keeps room for this many events (and 16 bytes of text each) at most: the
 * room of each thread that once held many would add up past the hold over many threads. */
#define KEEP_WAITING 1024u

/* What a line shows. Calls come from complete events and begin/end pairs. */
enum line {
	L_CALL, L_INSTANT, L_COUNTER, L_ASYNC_BEGIN, L_ASYNC_INSTANT, L_ASYNC_END, L_FLOW_BEGIN,
	L_FLOW_STEP, L_FLOW_END, L_LOG,
};

static const char *const line_words[] = {
	"", "instant ", "counter ", "async-begin ", "async-instant ", "async-end ",
	"flow-begin ", "flow-step ", "flow-end ", "log ",
};

/* An event waiting to be printed. */
struct pend {
	uint64_t start, end;	/* ns; end == start for a point, UINT64_MAX: a call never ended */
	uint64_t seq;		/* its rank in the thread's input: of two calls with one
				 * interval, the later encloses (a callee is written first) */
	struct fxt_sv name, cat;
	uint32_t tail;		/* offset + 1 of its text after the name in the thread's text
				 * (an id, arguments), 0: none */
	uint8_t kind;		/* enum line */
	uint8_t late;		/* began before lines printed earlier: printed out of order */
};

/* A begin event waiting for its end. */
struct open {
	uint64_t start;
	struct fxt_sv name, cat;
	char *tail;		/* its arguments' text (malloc), or NULL */
};

struct rthr {
	struct ckey key;	/* a = pid, b = tid */
	struct pend *p;
	uint32_t n;
	size_t cap;		/* room in p */
	char *text;		/* tails of the waiting events, each NUL-terminated */
	uint32_t tn;		/* bytes used in text (offsets fit in 32 bits) */
	size_t tcap;		/* room in text */
	struct open *open;
	uint32_t nopen;
	size_t copen;		/* room in open */
	uint64_t seq;
	uint64_t frontier;	/* the latest start printed early */
	int early;		/* lines printed before the calls around them were read */
};

struct named {
	struct ckey key;	/* a = kernel object type, b = koid */
	struct fxt_sv name;
};

struct fxt_replay {
	struct fxt_replay_opts o;
	FILE *f;
	struct ctab thrs, names;
	uint32_t last;		/* index + 1 of the thread of the last event */
	uint32_t shown;		/* index + 1 of the thread whose lines were printed last, 0:
				 * none (a header opens each other thread's lines) */
	uint64_t waiting;	/* events waiting in all threads */
	struct fxt_oncpu *oncpu;	/* context switches, or NULL when none were read */
	int oncpu_stale;	/* switches read since the last build */
	struct fxt_logs logs;	/* log records, so that their mirror instants are left out */
	struct fxt_replay_stats st;
	struct { const char *s; uint32_t len; int match; } cache[NAME_CACHE];
	struct {	/* the walk's stack of enclosing calls */
		uint64_t start, end;
		int base;	/* depth of the outermost --function match around, -1: none */
	} *stack;
	size_t cstack;		/* room in stack */
	char scratch[1 << 17];	/* a line's tail being made (longer ones are cut) */
};

int fxt_replay_new(struct fxt_replay **out, const struct fxt_replay_opts *o, FILE *f)
{
	struct fxt_replay *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->o = *o;
	if (!p->o.hold)
		p->o.hold = FXT_REPLAY_HOLD;
	p->f = f;
	ctab_init(&p->thrs, sizeof(struct rthr));
	ctab_init(&p->names, sizeof(struct named));
	fxt_logs_init(&p->logs);
	*out = p;
	return 0;
}

static void rthr_drop(void *entry)
{
	struct rthr *t = entry;
	free(t->p);
	free(t->text);
	for (uint32_t j = 0; j < t->nopen; j++)
		free(t->open[j].tail);
	free(t->open);
}

void fxt_replay_free(struct fxt_replay *p)
{
	if (!p)
		return;
	ctab_free_each(&p->thrs, rthr_drop);
	ctab_free(&p->names);
	fxt_logs_free(&p->logs);
	fxt_oncpu_free(p->oncpu);
	free(p->stack);
	free(p);
}

const struct fxt_replay_stats *fxt_replay_stats(const struct fxt_replay *p)
{
	return &p->st;
}

/* ---- text of a line ---- */

/* Appends sv to buf[*at..len) with C escapes for control characters (quoted, with '"' and '\\'
 * escaped too, when quote): one line whatever the bytes. */
static void put_sv(char *buf, size_t len, size_t *at, struct fxt_sv sv, int quote)
{
	if (quote && *at + 1 < len)
		buf[(*at)++] = '"';
	for (uint32_t i = 0; i < sv.len && *at + 5 < len; i++) {
		unsigned char c = (unsigned char)sv.s[i];
		if (quote && (c == '"' || c == '\\'))
			*at += (size_t)snprintf(buf + *at, len - *at, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			*at += (size_t)snprintf(buf + *at, len - *at, "\\x%02x", c);
		else
			buf[(*at)++] = (char)c;
	}
	if (quote && *at + 1 < len)
		buf[(*at)++] = '"';
	buf[*at < len ? *at : len - 1] = 0;
}

/* Appends " name=value..." for the arguments of rec to buf[*at..len). */
static void put_args(char *buf, size_t len, size_t *at, const struct fxt_record *rec)
{
	for (unsigned i = 0; i < rec->nargs && *at + 1 < len; i++) {
		const struct fxt_arg *a = &rec->args[i];
		buf[(*at)++] = ' ';
		put_sv(buf, len, at, a->name, 0);
		if (*at + 1 < len)
			buf[(*at)++] = '=';
		buf[*at] = 0;
		switch (a->type) {
		case FXT_AT_INT32:
		case FXT_AT_INT64:
			*at += (size_t)snprintf(buf + *at, len - *at, "%" PRId64, a->v.i64);
			break;
		case FXT_AT_UINT32:
		case FXT_AT_UINT64:
		case FXT_AT_KOID:
			*at += (size_t)snprintf(buf + *at, len - *at, "%" PRIu64, a->v.u64);
			break;
		case FXT_AT_POINTER:
			*at += (size_t)snprintf(buf + *at, len - *at, "0x%" PRIx64, a->v.u64);
			break;
		case FXT_AT_DOUBLE:
			*at += (size_t)snprintf(buf + *at, len - *at, "%g", a->v.dbl);
			break;
		case FXT_AT_STRING:
			put_sv(buf, len, at, a->v.str, 1);
			break;
		case FXT_AT_BOOL:
			*at += (size_t)snprintf(buf + *at, len - *at, "%s",
						a->v.boolean ? "true" : "false");
			break;
		default:
			*at += (size_t)snprintf(buf + *at, len - *at, "null");
		}
		if (*at >= len)
			*at = len - 1;
	}
}

/* Keeps text (NUL-terminated) in t's text. Returns its offset + 1, 0 for "", -1 (ENOMEM). */
static int64_t keep_text(struct rthr *t, const char *text)
{
	size_t n = strlen(text) + 1;

	if (n == 1)
		return 0;
	if (t->tn + n > UINT32_MAX || FXT_GROW(t->text, &t->tcap, t->tn + n) < 0)
		return -1;
	memcpy(t->text + t->tn, text, n);
	t->tn += (uint32_t)n;
	return t->tn - (uint32_t)n + 1;
}

/* ---- names ---- */

static struct fxt_sv name_of(struct fxt_replay *p, unsigned type, uint64_t koid)
{
	struct ckey k = { type, koid, { "", 0 } };
	int64_t i = ctab_get(&p->names, &k, 0);
	return i < 0 ? k.s : ((struct named *)ctab_at(&p->names, (uint32_t)i))->name;
}

/* Whether name matches one of the comma-separated globs of --function. */
static int name_match(struct fxt_replay *p, struct fxt_sv name)
{
	uintptr_t h = ((uintptr_t)name.s >> 3) ^ ((uintptr_t)name.s >> 13);
	char buf[512], pat[512];
	int m = 0;

	if (!p->o.glob)
		return 1;
	h &= NAME_CACHE - 1;
	if (p->cache[h].s == name.s && p->cache[h].len == name.len && name.s)
		return p->cache[h].match;
	snprintf(buf, sizeof(buf), "%.*s", (int)name.len, name.s);
	for (const char *g = p->o.glob; *g && !m;) {
		size_t n = strcspn(g, ",");
		snprintf(pat, sizeof(pat), "%.*s", (int)n, g);
		m = n && !fnmatch(pat, buf, 0);
		g += n + (g[n] == ',');
	}
	p->cache[h].s = name.s;
	p->cache[h].len = name.len;
	p->cache[h].match = m;
	return m;
}

/* ---- printing ---- */

/* Whether a before b in a thread's order: by start, the outer (later end) first, the later
 * read first (it encloses). */
static int before(const struct pend *a, const struct pend *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->end != b->end)
		return a->end > b->end;
	return a->seq > b->seq;
}

static void print_header(struct fxt_replay *p, const struct rthr *t)
{
	struct fxt_sv pn = name_of(p, FXT_OBJ_TYPE_PROCESS, t->key.a);
	struct fxt_sv tn = name_of(p, FXT_OBJ_TYPE_THREAD, t->key.b);

	fprintf(p->f, "\n== process %" PRIu64 " (%.*s), thread %" PRIu64 " (%.*s) ==\n", t->key.a,
		(int)pn.len, pn.s, t->key.b, (int)tn.len, tn.s);
	if (p->oncpu)
		fprintf(p->f, "%15s %10s %10s | %s\n", "time (s)", "duration", "on-cpu", "call");
	else
		fprintf(p->f, "%15s %10s | %s\n", "time (s)", "duration", "call");
}

/* Appends s to the line buf[*at..len), right-aligned in width columns. */
static void put_col(char *buf, size_t len, size_t *at, const char *s, size_t width)
{
	size_t n = strlen(s), pad = n < width ? width - n : 0;

	if (*at + pad + n + 1 >= len)
		return;
	memset(buf + *at, ' ', pad);
	memcpy(buf + *at + pad, s, n);
	*at += pad + n;
}

/* One line (struct fxt_replay's comment in client.h), made in p->scratch: one write. */
static void print_line(struct fxt_replay *p, const struct rthr *t, const struct pend *e,
		       unsigned depth)
{
	char ts[32], dur[32] = "", cpu[32] = "";
	const char *tail = e->tail ? t->text + e->tail - 1 : "";
	char *b = p->scratch;
	size_t len = sizeof(p->scratch), at = 0, n;

	fxt_time_fmt_stamp(ts, sizeof(ts), e->start);
	if (e->kind == L_CALL && e->end == UINT64_MAX)
		snprintf(dur, sizeof(dur), "(no end)");
	else if (e->kind == L_CALL)
		fxt_time_fmt(dur, sizeof(dur), e->end - e->start);
	if (p->oncpu && e->kind == L_CALL && e->end != UINT64_MAX)
		fxt_time_fmt(cpu, sizeof(cpu),
			     fxt_oncpu_time(p->oncpu, t->key.b, e->start, e->end));
	put_col(b, len, &at, ts, 15);
	put_col(b, len, &at, dur, 11);
	if (p->oncpu)
		put_col(b, len, &at, cpu, 11);
	put_col(b, len, &at, " | ", 0);
	n = 2 * (size_t)depth < len / 2 ? 2 * (size_t)depth : len / 2;
	memset(b + at, ' ', n);
	at += n;
	put_col(b, len, &at, e->late ? "^ " : "", 0);
	put_col(b, len, &at, line_words[e->kind], 0);
	if (e->cat.len) {
		put_sv(b, len - 1, &at, e->cat, 0);
		put_col(b, len, &at, ":", 0);
	}
	put_sv(b, len - 1, &at, e->name, 0);
	n = strlen(tail);
	if (at + n + 1 < len) {
		memcpy(b + at, tail, n);
		at += n;
	}
	b[at++] = '\n';
	fwrite(b, 1, at, p->f);
	p->st.lines++;
}

/* t's index in p->thrs + 1 (a table moves its entries as it grows: indexes stay). */
static uint32_t index_of(const struct fxt_replay *p, const struct rthr *t)
{
	return (uint32_t)(((const unsigned char *)t - p->thrs.ents) / p->thrs.esize) + 1;
}

/* Prints the events waiting in t in their order (and empties it). Returns 0 or -ENOMEM. */
static int print_thread(struct fxt_replay *p, struct rthr *t, int early)
{
	uint32_t n = 0, shown = 0;
	const struct fxt_sel *sel = p->o.sel;

	if (!t->n)
		return 0;
	if (FXT_GROW(p->stack, &p->cstack, (size_t)t->n + 1) < 0)
		return -ENOMEM;
	if (p->oncpu && p->oncpu_stale) {
		if (fxt_oncpu_finish(p->oncpu) < 0)
			return -ENOMEM;
		p->oncpu_stale = 0;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		const struct pend *e = &t->p[i];
		int base, show;
		unsigned depth;

		while (n && !(p->stack[n - 1].start <= e->start && e->end <= p->stack[n - 1].end))
			n--;
		base = n ? p->stack[n - 1].base : -1;
		if (e->kind == L_CALL && base < 0 && name_match(p, e->name))
			base = (int)n;
		depth = n - (base > 0 ? (unsigned)base : 0);
		show = (base >= 0 || !p->o.glob) && (!p->o.depth || depth < p->o.depth);
		if (e->kind == L_CALL) {
			show = show && e->end - e->start >= p->o.min_ns &&
			       (!sel || fxt_sel_span(sel, e->start, e->end));
			if (!e->late) {
				p->stack[n].start = e->start;
				p->stack[n].end = e->end;
				p->stack[n].base = base;
				n++;
			}
		} else {
			show = show && (!sel || fxt_sel_point(sel, e->start));
		}
		if (show) {
			if (!shown++ && p->shown != index_of(p, t))
				print_header(p, t);
			p->shown = index_of(p, t);
			print_line(p, t, e, depth);
		}
		if (early && e->start > t->frontier)
			t->frontier = e->start;
	}
	p->waiting -= t->n;
	t->n = 0;
	t->tn = 0;
	if (t->cap > KEEP_WAITING) {	/* what waits in all is bounded, not what waited */
		free(t->p);
		t->p = NULL;
		t->cap = 0;
	}
	if (t->tcap > KEEP_WAITING * 16) {
		free(t->text);
		t->text = NULL;
		t->tcap = 0;
	}
	if (early && !t->early) {
		t->early = 1;
		p->st.early_threads++;
		fprintf(p->f, "-- note: more than %zu events waited for the calls around them: "
			"thread %" PRIu64 " printed before those were read; each is printed when "
			"read, marked ^, and depths above count from the calls read by then "
			"(--hold)\n", p->o.hold, t->key.b);
		p->shown = 0;
	}
	if (shown || early)
		fflush(p->f);
	return 0;
}

size_t fxt_replay_event_bytes(void)
{
	return sizeof(struct pend);
}

/* Prints the thread holding the most events. Returns 0 or -ENOMEM. */
static int relieve(struct fxt_replay *p)
{
	struct rthr *most = NULL;

	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct rthr *t = ctab_at(&p->thrs, i);
		if (!most || t->n > most->n)
			most = t;
	}
	p->st.early_prints++;
	return most ? print_thread(p, most, 1) : 0;
}

/* ---- input ---- */

static struct rthr *thread_get(struct fxt_replay *p, uint64_t pid, uint64_t tid)
{
	struct ckey k = { pid, tid, { "", 0 } };
	int64_t i;

	if (p->last) {
		struct rthr *t = ctab_at(&p->thrs, p->last - 1);
		if (t->key.a == pid && t->key.b == tid)
			return t;
	}
	if ((i = ctab_get(&p->thrs, &k, 1)) < 0)
		return NULL;
	p->last = (uint32_t)i + 1;
	return ctab_at(&p->thrs, (uint32_t)i);
}

/* Adds e to t's waiting events in order, or prints it at once when it began before lines of t
 * printed early (a call around them). Returns 0 or -ENOMEM. */
static int add(struct fxt_replay *p, struct rthr *t, struct pend *e)
{
	uint32_t lo, hi;

	e->seq = t->seq++;
	if (t->early && e->kind == L_CALL && e->start < t->frontier)
		e->late = 1;
	if (FXT_GROW(t->p, &t->cap, (size_t)t->n + 1) < 0)
		return -ENOMEM;
	if (e->late) {	/* after what it encloses: the thread's events are before or in it */
		t->p[t->n++] = *e;
		p->waiting++;
		p->st.waited++;
		p->st.late++;
		return print_thread(p, t, 1);
	}
	lo = 0;
	hi = t->n;
	if (hi && before(&t->p[hi - 1], e)) {
		lo = hi;	/* the common case: after everything waiting */
	} else {
		while (lo < hi) {	/* first waiting event e goes before */
			uint32_t mid = lo + (hi - lo) / 2;
			if (before(&t->p[mid], e))
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	memmove(&t->p[lo + 1], &t->p[lo], (t->n - lo) * sizeof(*t->p));
	t->p[lo] = *e;
	t->n++;
	p->st.waited++;
	if (++p->waiting > p->o.hold)
		return relieve(p);
	return 0;
}

/* The text after a line's name: an id, the arguments. Returns its offset + 1, 0, -1 (ENOMEM). */
static int64_t tail_of(struct fxt_replay *p, struct rthr *t, const struct fxt_record *rec,
		       int with_id, const char *more)
{
	size_t at = 0;

	p->scratch[0] = 0;
	if (with_id)
		at += (size_t)snprintf(p->scratch, sizeof(p->scratch), " #%" PRIu64,
				       rec->u.event.id);
	if (more)
		at += (size_t)snprintf(p->scratch + at, sizeof(p->scratch) - at, "%s", more);
	if (at >= sizeof(p->scratch))
		at = sizeof(p->scratch) - 1;
	put_args(p->scratch, sizeof(p->scratch), &at, rec);
	return keep_text(t, p->scratch);
}

/* A begin event: waits for its end. Returns 0 or -ENOMEM. */
static int begin(struct fxt_replay *p, struct rthr *t, const struct fxt_record *rec, uint64_t ts)
{
	struct open *o;
	size_t at = 0;

	if (FXT_GROW(t->open, &t->copen, (size_t)t->nopen + 1) < 0)
		return -ENOMEM;
	o = &t->open[t->nopen];
	*o = (struct open){ ts, rec->u.event.name, rec->u.event.category, NULL };
	p->scratch[0] = 0;
	put_args(p->scratch, sizeof(p->scratch), &at, rec);
	if (at && !(o->tail = strdup(p->scratch)))
		return -ENOMEM;
	t->nopen++;
	return 0;
}

/* Whether a call [start, end] may show or enclose what shows: not wholly outside the window. */
static int near_window(const struct fxt_sel *sel, uint64_t start, uint64_t end)
{
	return !sel || (end >= sel->from_ns && start <= sel->to_ns);
}

/* An end event: the call of the innermost begin. Returns 0 or -ENOMEM. */
static int end(struct fxt_replay *p, struct rthr *t, const struct fxt_record *rec, uint64_t ts)
{
	struct open o;
	struct pend e;
	int64_t tail;

	if (!t->nopen)
		return 0;	/* its begin was not recorded */
	o = t->open[--t->nopen];
	tail = tail_of(p, t, rec, 0, o.tail ? o.tail : "");
	free(o.tail);
	if (tail < 0)
		return -ENOMEM;
	if (!near_window(p->o.sel, o.start, ts))
		return 0;
	e = (struct pend){ o.start, ts, 0, o.name, o.cat, (uint32_t)tail, L_CALL, 0 };
	return add(p, t, &e);
}

static int event(struct fxt_replay *p, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const uint8_t kinds[] = {
		[FXT_ET_INSTANT] = L_INSTANT, [FXT_ET_COUNTER] = L_COUNTER,
		[FXT_ET_ASYNC_BEGIN] = L_ASYNC_BEGIN, [FXT_ET_ASYNC_INSTANT] = L_ASYNC_INSTANT,
		[FXT_ET_ASYNC_END] = L_ASYNC_END, [FXT_ET_FLOW_BEGIN] = L_FLOW_BEGIN,
		[FXT_ET_FLOW_STEP] = L_FLOW_STEP, [FXT_ET_FLOW_END] = L_FLOW_END,
	};
	const struct fxt_koids *th = &rec->u.event.thread;
	unsigned et = rec->u.event.event_type;
	uint64_t ts = fxt_client_ns(r, rec->u.event.ts), end_ts;
	const struct fxt_sel *sel = p->o.sel;
	struct rthr *t;
	struct pend e;
	int64_t tail;

	if (et > FXT_ET_FLOW_END || (sel && !fxt_sel_thread(sel, th->pid, th->tid)) ||
	    fxt_logs_mirror(&p->logs, rec))
		return 0;
	if (!(t = thread_get(p, th->pid, th->tid)))
		return -ENOMEM;
	switch (et) {
	case FXT_ET_DURATION_BEGIN:
		return begin(p, t, rec, ts);
	case FXT_ET_DURATION_END:
		return end(p, t, rec, ts);
	case FXT_ET_DURATION_COMPLETE:
		end_ts = fxt_client_ns(r, rec->u.event.end_ts);
		if (end_ts < ts)
			end_ts = ts;
		if (!near_window(sel, ts, end_ts))
			return 0;
		if ((tail = tail_of(p, t, rec, 0, NULL)) < 0)
			return -ENOMEM;
		e = (struct pend){ ts, end_ts, 0, rec->u.event.name, rec->u.event.category,
				   (uint32_t)tail, L_CALL, 0 };
		return add(p, t, &e);
	default:
		if (sel && !fxt_sel_point(sel, ts))
			return 0;
		if ((tail = tail_of(p, t, rec, et != FXT_ET_INSTANT, NULL)) < 0)
			return -ENOMEM;
		e = (struct pend){ ts, ts, 0, rec->u.event.name, rec->u.event.category,
				   (uint32_t)tail, kinds[et], 0 };
		return add(p, t, &e);
	}
}

static int log_line(struct fxt_replay *p, const struct fxt_reader *r, const struct fxt_record *rec)
{
	const struct fxt_koids *th = &rec->u.log.thread;
	uint64_t ts = fxt_client_ns(r, rec->u.log.ts);
	struct rthr *t;
	struct pend e;
	int64_t tail;
	size_t at = 0;

	if (p->o.sel && (!fxt_sel_thread(p->o.sel, th->pid, th->tid) ||
			 !fxt_sel_point(p->o.sel, ts)))
		return 0;
	if (!(t = thread_get(p, th->pid, th->tid)))
		return -ENOMEM;
	put_sv(p->scratch, sizeof(p->scratch), &at, rec->u.log.msg, 1); /* quoted */
	if ((tail = keep_text(t, p->scratch)) < 0)
		return -ENOMEM;
	e = (struct pend){ ts, ts, 0, { "", 0 }, { "", 0 }, (uint32_t)tail, L_LOG, 0 };
	return add(p, t, &e);
}

int fxt_replay_record(struct fxt_replay *p, const struct fxt_reader *r,
		      const struct fxt_record *rec)
{
	struct ckey k = { 0, 0, { "", 0 } };
	int64_t i;
	int rc = 0;

	switch (rec->type) {
	case FXT_RT_EVENT:
		rc = event(p, r, rec);
		break;
	case FXT_RT_LOG:
		rc = fxt_logs_note(&p->logs, rec);
		if (!rc)
			rc = log_line(p, r, rec);
		break;
	case FXT_RT_KERNEL_OBJECT:
		k.a = rec->u.kobj.obj_type;
		k.b = rec->u.kobj.koid;
		if ((i = ctab_get(&p->names, &k, 1)) < 0)
			return -ENOMEM;
		((struct named *)ctab_at(&p->names, (uint32_t)i))->name = rec->u.kobj.name;
		break;
	case FXT_RT_SCHEDULING:
		if (rec->u.sched.sched_type != FXT_ST_CONTEXT_SWITCH)
			break;
		if (!p->oncpu && fxt_oncpu_new(&p->oncpu) < 0)
			return -ENOMEM;
		p->oncpu_stale = 1;
		rc = fxt_oncpu_switch(p->oncpu, &rec->u.sched.out_thread, rec->u.sched.out_state,
				      &rec->u.sched.in_thread,
				      fxt_client_ns(r, rec->u.sched.ts));
		break;
	}
	return rc;
}

static int key_cmp(const void *x, const void *y)
{
	const struct rthr *a = *(struct rthr *const *)x, *b = *(struct rthr *const *)y;

	int c = fxt_cmp_u64(a->key.a, b->key.a);

	return c ? c : fxt_cmp_u64(a->key.b, b->key.b);
}

int fxt_replay_finish(struct fxt_replay *p)
{
	struct rthr **order = malloc((p->thrs.n + 1) * sizeof(*order));
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->thrs.n; i++) {
		struct rthr *t = ctab_at(&p->thrs, i);
		/* begins never ended: calls open to the end */
		while (t->nopen && !rc) {
			struct open o = t->open[--t->nopen];
			int64_t tail = keep_text(t, o.tail ? o.tail : "");
			struct pend e = { o.start, UINT64_MAX, 0, o.name, o.cat, (uint32_t)tail,
					  L_CALL, 0 };
			free(o.tail);
			p->st.unended++;
			if (tail < 0)
				rc = -ENOMEM;
			else if (near_window(p->o.sel, o.start, UINT64_MAX))
				rc = add(p, t, &e);
		}
	}
	for (uint32_t i = 0; i < p->thrs.n; i++)
		order[i] = ctab_at(&p->thrs, i);
	if (p->thrs.n > 1)
		qsort(order, p->thrs.n, sizeof(*order), key_cmp);
	for (uint32_t i = 0; i < p->thrs.n && !rc; i++)
		rc = print_thread(p, order[i], 0);
	free(order);
	if (!rc && fflush(p->f))
		rc = -EIO;
	return rc;
}
