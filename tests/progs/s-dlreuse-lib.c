/* The libraries s-dlreuse loads: one source built twice, as liba (LIB(x) = a_x) and libb
 * (b_x), so that both have the same layout and other names: the loader usually maps the second
 * at the address the first one had. entry(n) calls helper n times. */
/* SPDX-License-Identifier: MIT */
#define CAT(a, b) a##b
#define NAME(p, x) CAT(p, x)

static volatile int sink;

void NAME(LIB, helper)(int i);
int NAME(LIB, entry)(int n);

void NAME(LIB, helper)(int i)
{
	sink += i;
}

int NAME(LIB, entry)(int n)
{
	for (int i = 0; i < n; i++)
		NAME(LIB, helper)(i);
	return sink;
}
