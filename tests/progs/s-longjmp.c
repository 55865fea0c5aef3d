/* longjmp out of nested instrumented calls, 1500 times: no exit hook runs for the abandoned
 * frames, so the tracer must close them before the next call starts (or when the function
 * holding the setjmp returns). The last 500 jumps land where the next call is made from the
 * very same call site and stack pointer as the abandoned one, with no call in between.
 * Calls: main 1, catcher 500, level1 1500, level2 1500, level3 1500, jump 1500, after 1000. */
/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void jump(void)
{
	longjmp(env, 1);
}

static void level3(void)
{
	jump();
}

static void level2(void)
{
	level3();
}

static void level1(void)
{
	level2();
}

/* Its frame is larger than level1's: its stack pointer lies below the abandoned level1 frame's,
 * so only a tracer that knows level1 is dead (not one comparing stack pointers) nests it right. */
static int after(void)
{
	volatile char pad[256];
	pad[0] = 1;
	return pad[0];
}

/* The setjmp sits in an instrumented frame that returns normally after the jump. */
static int catcher(void)
{
	if (setjmp(env) == 0) {
		level1();
		return 0;
	}
	after();
	return 1;
}

int main(void)
{
	int jumps = 0;
	for (int i = 0; i < 500; i++) {
		if (setjmp(env) == 0)
			level1();
		else
			after(), jumps++;
		jumps += catcher();
	}
	for (volatile int i = 0; i < 500; i++)	/* volatile: it lives across the jumps */
		if (setjmp(env) == 0)
			level1();
	printf("s-longjmp: %d + 500 jumps\n", jumps);
	return 0;
}
