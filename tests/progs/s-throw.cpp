/* A C++ exception thrown through several instrumented frames, 100 times. gcc calls the exit
 * hooks while unwinding, clang does not: the tracer must close the unwound frames itself.
 * Then recursion with alloca (as gcc -O3 built difftest seed 13): each level of holder(4)
 * allocas, catches an exception of its own and of a callee's, and after each catch calls a
 * function inlined into it (always_inline: at -O0 too), whose hooks have holder's call site and
 * the sp alloca lowered; the first entry after a catch closes the frames the unwind left.
 * Then stacked() allocas and catches an exception from inner(2): its exit hook, called with the
 * sp alloca lowered while the frames clang's unwind left are still open above it, must close
 * them and its own frame; roomy(), called next from main, has a larger frame than stacked, so
 * a frame of stacked left open would hold it.
 * Plain structs only (no library templates), so every instrumented function is listed here.
 * Calls: main 1, sx::catcher(int) 100, sx::inner(int) 403 (catcher -> 100, stacked -> 1,
 * inner -> 302), sx::Thrower<int>::fire(int) const 111, sx::handled(sx::Boom const&) 100,
 * sx::holder(int) 5 (main -> 1, holder -> 4), holder -> sx::absorb(int) 5,
 * holder -> sx::note(int) 10, holder -> sx::toss(int) 5, toss -> fire 5, absorb -> fire 5,
 * main -> sx::stacked(int) 1, main -> sx::roomy(int) 1. */
/* SPDX-License-Identifier: MIT */
#include <alloca.h>
#include <cstdio>
#include <cstring>

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

static volatile int sink;

__attribute__((always_inline)) static inline void note(int n)
{
	sink += n;
}

/* Not inlined: clang calls no exit hook for a function inlined into the catching one and left by
 * the throw, and its frame has the catching function's sp and site, as an inlined call after
 * the catch has (both stay open). */
__attribute__((noinline)) static void toss(int n)
{
	Thrower<int>().fire(n);
}

__attribute__((noinline)) static void absorb(int n)
{
	try {
		Thrower<int>().fire(n + 1);
	} catch (const Boom &b) {
		sink += b.depth;
	}
}

__attribute__((noinline)) static void holder(int n)
{
	if (n > 0)
		holder(n - 1);
	size_t len = 64 + static_cast<size_t>(n) * 16;
	char *p = static_cast<char *>(alloca(len));
	std::memset(p, n, len);	/* no stale return address left for a search of the stack */
	sink += p[n];
	try {
		toss(n + 1);
	} catch (const Boom &b) {
		sink += b.depth;
	}
	note(n);
	absorb(n);
	note(n);
}

__attribute__((noinline)) static void stacked(int n)
{
	size_t len = 64 + static_cast<size_t>(n) * 16;
	char *p = static_cast<char *>(alloca(len));
	std::memset(p, n, len);
	try {
		inner(2);
	} catch (const Boom &b) {
		sink += b.depth;
	}
	sink += p[n];
}

__attribute__((noinline)) static void roomy(int n)
{
	volatile char pad[512];
	pad[n] = static_cast<char>(n);
	sink += pad[n];
}
} // namespace sx

int main()
{
	long sum = 0;
	for (int i = 0; i < 100; i++)
		sum += sx::catcher(i);
	sx::holder(4);
	sx::stacked(4);
	sx::roomy(3);
	std::printf("s-throw: sum %ld, sink %d\n", sum, static_cast<int>(sx::sink));
	return 0;
}
