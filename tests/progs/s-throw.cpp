/* A C++ exception thrown through several instrumented frames, 100 times. gcc calls the exit
 * hooks while unwinding, clang does not: the tracer must close the unwound frames itself.
 * Plain structs only (no library templates), so every instrumented function is listed here.
 * Calls: main 1, sx::catcher(int) 100, sx::inner(int) 400,
 * sx::Thrower<int>::fire(int) const 100, sx::handled(sx::Boom const&) 100. */
/* SPDX-License-Identifier: MIT */
#include <cstdio>

namespace sx {
struct Boom {
	int depth;
};

template <typename T> struct Thrower {
	void fire(T v) const
	{
		if (v)	/* always: the test keeps compilers from seeing a function that never returns */
			throw Boom{ static_cast<int>(v) };
	}
};

static int handled(const Boom &b)
{
	return b.depth;
}

static void inner(int n)
{
	if (n == 0)
		Thrower<int>().fire(n + 7);
	else
		inner(n - 1);
}

static int catcher(int i)
{
	try {
		inner(3);
	} catch (const Boom &b) {
		return handled(b) + i;
	}
	return -1;
}
} // namespace sx

int main()
{
	long sum = 0;
	for (int i = 0; i < 100; i++)
		sum += sx::catcher(i);
	std::printf("s-throw: sum %ld\n", sum);
	return 0;
}
