/* Streaming Catapult JSON (Trace Event Format) from FXT records (client.h): one JSON event per
 * event, log and process/thread kernel object record, written as the records arrive through an
 * output buffer; a name repeated for the same process or thread is written once, and the `log`
 * instant that mirrors a log record for Perfetto's FXT importer is left out. Timestamps in
 * microseconds with nanosecond precision: CLOCK_MONOTONIC by the provider's clock record
 * (docs/FORMAT.md), else ticks at its initialization record's rate. Strings are escaped for
 * JSON with invalid UTF-8 replaced by U+FFFD. Context switch records (fxtrun --sched) become, per
 * CPU, a track of process 0 ("CPUs", thread = CPU number) with one B/E slice per stretch a thread
 * ran there, and on each thread's own track an X slice "off-cpu (blocked)" or "off-cpu (preempted)"
 * from its switch out to its next switch in (a leaf under the function that was running), written
 * at the end: a thread's switches are paired in time order, not in the order read (a tracer
 * drains its per-CPU buffers in turn, so the switches of a thread that changed CPUs come out of
 * order). Memory: the buffer, the userspace object table (pointer -> label), one entry per CPU
 * and per switching thread, the selected threads' switches (client/oncpu.c, as fxt report),
 * never the other events. With a selection (fxt_json_select()): only the selected threads'
 * events, and only what lies in the window; a call (X, B/E pair, CPU slice, off-CPU slice)
 * that crosses a bound is cut at it, with an argument "clipped" (start, end or both). Cut calls
 * and calls starting exactly at the window's start are written last, sorted outermost first,
 * so that Perfetto (which orders slices of one start by duration, then as written) nests them
 * as they were: memory for them is the stacks open at the two bounds. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

#define JBUF 65536

struct uobj {
	struct ckey key; /* a = process koid, b = pointer */
	struct fxt_sv name;
};

/* Per thread, the arguments of the begin events not yet ended: an end event repeats its
 * begin's arguments, so viewers that key slices by name and arguments pair them. */
struct open_args {
	struct ckey key; /* a = pid, b = tid */
	struct fxt_arg *args;
	struct opened {
		uint64_t begin;		/* ns */
		struct fxt_sv name, cat;
		uint8_t nargs;		/* its arguments: the last ones of args */
	} *frames;
	uint32_t nargs, depth;
	size_t cargs, cdepth;	/* room in args, in frames */
};

/* A cut call (or one starting at the window's start), written at the end. */
struct late {
	uint64_t pid, tid, ts, dur, start, end, seq;	/* start, end: before the cut */
	char *text;	/* the event, without the comma before it */
	size_t len;
};

/* The name last written for a process or thread (a = kernel object type, b = koid). */
struct kname {
	struct ckey key;
	struct fxt_sv name;
};

/* Context switches: per CPU (a = 1, b = cpu) the thread running there (tid, 0 = none); per
 * thread (a = 2, b = tid) its process. */
struct swstate {
	struct ckey key;
	uint64_t tid, pid;
	uint64_t in_ns;		/* CPU: when tid was switched in */
	int begun;		/* CPU: its slice's begin was written (in the window) */
};

struct fxt_json {
	FILE *f;
	size_t pos;
	int err, started;
	uint64_t events;
	struct ctab uobjs, open, knames, sw;
	struct fxt_oncpu *oncpu;	/* the selected threads' switches, or NULL before any */
	struct fxt_logs logs;	/* log records, so that their mirror instants are left out */
	struct fxt_koids last;	/* thread of the last event and its rendered pid/tid */
	char where[64];
	size_t where_len;
	struct fxt_record scratch; /* an end event's arguments, taken from its begin */
	const struct fxt_sel *sel;	/* or NULL: everything */
	struct late *late;	/* cut calls, written at the end */
	size_t nlate, clate;
	struct { char *s; size_t n, cap; } capture;	/* an event being kept for later */
	int capturing;
	char buf[JBUF];
};

int fxt_json_new(struct fxt_json **out, FILE *f)
{
	struct fxt_json *j = calloc(1, sizeof(*j));	/* every table empty, no selection */

	if (!j)
		return -ENOMEM;
	j->f = f;
	ctab_init(&j->uobjs, sizeof(struct uobj));
	ctab_init(&j->open, sizeof(struct open_args));
	ctab_init(&j->knames, sizeof(struct kname));
	ctab_init(&j->sw, sizeof(struct swstate));
	fxt_logs_init(&j->logs);
	*out = j;
	return 0;
}

