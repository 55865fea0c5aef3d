/* Streaming Catapult JSON (Trace Event Format) from FXT records (client.h): one JSON event per
 * event, log and process/thread kernel object record, written as the records arrive through an
 * output buffer; a name repeated for the same process or thread is written once, and the `log`
 * instant that mirrors a log record for Perfetto's FXT importer is left out. Timestamps in
 * microseconds with nanosecond precision: CLOCK_MONOTONIC by the provider's clock record
 * (docs/FORMAT.md), else ticks at its initialization record's rate. Strings are escaped for
 * JSON with invalid UTF-8 replaced by U+FFFD. Context switch records (fxtrun --sched) become, per
 * CPU, a track of process 0 ("CPUs", thread = CPU number) with one B/E slice per stretch a thread
 * ran there, and on each thread's own track an X slice "off-cpu (blocked)" or "off-cpu (preempted)"
 * from its switch out to its switch in (a leaf under the function that was running). Memory: the
 * buffer, the userspace object table (pointer -> label), one entry per CPU and per switching
 * thread, never the events. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "writer/fields.h"

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
	uint8_t *counts;
	uint32_t nargs, cargs, depth, cdepth;
};

/* The name last written for a process or thread (a = kernel object type, b = koid). */
struct kname {
	struct ckey key;
	struct fxt_sv name;
};

/* Context switches: per CPU (a = 1, b = cpu) the thread running there (tid, 0 = none); per
 * thread (a = 2, b = tid) its process and its last switch out (ts, 0 = on CPU). */
struct swstate {
	struct ckey key;
	uint64_t tid, pid, out_ns;
	unsigned state;
};

struct fxt_json {
	FILE *f;
	size_t pos;
	int err, started;
	uint64_t events;
	struct ctab uobjs, open, knames, sw;
	struct fxt_record last_log; /* type FXT_RT_LOG when the previous record was a log record */
	struct fxt_koids last;	/* thread of the last event and its rendered pid/tid */
	char where[64];
	size_t where_len;
	struct fxt_record scratch; /* an end event's arguments, taken from its begin */
	char buf[JBUF];
};

