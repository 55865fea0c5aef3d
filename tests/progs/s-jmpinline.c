/* longjmps followed by calls inlined into a live frame (difftest seed 348, gcc -O3), each nested
 * exactly as the program ran:
 * kept(): allocas, sets a jmp_buf, then 20 other jmp_bufs in callees that return at once (more
 * than the tracer remembers: 16 per thread), and dives 3 levels to jump back to the first; then
 * calls note(), inlined after the alloca (always_inline: at -O0 too), and leaf. A tracer that
 * forgot the live jmp_buf for the dead ones repairs the jump at note's entry, whose sp is below
 * kept's and whose site is kept's: it closed kept, and note and leaf went to main.
 * nested(): nest(2) is inlined into it, and nest(1) into that (flatten: gcc -O1 and up); nest(2)
 * calls far(), which allocas, sets a jmp_buf and dives 17 levels that each set one (more live
 * ones than the tracer remembers: it forgets the outermost) before jumping back to far's. far's
 * exit hook, called with the sp alloca lowered under the dives' dead frames, found no frame; the
 * repair at nest(1)'s entry then closed nest(2), which has the same function, sp and site.
 * Edges (caller -> callee: calls): main -> kept 1, kept -> spend 20, kept -> dive 1,
 * dive -> dive 3, kept -> note 1, kept -> leaf 1; main -> nested 1, nested -> nest 1,
 * nest -> nest 2, nest -> far 1, far -> deep 1, deep -> deep 17, nest -> leaf 3. */
/* SPDX-License-Identifier: MIT */
#include <alloca.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static jmp_buf spent[20];

NOINLINE static void leaf(int n)
{
	sink += n;
}

__attribute__((always_inline)) static inline void note(int n)
{
	sink += n;
}

/* A setjmp in a frame that returns at once: its jmp_buf is dead afterwards. */
NOINLINE static void spend(int k)
{
	if (setjmp(spent[k]))
		sink++;	/* never: nothing jumps to them */
}

NOINLINE static void dive(int n, jmp_buf *to)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(*to, 1);
	dive(n - 1, to);
	sink++;	/* never: keeps the call out of tail position */
}

NOINLINE static void kept(int n)
{
	jmp_buf here;
	size_t len = 64 + (size_t)n * 16;
	char *p = alloca(len);
	memset(p, n, len);	/* no stale return address left for a search of the stack */
	if (!setjmp(here)) {
		for (int k = 0; k < 20; k++)
			spend(k);
		dive(3, &here);
	}
	note(p[n]);
	leaf(n);
}

/* 17 live jmp_bufs below far's (never jumped to). */
NOINLINE static void deep(int n, jmp_buf *to)
{
	jmp_buf mine;
	if (n < 0 || setjmp(mine))
		return;
	if (n == 0)
		longjmp(*to, 1);
	deep(n - 1, to);
	sink++;
}

NOINLINE static void far(int n)
{
	jmp_buf here;
	size_t len = 64 + (size_t)n * 16;
	char *p = alloca(len);
	memset(p, n, len);
	if (!setjmp(here))
		deep(17, &here);
	sink += p[n];
}

static void nest(int n)
{
	if (n == 2)
		far(n);
	if (n > 0)
		nest(n - 1);
	leaf(n);
}

__attribute__((flatten)) NOINLINE static void nested(void)
{
	nest(2);
}

int main(void)
{
	kept(5);
	nested();
	printf("s-jmpinline: %d\n", sink);
	return 0;
}
