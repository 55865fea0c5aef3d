/* Canonical text of a record (fxt/reader.h, "Text of a record"): one line per record, fields in
 * a fixed order, strings quoted with C escapes so that any bytes print as one line. */
/* SPDX-License-Identifier: MIT */
#include "fxt/reader.h"

#include <inttypes.h>

static const char *const event_names[] = {
	"instant", "counter", "begin", "end", "complete", "async_begin",
	"async_instant", "async_end", "flow_begin", "flow_step", "flow_end",
};
static const char *const arg_names[] = {
	"null", "int32", "uint32", "int64", "uint64", "double", "string", "pointer", "koid", "bool",
};
static const char *const meta_names[] = {
	"metadata", "provider_info", "provider_section", "provider_event", "trace_info",
};
static const char *const sched_names[] = { "legacy_context_switch", "context_switch",
						   "thread_wakeup" };

/* names[v] of a table, or other when v is past its end. */
#define NAME_OR(names, v, other) \
	((v) < sizeof(names) / sizeof((names)[0]) ? (names)[v] : (other))

const char *fxt_arg_type_name(unsigned type)
{
	return NAME_OR(arg_names, type, "unknown");
}

const char *fxt_record_kind(const struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_RT_METADATA:
		if (rec->u.meta.meta_type == FXT_MT_TRACE_INFO)
			return "magic";
		return NAME_OR(meta_names, rec->u.meta.meta_type, "metadata");
	case FXT_RT_INITIALIZATION: return "init";
	case FXT_RT_STRING: return "string";
	case FXT_RT_THREAD: return "thread";
	case FXT_RT_EVENT: return NAME_OR(event_names, rec->u.event.event_type, "event");
	case FXT_RT_BLOB: return "blob";
	case FXT_RT_USERSPACE_OBJECT: return "userspace_object";
	case FXT_RT_KERNEL_OBJECT: return "kernel_object";
	case FXT_RT_SCHEDULING: return NAME_OR(sched_names, rec->u.sched.sched_type, "scheduling");
	case FXT_RT_LOG: return "log";
	case FXT_RT_LARGE: return "large_blob";
	default: return "unknown";
	}
}

const char *fxt_arg_text(const struct fxt_arg *a, char buf[FXT_ARG_TEXT_MAX])
{
	switch (a->type) {
	case FXT_AT_NULL: return "null";
	case FXT_AT_BOOL: return a->v.boolean ? "true" : "false";
	case FXT_AT_INT32:
	case FXT_AT_INT64: snprintf(buf, FXT_ARG_TEXT_MAX, "%" PRId64, a->v.i64); return buf;
	case FXT_AT_UINT32:
	case FXT_AT_UINT64:
	case FXT_AT_KOID: snprintf(buf, FXT_ARG_TEXT_MAX, "%" PRIu64, a->v.u64); return buf;
	case FXT_AT_POINTER: snprintf(buf, FXT_ARG_TEXT_MAX, "0x%" PRIx64, a->v.u64); return buf;
	case FXT_AT_DOUBLE: snprintf(buf, FXT_ARG_TEXT_MAX, "%.17g", a->v.dbl); return buf;
	default: return NULL;
	}
}