static void open_args_drop(void *entry)
{
	struct open_args *o = entry;
	free(o->args);
	free(o->frames);
}

void fxt_json_free(struct fxt_json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nlate; i++)
		free(j->late[i].text);
	free(j->late);
	free(j->capture.s);
	fxt_oncpu_free(j->oncpu);
	ctab_free_each(&j->open, open_args_drop);
	ctab_free(&j->uobjs);
	ctab_free(&j->knames);
	ctab_free(&j->sw);
	fxt_logs_free(&j->logs);
	free(j);
}

uint64_t fxt_json_events(const struct fxt_json *j)
{
	return j->events;
}

void fxt_json_select(struct fxt_json *j, const struct fxt_sel *sel)
{
	j->sel = sel;
}

static void flush(struct fxt_json *j)
{
	if (j->capturing && j->pos) {	/* into the event being kept */
		if (FXT_GROW(j->capture.s, &j->capture.cap, j->capture.n + j->pos) < 0) {
			j->err = -ENOMEM;
			j->pos = 0;
			return;
		}
		memcpy(j->capture.s + j->capture.n, j->buf, j->pos);
		j->capture.n += j->pos;
	} else if (j->pos && fwrite(j->buf, 1, j->pos, j->f) != j->pos) {
		j->err = -EIO;
	}
	j->pos = 0;
}

/* Makes room for n more bytes (n <= JBUF). */
static inline char *room(struct fxt_json *j, size_t n)
{
	if (j->pos + n > JBUF)
		flush(j);
	return j->buf + j->pos;
}

static void put_slow(struct fxt_json *j, const char *s, size_t n)
{
	while (n) {
		size_t c = n < JBUF / 2 ? n : JBUF / 2;
		memcpy(room(j, c), s, c);
		j->pos += c;
		s += c;
		n -= c;
	}
}

/* Inline so that constant-size copies become a few moves. */
static inline void put(struct fxt_json *j, const char *s, size_t n)
{
	if (__builtin_expect(n <= JBUF - j->pos, 1)) {
		memcpy(j->buf + j->pos, s, n);
		j->pos += n;
	} else {
		put_slow(j, s, n);
	}
}

#define PUTS(j, lit) put(j, lit, sizeof(lit) - 1)

static void put_u64(struct fxt_json *j, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
				    "31323334353637383940414243444546474849505152535455565758596061"
				    "62636465666768697071727374757677787980818283848586878889909192"
				    "93949596979899";
	char tmp[20], *e = tmp + sizeof(tmp), *p = e;

	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + v % 100 * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	memcpy(room(j, 20), p, (size_t)(e - p));
	j->pos += (size_t)(e - p);
}

static void put_i64(struct fxt_json *j, int64_t v)
{
	if (v < 0) {
		PUTS(j, "-");
		put_u64(j, -(uint64_t)v);
	} else {
		put_u64(j, (uint64_t)v);
	}
}

static void put_hex(struct fxt_json *j, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "\"0x%llx\"", (unsigned long long)v);
	put(j, tmp, (size_t)n);
}

