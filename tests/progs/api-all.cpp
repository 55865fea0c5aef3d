// Uses every macro of <fxt/trace.h> from C++ with argument types inferred (and a few TA_
// helpers), RAII scopes closed by return and by an exception, so that tests/api/api-check can
// compare the archive with tests/api/api-all-cpp.expect. stdout is the same with or without
// the tracer and under NTRACE. Keep each macro call on one line and free of ';' inside.
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

int api_eval(int x);
#ifndef NTRACE
int api_eval(int x)
{
	return x * 10;
}
#endif

namespace {

enum class Color : uint8_t { red = 1, green = 2 };

struct Queue {
	int depth = 3;
	int pop()
	{
		TRACE_DURATION("api", "Queue::pop", "depth", depth);
		return depth--;
	}
};

int may_throw(int n)
{
	TRACE_DURATION("api", "may_throw", "n", n);
	if (n > 1)
		throw std::runtime_error("too big");
	return n;
}

int work(int n)
{
	TRACE_DURATION("api", "work", "n", n);
	int s = 0;
	for (int i = 1; i <= n; i++)
		s += i;
	return s;
}

} // namespace

int main()
{
	[[maybe_unused]] static const unsigned char blob[5] = { 'a', 'b', 0, 'c', 'd' };
	int sum = 0;
	std::string s = "std-string";
	[[maybe_unused]] std::string_view sv = std::string_view("view-of-more", 7);
	[[maybe_unused]] const char *cstr = "c-string";
	Queue q;

	{
		TRACE_DURATION("api", "outer", "owner", s);
		sum += work(3);
	}
	TRACE_DURATION_BEGIN("api", "phase", "name", "load");
	sum += work(4);
	TRACE_DURATION_END("api", "phase", "ok", true);
	try {
		TRACE_DURATION("api", "try");
		sum += may_throw(2);
	} catch (const std::exception &e) {
		std::printf("caught: %s\n", e.what());
	}
	sum += q.pop();
	TRACE_INSTANT("api", "tick", TRACE_SCOPE_THREAD);
	TRACE_INSTANT("api", "tick-process", TRACE_SCOPE_PROCESS, "k", 7u);
	TRACE_INSTANT("api", "tick-global", TRACE_SCOPE_GLOBAL);
	TRACE_COUNTER("api", "queue", 42, "depth", int64_t(-5), "load", 0.5);
	TRACE_ASYNC_BEGIN("api", "request", 1001, "url", "/index");
	TRACE_ASYNC_INSTANT("api", "request", 1001, "step", 2);
	TRACE_ASYNC_END("api", "request", 1001);
	{
		TRACE_DURATION("api", "producer");
		TRACE_FLOW_BEGIN("api", "message", 77);
	}
	{
		TRACE_DURATION("api", "consumer");
		TRACE_FLOW_END("api", "message", 77, "hop", uint64_t(1));
	}
	TRACE_BLOB(TRACE_BLOB_TYPE_DATA, "api-blob", blob, sizeof blob);
	TRACE_LOG("api-log: sum=%d %s", sum, "c++");
	TRACE_INSTANT("api", "types", TRACE_SCOPE_THREAD, "null", nullptr, "bool", false, "i32", -7, "u32", 4000000000u, "i64", -1234567890123LL, "u64", UINT64_MAX, "dbl", 3.25, "str", cstr, "ptr", (void *)0x1234, "koid", TA_KOID(99));
	TRACE_INSTANT("api", "more-types", TRACE_SCOPE_THREAD, "std", s, "view", sv, "enum", Color::green, "float", 1.5f, "char", 'A', "short", (short)-3, "ulong", 5ul, "int8", (int8_t)-1, "helper", TA_UINT32(8), "cptr", (const int *)nullptr);
	TRACE_INSTANT("api", "enabled", TRACE_SCOPE_THREAD, "any", bool(TRACE_ENABLED()), "api", bool(TRACE_CATEGORY_ENABLED("api")), "api.extra", bool(TRACE_CATEGORY_ENABLED("api.extra")));
	TRACE_INSTANT("api.extra", "filtered", TRACE_SCOPE_THREAD, "eval", api_eval(1));
	std::thread t([&sum] {
		TRACE_DURATION("api", "worker-thread", "eval", api_eval(4));
		sum += work(5);
	});
	t.join();
	std::printf("api-all-cpp: sum=%d\n", sum);
	return 0;
}
