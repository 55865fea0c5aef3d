/* <fxt/format.h>: the numbers of the Fuchsia trace format that a reader of decoded records
 * compares against (record, event, argument, metadata, object, scheduling and blob types, the
 * magic number), named after the spec
 * (https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format). The only definition of these
 * values: <fxt/reader.h> includes it and so does the writer's writer/fields.h (bit layouts).
 * Declarations only; usable from C and C++. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_FORMAT_H
#define FXT_FORMAT_H

/* Magic number of the magic number record (a trace info record). */
#define FXT_MAGIC 0x16547846u

/* Arguments an event, object or large blob record holds at most (a 4-bit count). */
#define FXT_MAX_ARGS 15u

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#record-types */
enum fxt_record_type {
	FXT_RT_METADATA = 0,
	FXT_RT_INITIALIZATION = 1,
	FXT_RT_STRING = 2,
	FXT_RT_THREAD = 3,
	FXT_RT_EVENT = 4,
	FXT_RT_BLOB = 5,
	FXT_RT_USERSPACE_OBJECT = 6,
	FXT_RT_KERNEL_OBJECT = 7,
	FXT_RT_SCHEDULING = 8,
	FXT_RT_LOG = 9,
	FXT_RT_LARGE = 15,
};

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#metadata-record */
enum fxt_metadata_type {
	FXT_MT_PROVIDER_INFO = 1,
	FXT_MT_PROVIDER_SECTION = 2,
	FXT_MT_PROVIDER_EVENT = 3,
	FXT_MT_TRACE_INFO = 4,
};
enum fxt_provider_event { FXT_PE_BUFFER_OVERFLOW = 0 };
enum fxt_trace_info_type { FXT_TI_MAGIC = 0 };

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#event-record */
enum fxt_event_type {
	FXT_ET_INSTANT = 0,
	FXT_ET_COUNTER = 1,
	FXT_ET_DURATION_BEGIN = 2,
	FXT_ET_DURATION_END = 3,
	FXT_ET_DURATION_COMPLETE = 4,
	FXT_ET_ASYNC_BEGIN = 5,
	FXT_ET_ASYNC_INSTANT = 6,
	FXT_ET_ASYNC_END = 7,
	FXT_ET_FLOW_BEGIN = 8,
	FXT_ET_FLOW_STEP = 9,
	FXT_ET_FLOW_END = 10,
};

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#blob-record */
enum fxt_blob_type { FXT_BT_DATA = 1, FXT_BT_LAST_BRANCH = 2, FXT_BT_PERFETTO = 3 };

/* Object types of kernel object records (Zircon's ZX_OBJ_TYPE_*): the two fxtauto writes.
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#kernel-object-record */
enum fxt_kobj_type { FXT_OBJ_TYPE_PROCESS = 1, FXT_OBJ_TYPE_THREAD = 2 };

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#scheduling-record */
enum fxt_sched_type {
	FXT_ST_LEGACY_CONTEXT_SWITCH = 0,
	FXT_ST_CONTEXT_SWITCH = 1,
	FXT_ST_THREAD_WAKEUP = 2
};

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#large-blob-record */
enum fxt_large_type { FXT_LT_BLOB = 0 };
enum fxt_lblob_format { FXT_LBF_METADATA = 0, FXT_LBF_NO_METADATA = 1 };

/* https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format#argument-types */
enum fxt_arg_type {
	FXT_AT_NULL = 0,
	FXT_AT_INT32 = 1,
	FXT_AT_UINT32 = 2,
	FXT_AT_INT64 = 3,
	FXT_AT_UINT64 = 4,
	FXT_AT_DOUBLE = 5,
	FXT_AT_STRING = 6,
	FXT_AT_POINTER = 7,
	FXT_AT_KOID = 8,
	FXT_AT_BOOL = 9,
};

#endif