static void put_double(struct fxt_json *j, double v)
{
	char tmp[32];
	int n;

	if (!isfinite(v)) {
		PUTS(j, "null");
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	put(j, tmp, (size_t)n);
}

/* Microseconds with three decimals: 1234567 ns -> 1234.567 */
static void put_us(struct fxt_json *j, uint64_t ns)
{
	char *p;
	unsigned r = (unsigned)(ns % 1000);

	put_u64(j, ns / 1000);
	p = room(j, 4);
	p[0] = '.';
	p[1] = (char)('0' + r / 100);
	p[2] = (char)('0' + r / 10 % 10);
	p[3] = (char)('0' + r % 10);
	j->pos += 4;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is invalid. */
static unsigned utf8_len(const unsigned char *s, size_t n)
{
	unsigned len, cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (unsigned i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_str(struct fxt_json *j, struct fxt_sv sv)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)sv.s;
	size_t n = sv.len, i = 0;

	PUTS(j, "\"");
	while (i < n) {
		size_t run = i;
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		put(j, (const char *)s + i, run - i);
		i = run;
		if (i >= n)
			break;
		if (s[i] >= 0x80) {
			unsigned l = utf8_len(s + i, n - i);
			if (l) {
				put(j, (const char *)s + i, l);
				i += l;
			} else {
				PUTS(j, "\\ufffd");
				i++;
			}
			continue;
		}
		char *p = room(j, 6);
		switch (s[i]) {
		case '"': memcpy(p, "\\\"", 2); j->pos += 2; break;
		case '\\': memcpy(p, "\\\\", 2); j->pos += 2; break;
		case '\n': memcpy(p, "\\n", 2); j->pos += 2; break;
		case '\t': memcpy(p, "\\t", 2); j->pos += 2; break;
		case '\r': memcpy(p, "\\r", 2); j->pos += 2; break;
		default:
			memcpy(p, "\\u00", 4);
			p[4] = hex[s[i] >> 4];
			p[5] = hex[s[i] & 15];
			j->pos += 6;
		}
		i++;
	}
	PUTS(j, "\"");
}

static int is_numeric(unsigned type)
{
	return type == FXT_AT_INT32 || type == FXT_AT_UINT32 || type == FXT_AT_INT64 ||
	       type == FXT_AT_UINT64 || type == FXT_AT_DOUBLE;
}

static void put_value(struct fxt_json *j, uint64_t pid, const struct fxt_arg *a)
{
	switch (a->type) {
	case FXT_AT_INT32:
	case FXT_AT_INT64: put_i64(j, a->v.i64); break;
	case FXT_AT_UINT32:
	case FXT_AT_UINT64:
	case FXT_AT_KOID: put_u64(j, a->v.u64); break;
	case FXT_AT_DOUBLE: put_double(j, a->v.dbl); break;
	case FXT_AT_STRING: put_str(j, a->v.str); break;
	case FXT_AT_BOOL: put(j, a->v.boolean ? "true" : "false", a->v.boolean ? 4 : 5); break;
	case FXT_AT_POINTER: {
		struct ckey k = { pid, a->v.u64, { "", 0 } };
		int64_t i = ctab_get(&j->uobjs, &k, 0);
		if (i < 0) {
			put_hex(j, a->v.u64);
			break;
		}
		PUTS(j, "{\"pointer\":");
		put_hex(j, a->v.u64);
		PUTS(j, ",\"name\":");
		put_str(j, ((struct uobj *)ctab_at(&j->uobjs, (uint32_t)i))->name);
		PUTS(j, "}");
		break;
	}
	default: PUTS(j, "null");
	}
}

/* Writes ,"args":{...} with the arguments of rec kept by want (all when want is NULL), those
 * of more (NULL: none) and the member extra ("name":value, or NULL). */
static void put_args(struct fxt_json *j, const struct fxt_record *rec, uint64_t pid,
		     int (*want)(const struct fxt_arg *), const struct fxt_record *more,
		     const char *extra)
{
	unsigned n = rec->nargs + (more ? more->nargs : 0);
	int first = 1;

	if (extra) {
		PUTS(j, ",\"args\":{");
		put(j, extra, strlen(extra));
		first = 0;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct fxt_arg *a = i < rec->nargs ? &rec->args[i]
							 : &more->args[i - rec->nargs];
		if (want && !want(a))
			continue;
		if (first)
			PUTS(j, ",\"args\":{");
		else
			PUTS(j, ",");
		first = 0;
		put_str(j, a->name);
		PUTS(j, ":");
		put_value(j, pid, a);
	}
	if (!first)
		PUTS(j, "}");
}

static int want_series(const struct fxt_arg *a)
{
	return is_numeric(a->type);
}

static int is_scope_arg(const struct fxt_arg *a)
{
	return a->type == FXT_AT_STRING && a->name.len == 5 && !memcmp(a->name.s, "scope", 5);
}

static int want_not_scope(const struct fxt_arg *a)
{
	return !is_scope_arg(a);
}

/* Instant scope from a "scope" argument: global/g, process/p, else thread. */
static char instant_scope(const struct fxt_record *rec)
{
	for (unsigned i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];
		if (is_scope_arg(a) && a->v.str.len)
			return a->v.str.s[0] == 'g' ? 'g' : a->v.str.s[0] == 'p' ? 'p' : 't';
	}
	return 't';
}

static void begin_event(struct fxt_json *j, struct fxt_sv name, struct fxt_sv cat, char ph)
{
	if (j->events && !j->capturing)
		PUTS(j, ",");
	PUTS(j, "\n{\"name\":");
	j->events += !j->capturing;
	put_str(j, name);
	PUTS(j, ",\"cat\":");
	put_str(j, cat);
	PUTS(j, ",\"ph\":\"");
	put(j, &ph, 1);
	PUTS(j, "\"");
}

static void put_where(struct fxt_json *j, uint64_t ts_ns, const struct fxt_koids *k)
{
	PUTS(j, ",\"ts\":");
	put_us(j, ts_ns);
	if (k->pid != j->last.pid || k->tid != j->last.tid || !j->where_len) {
		int n = snprintf(j->where, sizeof(j->where), ",\"pid\":%llu,\"tid\":%llu",
				 (unsigned long long)k->pid, (unsigned long long)k->tid);
		j->where_len = (size_t)n;
		j->last = *k;
	}
	put(j, j->where, j->where_len);
}

/* Begin: keeps a copy of its arguments on the thread's stack, with its time (ns) or-ed with
 * name and category. */
static int push_args(struct fxt_json *j, const struct fxt_record *rec, uint64_t begin)
{
	struct open_args *o = ctab_ids(&j->open, rec->u.event.thread.pid, rec->u.event.thread.tid, 1);

	if (!o || FXT_GROW(o->frames, &o->cdepth, (size_t)o->depth + 1) < 0 ||
	    FXT_GROW(o->args, &o->cargs, (size_t)o->nargs + rec->nargs) < 0)
		return -ENOMEM;
	if (rec->nargs)
		memcpy(o->args + o->nargs, rec->args, rec->nargs * sizeof(*o->args));
	o->nargs += rec->nargs;
	o->frames[o->depth++] = (struct opened){ begin, rec->u.event.name, rec->u.event.category,
						 (uint8_t)rec->nargs };
	return 0;
}

/* End: the arguments of the matching begin (none when there was no begin). Returns the
 * begin's time (ns), UINT64_MAX without a begin. */
static uint64_t pop_args(struct fxt_json *j, const struct fxt_record *rec, struct fxt_record *out)
{
	struct open_args *o = ctab_ids(&j->open, rec->u.event.thread.pid, rec->u.event.thread.tid, 0);

	out->nargs = 0;
	if (!o || !o->depth)
		return UINT64_MAX;
	out->nargs = o->frames[--o->depth].nargs;
	o->nargs -= out->nargs;
	if (out->nargs)
		memcpy(out->args, o->args + o->nargs, out->nargs * sizeof(*o->args));
	return o->frames[o->depth].begin;
}

/* The "clipped" argument of a call cut at the window's start, end or both (NULL: not cut). */
static const char *clip_arg(int at_start, int at_end)
{
	return at_start ? (at_end ? "\"clipped\":\"both\"" : "\"clipped\":\"start\"")
			: at_end ? "\"clipped\":\"end\"" : NULL;
}

/* From here on events are kept for the end of the document instead of written. */
static void capture_start(struct fxt_json *j)
{
	flush(j);
	j->capturing = 1;
	j->capture.n = 0;
}

/* Keeps the event captured since capture_start() as a late one (pid, tid, its time and
 * duration as written, its interval before the cut). Returns 0 or -ENOMEM. */
static int capture_end(struct fxt_json *j, const struct fxt_koids *k, uint64_t ts, uint64_t dur,
		       uint64_t start, uint64_t end)
{
	struct late *l;
	char *text;

	flush(j);
	j->capturing = 0;
	if (j->err)
		return j->err;
	if (FXT_GROW(j->late, &j->clate, j->nlate + 1) < 0 || !(text = malloc(j->capture.n)))
		return -ENOMEM;
	memcpy(text, j->capture.s, j->capture.n);
	l = &j->late[j->nlate];
	*l = (struct late){ k->pid, k->tid, ts, dur, start, end, j->nlate, text, j->capture.n };
	j->nlate++;
	return 0;
}

/* Order of late events: by thread, time, the longer first, then the outer one first (as it
 * was before the cut; of one interval the later read). */
static int late_cmp(const void *x, const void *y)
{
	const struct late *a = x, *b = y;
	const uint64_t ka[] = { a->pid, a->tid, a->ts, UINT64_MAX - a->dur, a->start,
				UINT64_MAX - a->end, UINT64_MAX - a->seq };
	const uint64_t kb[] = { b->pid, b->tid, b->ts, UINT64_MAX - b->dur, b->start,
				UINT64_MAX - b->end, UINT64_MAX - b->seq };

	int c = 0;

	for (unsigned i = 0; !c && i < sizeof(ka) / sizeof(ka[0]); i++)
		c = fxt_cmp_u64(ka[i], kb[i]);
	return c;
}

static int event(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const char ph[] = { 'i', 'C', 'B', 'E', 'X', 'b', 'n', 'e', 's', 't', 'f' };
	const struct fxt_sel *sel = j->sel;
	const struct fxt_koids *k = &rec->u.event.thread;
	unsigned et = rec->u.event.event_type;
	uint64_t ts = fxt_client_ns(r, rec->u.event.ts), start = ts, end = ts, begun = 0;
	uint64_t uncut = ts;	/* a call's end before the cut */
	int (*want)(const struct fxt_arg *) = NULL;
	const char *clip = NULL;
	char ph_out = 0;	/* 'X' for a begin/end pair written as one call */
	int keep = 0;

	if (et >= sizeof(ph) || (sel && !fxt_sel_thread(sel, k->pid, k->tid)))
		return 0;
	switch (et) {
	case FXT_ET_DURATION_BEGIN:
		if (push_args(j, rec, ts) < 0)
			return -ENOMEM;
		if (sel)
			return 0;	/* in a window: one X when it ends (or at the end) */
		break;
	case FXT_ET_DURATION_END:
		begun = pop_args(j, rec, &j->scratch);
		if (!sel)
			break;
		if (begun == UINT64_MAX)
			return 0;	/* no begin: nothing to place */
		ph_out = 'X';
		start = ts = begun;
		end = fxt_client_ns(r, rec->u.event.ts);
		goto call;
	case FXT_ET_DURATION_COMPLETE:
		end = fxt_client_ns(r, rec->u.event.end_ts);
	call:
		if (end < ts)
			end = ts;
		uncut = end;
		if (!sel)
			break;
		if (end < sel->from_ns || ts > sel->to_ns)
			return 0;
		clip = clip_arg(ts < sel->from_ns, end > sel->to_ns);
		keep = clip || (ts == sel->from_ns && sel->since.set);
		ts = ts < sel->from_ns ? sel->from_ns : ts;
		end = end > sel->to_ns ? sel->to_ns : end;
		break;
	default:
		if (sel && !fxt_sel_point(sel, ts))
			return 0;
	}
	if (keep)
		capture_start(j);
	begin_event(j, rec->u.event.name, rec->u.event.category, ph_out ? ph_out : ph[et]);
	put_where(j, ts, k);
	switch (et) {
	case FXT_ET_INSTANT:
		PUTS(j, ",\"s\":\"");
		put(j, (char[]){ instant_scope(rec) }, 1);
		PUTS(j, "\"");
		want = want_not_scope;
		break;
	case FXT_ET_COUNTER:
		if (rec->u.event.id) {
			PUTS(j, ",\"id\":");
			put_hex(j, rec->u.event.id);
		}
		want = want_series;
		break;
	case FXT_ET_DURATION_END:	/* in a window, a begin/end pair is one call */
	case FXT_ET_DURATION_COMPLETE:
		if (et == FXT_ET_DURATION_COMPLETE || ph_out) {
			PUTS(j, ",\"dur\":");
			put_us(j, end - ts);
		}
		break;
	case FXT_ET_FLOW_STEP:
	case FXT_ET_FLOW_END:
		PUTS(j, ",\"bp\":\"e\"");
		/* fall through */
	case FXT_ET_ASYNC_BEGIN:
	case FXT_ET_ASYNC_INSTANT:
	case FXT_ET_ASYNC_END:
	case FXT_ET_FLOW_BEGIN:
		PUTS(j, ",\"id\":");
		put_hex(j, rec->u.event.id);
		break;
	}
	if (ph_out)	/* the begin's arguments, then the end's */
		put_args(j, &j->scratch, k->pid, NULL, rec, clip);
	else if (et == FXT_ET_DURATION_END && !rec->nargs)
		put_args(j, &j->scratch, k->pid, NULL, NULL, clip);
	else
		put_args(j, rec, k->pid, want, NULL, clip);
	PUTS(j, "}");
	return keep ? capture_end(j, k, ts, end - ts, start, uncut) : 0;
}

/* Returns 0, or -ENOMEM. */
static int kernel_object(struct fxt_json *j, const struct fxt_record *rec)
{
	static const struct fxt_sv cat = { "__metadata", 10 };
	uint64_t pid = rec->u.kobj.koid, tid = 0;
	int thread = rec->u.kobj.obj_type == FXT_OBJ_TYPE_THREAD;
	struct ckey k = { rec->u.kobj.obj_type, rec->u.kobj.koid, { "", 0 } };
	struct kname *kn;
	int64_t i;

	if (rec->u.kobj.obj_type != FXT_OBJ_TYPE_PROCESS && !thread)
		return 0;
	if (j->sel && !thread && !fxt_sel_process(j->sel, pid))
		return 0;	/* a process not selected: no track of its own */
	if ((i = ctab_get(&j->knames, &k, 1)) < 0)
		return -ENOMEM;
	kn = ctab_at(&j->knames, (uint32_t)i);
	if (kn->name.s && sv_eq(kn->name, rec->u.kobj.name))
		return 0; /* the same name again (the manager's record and the process's own) */
	kn->name = rec->u.kobj.name;
	if (thread) {
		tid = rec->u.kobj.koid;
		pid = 0;
		for (unsigned i = 0; i < rec->nargs; i++)
			if (rec->args[i].type == FXT_AT_KOID && rec->args[i].name.len == 7 &&
			    !memcmp(rec->args[i].name.s, "process", 7))
				pid = rec->args[i].v.u64;
	}
	if (thread && j->sel && !fxt_sel_thread(j->sel, pid, tid))
		return 0;
	if (thread) {
		struct ckey sk = { 2, tid, { "", 0 } };
		int64_t si = ctab_get(&j->sw, &sk, 1);
		if (si < 0)
			return -ENOMEM;
		((struct swstate *)ctab_at(&j->sw, (uint32_t)si))->pid = pid;
	}
	begin_event(j, thread ? (struct fxt_sv){ "thread_name", 11 }
			      : (struct fxt_sv){ "process_name", 12 }, cat, 'M');
	put_where(j, 0, &(struct fxt_koids){ pid, tid });
	PUTS(j, ",\"args\":{\"name\":");
	put_str(j, rec->u.kobj.name);
	PUTS(j, "}}");
	return 0;
}

static struct swstate *sw_get(struct fxt_json *j, uint64_t a, uint64_t b, int *created)
{
	struct ckey k = { a, b, { "", 0 } };
	uint32_t n = j->sw.n;
	int64_t i = ctab_get(&j->sw, &k, 1);
	if (i < 0)
		return NULL;
	*created = j->sw.n != n;
	return ctab_at(&j->sw, (uint32_t)i);
}

static const struct fxt_sv sched_cat = { "sched", 5 };

/* Writes the begin of CPU cpu's slice of thread tid (of process pid) at ts. */
static void cpu_begin(struct fxt_json *j, unsigned cpu, uint64_t ts, uint64_t pid, uint64_t tid,
		      const char *clip)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "tid %llu", (unsigned long long)tid);

	begin_event(j, (struct fxt_sv){ buf, (size_t)n }, sched_cat, 'B');
	put_where(j, ts, &(struct fxt_koids){ 0, cpu });
	PUTS(j, ",\"args\":{\"pid\":");
	put_u64(j, pid);
	PUTS(j, ",\"tid\":");
	put_u64(j, tid);
	if (clip) {
		PUTS(j, ",");
		put(j, clip, strlen(clip));
	}
	PUTS(j, "}}");
}

