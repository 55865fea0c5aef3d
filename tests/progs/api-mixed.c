/* <fxt/trace.h> inside a -finstrument-functions build: TRACE_DURATION scopes and instants in
 * traced functions. The archive must hold both kinds of events on one thread, nested (a scope
 * lies inside the complete event of the function that holds it); tests/api/api-check checks
 * the nesting over all complete events and the API records against api-mixed.expect. */
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <stdio.h>

static __attribute__((noinline)) int leaf(int x)
{
	TRACE_INSTANT("api", "in-leaf", TRACE_SCOPE_THREAD, "x", TA_INT32(x));
	return x * 2;
}

static __attribute__((noinline)) int middle(int x)
{
	int r = 0;
	{
		TRACE_DURATION("api", "middle-scope", "x", TA_INT32(x));
		r = leaf(x) + leaf(x + 1);
	}
	return r;
}

int main(void)
{
	int sum = 0;
	TRACE_DURATION("api", "main-scope");
	for (int i = 0; i < 3; i++)
		sum += middle(i);
	printf("api-mixed: sum=%d\n", sum);
	return 0;
}
