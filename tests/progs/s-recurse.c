/* Recursion shapes whose exit hooks gcc -O1 and up tail-jump to (`jmp __cyg_profile_func_exit`
 * after restoring the frame: the hook's sp is then the function's CFA, which is the sp of a
 * recursive parent's frame), each nested exactly as the program ran:
 * rec(3) with a leaf after each recursive call; levels(7) calling leaf 40 times before and 40
 * after recursing; even/odd mutual recursion; alloca and VLA frames in recursion; a longjmp out
 * of 4 levels of recursion, followed by calls at the level of the setjmp; the same out of
 * dive(3) three times to one jmp_buf set again in a loop, the first time after 16 others were
 * set (the tracer remembers 16 per thread): that jump is repaired at the next entry, which comes
 * after the setjmp again.
 * Edges (caller -> callee: calls): main -> rec 1, rec -> rec 3, rec -> leaf 3;
 * main -> levels 1, levels -> levels 7, levels -> leaf 640; main -> even 1, even -> odd 3,
 * odd -> even 3 (even(6): e6 o5 e4 o3 e2 o1 e0); main -> grow 1, grow -> grow 5, grow -> leaf 6;
 * main -> vla 1, vla -> vla 5, vla -> leaf 6; main -> jump 1, jump -> jump 4 (the last one
 * longjmps back into main before its leaf), main -> leaf 1; main -> redo 1, redo -> dive 3,
 * dive -> dive 9. */
/* SPDX-License-Identifier: MIT */
#include <alloca.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static jmp_buf env;

NOINLINE static void leaf(int n)
{
	sink += n;
}

NOINLINE static void rec(int n)
{
	if (n <= 0)
		return;
	rec(n - 1);
	leaf(n);
}

NOINLINE static void levels(int n)
{
	for (int i = 0; i < 40; i++)
		leaf(i);
	if (n > 0)
		levels(n - 1);
	for (int i = 0; i < 40; i++)
		leaf(i);
}

NOINLINE static int odd(int n);

NOINLINE static int even(int n)
{
	if (n == 0)
		return 1;
	return odd(n - 1);
}

NOINLINE static int odd(int n)
{
	if (n == 0)
		return 0;
	return even(n - 1);
}

NOINLINE static void grow(int n)
{
	char *p = alloca((size_t)n * 64 + 16);
	memset(p, n, (size_t)n * 64 + 16);
	sink += p[n];
	if (n > 0)
		grow(n - 1);
	leaf(n);
}

NOINLINE static void vla(int n)
{
	char a[n * 48 + 8];
	memset(a, n, sizeof(a));
	sink += a[n];
	if (n > 0)
		vla(n - 1);
	leaf(n);
}

NOINLINE static void jump(int n)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(env, 1);
	jump(n - 1);
	leaf(n);
}

NOINLINE static void dive(int n, jmp_buf *to)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(*to, 1);
	dive(n - 1, to);
}

NOINLINE static void redo(void)
{
	static jmp_buf others[16];
	jmp_buf again;
	for (volatile int i = 0; i < 3; i++) {
		if (setjmp(again))
			continue;
		if (i == 0)
			for (int k = 0; k < 16; k++)
				if (setjmp(others[k]))
					return;	/* never: nothing jumps to them */
		dive(3, &again);
	}
}

int main(void)
{
	rec(3);
	levels(7);
	sink += even(6);
	grow(5);
	vla(5);
	if (!setjmp(env))
		jump(4);
	leaf(0);
	redo();
	printf("s-recurse: %d\n", sink);
	return 0;
}