/* Ends CPU cpu's slice (c) at ts, as much of it as lies in the window; state: how its thread
 * left (NULL: a switch out was lost). */
static void cpu_end(struct fxt_json *j, struct swstate *c, unsigned cpu, uint64_t ts,
		    const char *state)
{
	const struct fxt_sel *sel = j->sel;
	const char *clip = NULL;

	if (!c->begun) {
		if (!sel || c->in_ns > sel->to_ns || ts < sel->from_ns) {
			c->tid = 0;
			return;
		}
		cpu_begin(j, cpu, sel->from_ns, c->pid, c->tid, clip_arg(1, 0));
	}
	if (sel && ts > sel->to_ns) {
		ts = sel->to_ns;
		clip = clip_arg(0, 1);
	}
	begin_event(j, (struct fxt_sv){ "", 0 }, sched_cat, 'E');
	put_where(j, ts, &(struct fxt_koids){ 0, cpu });
	if (state || clip) {
		PUTS(j, ",\"args\":{");
		if (state) {
			PUTS(j, "\"end_state\":\"");
			put(j, state, strlen(state));
			PUTS(j, "\"");
		}
		if (clip) {
			if (state)
				PUTS(j, ",");
			put(j, clip, strlen(clip));
		}
		PUTS(j, "}");
	}
	PUTS(j, "}");
	c->tid = 0;
}