int fxt_json_new(struct fxt_json **out, FILE *f)
{
	struct fxt_json *j = malloc(sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->f = f;
	j->pos = 0;
	j->err = 0;
	j->started = 0;
	j->where_len = 0;
	j->last = (struct fxt_koids){ 0, 0 };
	j->events = 0;
	if (ctab_init(&j->uobjs, sizeof(struct uobj))) {
		free(j);
		return -ENOMEM;
	}
	if (ctab_init(&j->open, sizeof(struct open_args))) {
		ctab_free(&j->uobjs);
		free(j);
		return -ENOMEM;
	}
	if (ctab_init(&j->knames, sizeof(struct kname)) || ctab_init(&j->sw, sizeof(struct swstate))) {
		ctab_free(&j->knames);
		ctab_free(&j->open);
		ctab_free(&j->uobjs);
		free(j);
		return -ENOMEM;
	}
	j->last_log.type = FXT_RT_METADATA;
	*out = j;
	return 0;
}

void fxt_json_free(struct fxt_json *j)
{
	if (!j)
		return;
	for (uint32_t i = 0; i < j->open.n; i++) {
		struct open_args *o = ctab_at(&j->open, i);
		free(o->args);
		free(o->counts);
	}
	ctab_free(&j->open);
	ctab_free(&j->uobjs);
	ctab_free(&j->knames);
	ctab_free(&j->sw);
	free(j);
}

uint64_t fxt_json_events(const struct fxt_json *j)
{
	return j->events;
}

static void flush(struct fxt_json *j)
{
	if (j->pos && fwrite(j->buf, 1, j->pos, j->f) != j->pos)
		j->err = -EIO;
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

/* Writes ,"args":{...} with the arguments kept by want (all when want is NULL). */
static void put_args(struct fxt_json *j, const struct fxt_record *rec, uint64_t pid,
		     int (*want)(const struct fxt_arg *))
{
	int first = 1;

	for (unsigned i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];
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
	if (j->events)
		PUTS(j, ",");
	PUTS(j, "\n{\"name\":");
	j->events++;
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

/* Begin: keeps a copy of its arguments on the thread's stack. */
static int push_args(struct fxt_json *j, const struct fxt_record *rec)
{
	struct ckey k = { rec->u.event.thread.pid, rec->u.event.thread.tid, { "", 0 } };
	int64_t i = ctab_get(&j->open, &k, 1);
	struct open_args *o;

	if (i < 0)
		return -ENOMEM;
	o = ctab_at(&j->open, (uint32_t)i);
	if (o->depth == o->cdepth) {
		uint32_t nc = o->cdepth ? o->cdepth * 2 : 16;
		uint8_t *c = realloc(o->counts, nc);
		if (!c)
			return -ENOMEM;
		o->counts = c;
		o->cdepth = nc;
	}
	if (o->nargs + rec->nargs > o->cargs) {
		uint32_t nc = (o->nargs + rec->nargs) * 2;
		struct fxt_arg *a = realloc(o->args, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		o->args = a;
		o->cargs = nc;
	}
	if (rec->nargs)
		memcpy(o->args + o->nargs, rec->args, rec->nargs * sizeof(*o->args));
	o->nargs += rec->nargs;
	o->counts[o->depth++] = (uint8_t)rec->nargs;
	return 0;
}

/* End: the arguments of the matching begin (none when there was no begin). */
static void pop_args(struct fxt_json *j, const struct fxt_record *rec, struct fxt_record *out)
{
	struct ckey k = { rec->u.event.thread.pid, rec->u.event.thread.tid, { "", 0 } };
	int64_t i = ctab_get(&j->open, &k, 0);
	struct open_args *o = i < 0 ? NULL : ctab_at(&j->open, (uint32_t)i);

	out->nargs = 0;
	if (!o || !o->depth)
		return;
	out->nargs = o->counts[--o->depth];
	o->nargs -= out->nargs;
	if (out->nargs)
		memcpy(out->args, o->args + o->nargs, out->nargs * sizeof(*o->args));
}

static int event(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const char ph[] = { 'i', 'C', 'B', 'E', 'X', 'b', 'n', 'e', 's', 't', 'f' };
	unsigned et = rec->u.event.event_type;
	uint64_t ts = fxt_client_ns(r, rec->u.event.ts);
	int (*want)(const struct fxt_arg *) = NULL;

	if (et >= sizeof(ph))
		return 0;
	if (et == FXT_ET_DURATION_BEGIN && push_args(j, rec) < 0)
		return -ENOMEM;
	begin_event(j, rec->u.event.name, rec->u.event.category, ph[et]);
	put_where(j, ts, &rec->u.event.thread);
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
	case FXT_ET_DURATION_COMPLETE: {
		uint64_t end = fxt_client_ns(r, rec->u.event.end_ts);
		PUTS(j, ",\"dur\":");
		put_us(j, end > ts ? end - ts : 0);
		break;
	}
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
	if (et == FXT_ET_DURATION_END && !rec->nargs) {
		pop_args(j, rec, &j->scratch);
		put_args(j, &j->scratch, rec->u.event.thread.pid, NULL);
	} else {
		if (et == FXT_ET_DURATION_END)
			pop_args(j, rec, &j->scratch);
		put_args(j, rec, rec->u.event.thread.pid, want);
	}
	PUTS(j, "}");
	return 0;
}

/* 1 when rec is the `log` instant an FXT writer adds after a log record for viewers that show
 * only events (same thread, time and message as the log record just before it). */
static int is_log_mirror(const struct fxt_json *j, const struct fxt_record *rec)
{
	const struct fxt_record *l = &j->last_log;

	if (l->type != FXT_RT_LOG || rec->u.event.event_type != FXT_ET_INSTANT ||
	    !sv_eq(rec->u.event.category, (struct fxt_sv){ "log", 3 }) ||
	    rec->u.event.ts != l->u.log.ts || rec->u.event.thread.pid != l->u.log.thread.pid ||
	    rec->u.event.thread.tid != l->u.log.thread.tid)
		return 0;
	for (unsigned i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_AT_STRING &&
		    sv_eq(rec->args[i].name, (struct fxt_sv){ "message", 7 }))
			return sv_eq(rec->args[i].v.str, l->u.log.msg);
	return 0;
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

/* One context switch record: the CPU track's slices and the threads' off-CPU slices. */
static int cswitch(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const struct fxt_sv sched = { "sched", 5 };
	uint64_t ts = fxt_client_ns(r, rec->u.sched.ts);
	uint64_t out = rec->u.sched.out_thread.tid, in = rec->u.sched.in_thread.tid;
	unsigned cpu = rec->u.sched.cpu;
	int created;
	struct swstate *c = sw_get(j, 1, cpu, &created), *t;
	char buf[64];

	if (!c)
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
	if (out && c->tid == out) {
		begin_event(j, (struct fxt_sv){ "", 0 }, sched, 'E');
		put_where(j, ts, &(struct fxt_koids){ 0, cpu });
		PUTS(j, ",\"args\":{\"end_state\":\"");
		PUTS(j, rec->u.sched.out_state == 1 ? "preempted" : "blocked");
		PUTS(j, "\"}}");
		c->tid = 0;
	}
	if (out) {
		if (!(t = sw_get(j, 2, out, &created)))
			return -ENOMEM;
		t->out_ns = ts;
		t->state = rec->u.sched.out_state;
	}
	if (in) {
		int n = snprintf(buf, sizeof(buf), "tid %llu", (unsigned long long)in);
		/* the thread first: creating it may move the CPU's entry (which exists) */
		if (!(t = sw_get(j, 2, in, &created)) || !(c = sw_get(j, 1, cpu, &created)))
			return -ENOMEM;
		t = sw_get(j, 2, in, &created);
		if (c->tid) {	/* a switch out was lost: close the CPU's slice here */
			begin_event(j, (struct fxt_sv){ "", 0 }, sched, 'E');
			put_where(j, ts, &(struct fxt_koids){ 0, cpu });
			PUTS(j, "}");
		}
		begin_event(j, (struct fxt_sv){ buf, (size_t)n }, sched, 'B');
		put_where(j, ts, &(struct fxt_koids){ 0, cpu });
		PUTS(j, ",\"args\":{\"pid\":");
		put_u64(j, t->pid);
		PUTS(j, ",\"tid\":");
		put_u64(j, in);
		PUTS(j, "}}");
		c->tid = in;
		if (t->out_ns && t->out_ns <= ts) {
			const char *what = t->state == 1 ? "off-cpu (preempted)" : "off-cpu (blocked)";
			begin_event(j, (struct fxt_sv){ what, strlen(what) }, sched, 'X');
			put_where(j, t->out_ns, &(struct fxt_koids){ t->pid, in });
			PUTS(j, ",\"dur\":");
			put_us(j, ts - t->out_ns);
			PUTS(j, "}");
		}
		t->out_ns = 0;
	}
	return 0;
}

static void log_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	static const struct fxt_sv log = { "log", 3 };

	begin_event(j, log, log, 'i');
	put_where(j, fxt_client_ns(r, rec->u.log.ts), &rec->u.log.thread);
	PUTS(j, ",\"s\":\"t\",\"args\":{\"message\":");
	put_str(j, rec->u.log.msg);
	PUTS(j, "}}");
}

int fxt_json_record(struct fxt_json *j, const struct fxt_reader *r, const struct fxt_record *rec)
{
	if (!j->started++)
		PUTS(j, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	switch (rec->type) {
	case FXT_RT_EVENT:
		if (!is_log_mirror(j, rec) && event(j, r, rec) < 0)
			return -ENOMEM;
		break;
	case FXT_RT_KERNEL_OBJECT:
		if (kernel_object(j, rec) < 0)
			return -ENOMEM;
		break;
	case FXT_RT_SCHEDULING:
		if (rec->u.sched.sched_type == FXT_ST_CONTEXT_SWITCH && cswitch(j, r, rec) < 0)
			return -ENOMEM;
		break;
	case FXT_RT_LOG:
		log_record(j, r, rec);
		j->last_log.type = FXT_RT_LOG;
		j->last_log.u.log = rec->u.log;
		return j->err;
	case FXT_RT_USERSPACE_OBJECT: {
		struct ckey k = { rec->u.uobj.process_koid, rec->u.uobj.pointer, { "", 0 } };
		int64_t i = ctab_get(&j->uobjs, &k, 1);
		if (i < 0)
			return -ENOMEM;
		((struct uobj *)ctab_at(&j->uobjs, (uint32_t)i))->name = rec->u.uobj.name;
		break;
	}
	}
	j->last_log.type = FXT_RT_METADATA;
	return j->err;
}

int fxt_json_finish(struct fxt_json *j)
{
	if (!j->started++)
		PUTS(j, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	PUTS(j, "\n]}\n");
	flush(j);
	if (fflush(j->f))
		j->err = -EIO;
	return j->err;
}
