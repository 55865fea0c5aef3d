/* Recursion 100,000 deep, recorded whole: the shadow stack has no fixed depth limit.
 * Calls: main 1, recurse 100000 (nesting depth 100001 on the main thread). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

static long recurse(long n)
{
	if (n == 1)
		return 1;
	return recurse(n - 1) + 1;
}

int main(void)
{
	printf("s-deep: depth %ld\n", recurse(100000));
	return 0;
}