/* Thread tid's slice off CPU [from, to] after a switch out in state, as much of it as lies in
 * the window. */
static void off_cpu(struct fxt_json *j, uint64_t pid, uint64_t tid, uint32_t state,
		    uint64_t from, uint64_t to)
{
	const char *what = state == FXT_THREAD_STATE_RUNNING ? "off-cpu (preempted)"
							      : "off-cpu (blocked)";
	const struct fxt_sel *sel = j->sel;
	const char *clip = NULL;

	if (sel) {
		if (to < sel->from_ns || from > sel->to_ns)
			return;
		clip = clip_arg(from < sel->from_ns, to > sel->to_ns);
		from = from < sel->from_ns ? sel->from_ns : from;
		to = to > sel->to_ns ? sel->to_ns : to;
	}
	begin_event(j, (struct fxt_sv){ what, strlen(what) }, sched_cat, 'X');
	put_where(j, from, &(struct fxt_koids){ pid, tid });
	PUTS(j, ",\"dur\":");
	put_us(j, to - from);
	if (clip) {
		PUTS(j, ",\"args\":{");
		put(j, clip, strlen(clip));
		PUTS(j, "}");
	}
	PUTS(j, "}");
}

/* tid when it is a selected thread, else 0 (not a thread of the trace). Returns -1 (ENOMEM). */
static int64_t sw_thread(struct fxt_json *j, uint64_t tid)
{
	int created;
	struct swstate *t;

	if (!tid || !j->sel || !fxt_sel_threads(j->sel))
		return (int64_t)tid;
	if (!(t = sw_get(j, 2, tid, &created)))
		return -1;
	return fxt_sel_thread(j->sel, t->pid, tid) ? (int64_t)tid : 0;
}

