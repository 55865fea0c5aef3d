/* longjmp out of nested instrumented calls, 1000 times: no exit hook runs for the abandoned
 * frames, so the tracer must close them before the next call starts (or when the function
 * holding the setjmp returns). Calls: main 1, catcher 500, level1 1000, level2 1000,
 * level3 1000, jump 1000, after 1000. */
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

static void after(void)
{
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
	printf("s-longjmp: %d jumps\n", jumps);
	return 0;
}
