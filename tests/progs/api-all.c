/* Uses every macro of <fxt/trace.h> from C with fixed values, so that tests/api/api-check can
 * compare the archive with tests/api/api-all-c.expect. stdout depends on nothing traced: it is
 * the same with or without the tracer, under NTRACE and with every macro stripped (api.cmake).
 * Keep each macro call on one line of its own and free of ';' inside (the stripper needs it);
 * variables used only by macros are marked unused for the NTRACE build. */
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* Defined only when macros can evaluate their arguments: an NTRACE build that links proves
 * that no argument expression survived. */
int api_eval(int x);
#ifndef NTRACE
int api_eval(int x)
{
	return x * 10;
}
#endif

static int work(int n)
{
	TRACE_DURATION("api", "work", "n", TA_INT32(n));
	int s = 0;
	for (int i = 1; i <= n; i++)
		s += i;
	return s;
}

static void *worker(void *arg)
{
	int *out = arg;
	TRACE_DURATION("api", "worker-thread", "eval", TA_INT32(api_eval(4)));
	*out = work(5);
	return NULL;
}

int main(void)
{
	__attribute__((unused)) static const unsigned char blob[12] = { 'F', 'X', 'T', 0, 1, 2,
									3, 4, 5, 6, 7, 8 };
	int sum = 0;
	pthread_t t;
	int from_thread = 0;

	{
		TRACE_DURATION("api", "outer");
		sum += work(3);
	}
	TRACE_DURATION_BEGIN("api", "phase", "name", TA_STRING("load"));
	sum += work(4);
	TRACE_DURATION_END("api", "phase", "ok", TA_BOOL(1));
	TRACE_INSTANT("api", "tick", TRACE_SCOPE_THREAD);
	TRACE_INSTANT("api", "tick-process", TRACE_SCOPE_PROCESS, "k", TA_UINT32(7));
	TRACE_INSTANT("api", "tick-global", TRACE_SCOPE_GLOBAL);
	TRACE_COUNTER("api", "queue", 42, "depth", TA_INT64(-5), "load", TA_DOUBLE(0.5));
	TRACE_ASYNC_BEGIN("api", "request", 1001, "url", TA_STRING("/index"));
	TRACE_ASYNC_INSTANT("api", "request", 1001, "step", TA_INT32(2));
	TRACE_ASYNC_END("api", "request", 1001);
	{
		TRACE_DURATION("api", "producer");
		TRACE_FLOW_BEGIN("api", "message", 77);
	}
	{
		TRACE_DURATION("api", "relay");
		TRACE_FLOW_STEP("api", "message", 77, "hop", TA_UINT64(1));
	}
	{
		TRACE_DURATION("api", "consumer");
		TRACE_FLOW_END("api", "message", 77);
	}
	TRACE_BLOB(TRACE_BLOB_TYPE_DATA, "api-blob", blob, sizeof blob);
	TRACE_LOG("api-log: sum=%d hex=%x str=%s", sum, 255, "ok");
	TRACE_INSTANT("api", "types", TRACE_SCOPE_THREAD, "null", TA_NULL(), "bool", TA_BOOL(0), "i32", TA_INT32(-7), "u32", TA_UINT32(4000000000u), "i64", TA_INT64(-1234567890123), "u64", TA_UINT64(UINT64_MAX), "dbl", TA_DOUBLE(3.25), "str", TA_STRING("hello"), "ptr", TA_POINTER((void *)0x1234), "koid", TA_KOID(99));
	TRACE_INSTANT("api", "fifteen", TRACE_SCOPE_THREAD, "a0", TA_INT32(0), "a1", TA_INT32(1), "a2", TA_INT32(2), "a3", TA_INT32(3), "a4", TA_INT32(4), "a5", TA_INT32(5), "a6", TA_INT32(6), "a7", TA_INT32(7), "a8", TA_INT32(8), "a9", TA_INT32(9), "a10", TA_INT32(10), "a11", TA_INT32(11), "a12", TA_INT32(12), "a13", TA_INT32(13), "a14", TA_INT32(14));
	TRACE_INSTANT("api", "enabled", TRACE_SCOPE_THREAD, "any", TA_BOOL(TRACE_ENABLED()), "api", TA_BOOL(TRACE_CATEGORY_ENABLED("api")), "api.extra", TA_BOOL(TRACE_CATEGORY_ENABLED("api.extra")));
	TRACE_INSTANT("api.extra", "filtered", TRACE_SCOPE_THREAD, "eval", TA_INT32(api_eval(1)));
	for (int i = 0; i < 3; i++) {
		TRACE_INSTANT("api", "loop", TRACE_SCOPE_THREAD, "i", TA_INT32(i));
	}
	if (pthread_create(&t, NULL, worker, &from_thread) == 0)
		pthread_join(t, NULL);
	printf("api-all: sum=%d thread=%d\n", sum, from_thread);
	return 0;
}