/* One context switch record: the CPU track's slices; the switches of selected threads are kept
 * for their off-CPU slices (off_cpu_all()). */
static int cswitch(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t ts = fxt_client_ns(r, rec->u.sched.ts);
	int64_t out = sw_thread(j, rec->u.sched.out_thread.tid);
	int64_t in = sw_thread(j, rec->u.sched.in_thread.tid);
	unsigned cpu = rec->u.sched.cpu;
	int created;
	struct swstate *c, *t;
	char buf[64];

	if (out < 0 || in < 0)
		return -ENOMEM;
	if (!out && !in)
		return 0;
	if ((!j->oncpu && fxt_oncpu_new(&j->oncpu) < 0) ||
	    fxt_oncpu_switch(j->oncpu, &(struct fxt_koids){ 0, (uint64_t)out },
			     rec->u.sched.out_state, &(struct fxt_koids){ 0, (uint64_t)in }, ts) < 0)
		return -ENOMEM;
	if (!(c = sw_get(j, 1, cpu, &created)))
		return -ENOMEM;
	if (created) {
		int n = snprintf(buf, sizeof(buf), "CPU %u", cpu);
		if (!sw_get(j, 1, UINT64_MAX, &created))
			return -ENOMEM;
		if (created) {	/* UINT64_MAX: the CPUs process is named */
			begin_event(j, (struct fxt_sv){ "process_name", 12 },
				    (struct fxt_sv){ "__metadata", 10 }, 'M');
			put_where(j, 0, &(struct fxt_koids){ 0, 0 });
			PUTS(j, ",\"args\":{\"name\":\"CPUs\"}}");
		}
		begin_event(j, (struct fxt_sv){ "thread_name", 11 },
			    (struct fxt_sv){ "__metadata", 10 }, 'M');
		put_where(j, 0, &(struct fxt_koids){ 0, cpu });
		PUTS(j, ",\"args\":{\"name\":");
		put_str(j, (struct fxt_sv){ buf, (size_t)n });
		PUTS(j, "}}");
		c = sw_get(j, 1, cpu, &created);
	}
	if (out && c->tid == (uint64_t)out)
		cpu_end(j, c, cpu, ts, rec->u.sched.out_state == 1 ? "preempted" : "blocked");
	if (in) {
		/* the thread first: creating it may move the CPU's entry (which exists) */
		if (!(t = sw_get(j, 2, (uint64_t)in, &created)) || !(c = sw_get(j, 1, cpu, &created)))
			return -ENOMEM;
		t = sw_get(j, 2, (uint64_t)in, &created);
		if (c->tid)	/* a switch out was lost: close the CPU's slice here */
			cpu_end(j, c, cpu, ts, NULL);
		c->tid = (uint64_t)in;
		c->pid = t->pid;
		c->in_ns = ts;
		c->begun = !j->sel || fxt_sel_point(j->sel, ts);
		if (c->begun)
			cpu_begin(j, cpu, ts, t->pid, (uint64_t)in, NULL);
	}
	return 0;
}