static void put_str(FILE *f, struct fxt_sv sv)
{
	putc('"', f);
	for (uint32_t i = 0; i < sv.len; i++) {
		unsigned char c = (unsigned char)sv.s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

/* " key=<quoted string>" */
static void put_field(FILE *f, const char *key, struct fxt_sv sv)
{
	fprintf(f, " %s=", key);
	put_str(f, sv);
}

static void put_koids(FILE *f, const char *what, struct fxt_koids k)
{
	fprintf(f, " %s=%" PRIu64 "/%" PRIu64, what, k.pid, k.tid);
}

/* When and on which thread: " ts=<ticks> thread=<pid>/<tid>" */
static void put_stamp(FILE *f, uint64_t ts, struct fxt_koids thread)
{
	fprintf(f, " ts=%" PRIu64, ts);
	put_koids(f, "thread", thread);
}

static void put_args(FILE *f, const struct fxt_record *rec)
{
	if (!rec->nargs)
		return;
	fputs(" args{", f);
	for (unsigned i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];
		if (i)
			fputs(", ", f);
		put_str(f, a->name);
		fprintf(f, ":%s", fxt_arg_type_name(a->type));
		char buf[FXT_ARG_TEXT_MAX];
		const char *text = fxt_arg_text(a, buf);
		if (a->type == FXT_AT_STRING) {
			putc('=', f);
			put_str(f, a->v.str);
		} else if (a->type != FXT_AT_NULL && text) {
			fprintf(f, "=%s", text);
		}
	}
	putc('}', f);
}

int fxt_record_print(FILE *f, const struct fxt_record *rec)
{
	fprintf(f, "%08" PRIx64 " %s", rec->offset, fxt_record_kind(rec));
	switch (rec->type) {
	case FXT_RT_METADATA:
		if (rec->u.meta.meta_type == FXT_MT_TRACE_INFO) {
			fprintf(f, " magic=0x%08x", rec->u.meta.magic);
			break;
		}
		fprintf(f, " provider=%u", rec->u.meta.provider_id);
		if (rec->u.meta.meta_type == FXT_MT_PROVIDER_INFO) {
			put_field(f, "name", rec->u.meta.name);
		} else if (rec->u.meta.meta_type == FXT_MT_PROVIDER_EVENT) {
			fprintf(f, " event=%u%s", rec->u.meta.event_id,
				rec->u.meta.event_id == FXT_PE_BUFFER_OVERFLOW ? "(buffer_full)" : "");
		}
		break;
	case FXT_RT_INITIALIZATION:
		fprintf(f, " ticks_per_second=%" PRIu64, rec->u.init.ticks_per_second);
		break;
	case FXT_RT_STRING:
		fprintf(f, " index=%u str=", rec->u.string.index);
		put_str(f, rec->u.string.str);
		break;
	case FXT_RT_THREAD:
		fprintf(f, " index=%u", rec->u.thread.index);
		put_koids(f, "koids", rec->u.thread.koids);
		break;
	case FXT_RT_EVENT:
		put_stamp(f, rec->u.event.ts, rec->u.event.thread);
		put_field(f, "cat", rec->u.event.category);
		put_field(f, "name", rec->u.event.name);
		if (rec->u.event.event_type == FXT_ET_DURATION_COMPLETE)
			fprintf(f, " end_ts=%" PRIu64 " dur=%" PRIu64, rec->u.event.end_ts,
				rec->u.event.end_ts - rec->u.event.ts);
		else if (rec->u.event.event_type != FXT_ET_INSTANT &&
			 rec->u.event.event_type != FXT_ET_DURATION_BEGIN &&
			 rec->u.event.event_type != FXT_ET_DURATION_END)
			fprintf(f, " id=%" PRIu64, rec->u.event.id);
		break;
	case FXT_RT_BLOB: {
		struct fxt_clock c;
		fprintf(f, " type=%u size=%u name=", rec->u.blob.blob_type, rec->u.blob.size);
		put_str(f, rec->u.blob.name);
		if (fxt_record_clock(rec, &c))
			fprintf(f, " start_ticks=%" PRIu64 " start_ns=%" PRIu64 " end_ticks=%" PRIu64
				   " end_ns=%" PRIu64,
				c.start_ticks, c.start_ns, c.end_ticks, c.end_ns);
		break;
	}
	case FXT_RT_USERSPACE_OBJECT:
		fprintf(f, " pointer=0x%" PRIx64 " process=%" PRIu64 " name=", rec->u.uobj.pointer,
			rec->u.uobj.process_koid);
		put_str(f, rec->u.uobj.name);
		break;
	case FXT_RT_KERNEL_OBJECT:
		fprintf(f, " obj_type=%u koid=%" PRIu64 " name=", rec->u.kobj.obj_type, rec->u.kobj.koid);
		put_str(f, rec->u.kobj.name);
		break;
	case FXT_RT_SCHEDULING:
		fprintf(f, " ts=%" PRIu64 " cpu=%u", rec->u.sched.ts, rec->u.sched.cpu);
		if (rec->u.sched.sched_type == FXT_ST_THREAD_WAKEUP) {
			fprintf(f, " waking_tid=%" PRIu64, rec->u.sched.waking_tid);
		} else {
			fprintf(f, " out_state=%u", rec->u.sched.out_state);
			put_koids(f, "out", rec->u.sched.out_thread);
			put_koids(f, "in", rec->u.sched.in_thread);
			if (rec->u.sched.sched_type == FXT_ST_LEGACY_CONTEXT_SWITCH)
				fprintf(f, " out_prio=%u in_prio=%u", rec->u.sched.out_prio, rec->u.sched.in_prio);
		}
		break;
	case FXT_RT_LOG:
		put_stamp(f, rec->u.log.ts, rec->u.log.thread);
		put_field(f, "msg", rec->u.log.msg);
		break;
	case FXT_RT_LARGE:
		fprintf(f, " format=%u size=%" PRIu64 " cat=", rec->u.large.format, rec->u.large.size);
		put_str(f, rec->u.large.category);
		put_field(f, "name", rec->u.large.name);
		if (rec->u.large.format == FXT_LBF_METADATA)
			put_stamp(f, rec->u.large.ts, rec->u.large.thread);
		break;
	}
	put_args(f, rec);
	return putc('\n', f);
}