static void log_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const struct fxt_sv log = { "log", 3 };
	uint64_t ts = fxt_client_ns(r, rec->u.log.ts);

	if (j->sel && (!fxt_sel_thread(j->sel, rec->u.log.thread.pid, rec->u.log.thread.tid) ||
		       !fxt_sel_point(j->sel, ts)))
		return;
	begin_event(j, log, log, 'i');
	put_where(j, ts, &rec->u.log.thread);
	PUTS(j, ",\"s\":\"t\",\"args\":{\"message\":");
	put_str(j, rec->u.log.msg);
	PUTS(j, "}}");
}

int fxt_json_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	if (!j->started++)
		PUTS(j, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	switch (rec->type) {
	case FXT_RT_EVENT: {
		int rc = fxt_logs_mirror(&j->logs, rec) ? 0 : event(j, r, rec);
		if (rc < 0)
			return rc;
		break;
	}
	case FXT_RT_KERNEL_OBJECT:
		if (kernel_object(j, rec) < 0)
			return -ENOMEM;
		break;
	case FXT_RT_SCHEDULING:
		if (rec->u.sched.sched_type == FXT_ST_CONTEXT_SWITCH && cswitch(j, r, rec) < 0)
			return -ENOMEM;
		break;
	case FXT_RT_LOG:
		if (fxt_logs_note(&j->logs, rec) < 0)
			return -ENOMEM;
		log_record(j, r, rec);
		break;
	case FXT_RT_USERSPACE_OBJECT: {
		struct ckey k = { rec->u.uobj.process_koid, rec->u.uobj.pointer, { "", 0 } };
		int64_t i = ctab_get(&j->uobjs, &k, 1);
		if (i < 0)
			return -ENOMEM;
		((struct uobj *)ctab_at(&j->uobjs, (uint32_t)i))->name = rec->u.uobj.name;
		break;
	}
	}
	return j->err;
}

/* In a window: the begins never ended, as calls cut at the window's end (kept late) or, without
 * an end, as begins (outermost first: before the late calls of their start). Returns 0 or
 * -ENOMEM. */
static int never_ended(struct fxt_json *j)
{
	const struct fxt_sel *sel = j->sel;

	for (uint32_t i = 0; i < j->open.n; i++) {
		struct open_args *o = ctab_at(&j->open, i);
		struct fxt_koids k = { o->key.a, o->key.b };
		uint32_t at = 0;
		for (uint32_t d = 0; d < o->depth; at += o->frames[d++].nargs) {
			const struct opened *f = &o->frames[d];
			uint64_t ts = f->begin < sel->from_ns ? sel->from_ns : f->begin;
			if (f->begin > sel->to_ns)
				continue;
			j->scratch.nargs = f->nargs;
			memcpy(j->scratch.args, o->args + at, f->nargs * sizeof(*o->args));
			if (sel->until.set)
				capture_start(j);
			begin_event(j, f->name, f->cat, sel->until.set ? 'X' : 'B');
			put_where(j, ts, &k);
			if (sel->until.set) {
				PUTS(j, ",\"dur\":");
				put_us(j, sel->to_ns - ts);
			}
			put_args(j, &j->scratch, k.pid, NULL, NULL,
				 clip_arg(f->begin < sel->from_ns, sel->until.set));
			PUTS(j, "}");
			if (sel->until.set &&
			    capture_end(j, &k, ts, sel->to_ns - ts, f->begin, UINT64_MAX) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Every selected thread's off-CPU slices, each from a switch out to the thread's next switch in
 * by time. Written after the late calls: a call cut to the same interval encloses it. Returns 0
 * or -ENOMEM. */
static int off_cpu_all(struct fxt_json *j)
{
	if (!j->oncpu)
		return 0;
	if (fxt_oncpu_finish(j->oncpu) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < fxt_oncpu_threads(j->oncpu); i++) {
		uint64_t tid;
		size_t n;
		int created;
		const struct fxt_offstretch *off = fxt_oncpu_stretches(j->oncpu, i, &tid, &n);
		const struct swstate *t = sw_get(j, 2, tid, &created);
		if (!t)
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			off_cpu(j, t->pid, tid, off[k].state, off[k].start, off[k].end);
	}
	return 0;
}

int fxt_json_finish(struct fxt_json *j)
{
	if (!j->started++)
		PUTS(j, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	if (j->sel && never_ended(j) < 0)
		return -ENOMEM;
	if (j->nlate > 1)
		qsort(j->late, j->nlate, sizeof(*j->late), late_cmp);
	for (size_t i = 0; i < j->nlate; i++) {
		if (j->events++)
			PUTS(j, ",");
		put(j, j->late[i].text, j->late[i].len);
	}
	if (off_cpu_all(j) < 0)
		return -ENOMEM;
	PUTS(j, "\n]}\n");
	flush(j);
	if (fflush(j->f))
		j->err = -EIO;
	return j->err;
}
