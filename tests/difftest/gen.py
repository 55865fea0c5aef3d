#!/usr/bin/env python3
"""Generator of random self-counting programs for the differential tester (difftest.py).

One seed gives one program, C or C++ (the seed chooses), and the same seed always gives the same
text. The program is a random call graph of functions `fN(int d, unsigned x)`: loops, direct and
pointer calls, calls in tail position, early returns, alloca and VLA frames, guarded self and
mutual recursion, signal handlers that call functions (raised synchronously at known points:
raise(), or kill(getpid()) from the main thread while the other threads block that signal),
threads; in C also sigsetjmp/siglongjmp out of recursion and out of handlers, and a fork; in C++
exceptions thrown through recursion, caught at random levels, and RAII objects whose constructor
and destructor call functions (also while an exception unwinds).

Invariants of the programs:
- Every instrumented function counts its own entry in a no_instrument_function helper: edge
  (caller, callee) where the caller is the top of a per-thread shadow stack (`(root)` when empty:
  main, thread start functions, the first calls of a forked child). The shadow stack is popped by
  a cleanup at every exit of a frame (returns, C++ unwinding) and reset to the frame's own depth
  where a longjmp or an exception lands (sigsetjmp returning non-zero, catch).
- Every call is guarded by FX_GO(d): the depth argument is positive, the thread's call budget is
  left and the shadow stack has room, so every program ends and its stack is bounded.
- At exit each process prints `<count>\\t<caller>\\t<callee>` for each edge it ran (a forked child
  prints its own, counted from its fork), the format of `fxt report --edges`, and nothing else
  on stdout.

Usage: gen.py SEED [-o FILE]: writes the program (FILE.c or FILE.cpp by its language: the
language is printed on stdout as `c` or `cpp` when -o is given).
"""
import argparse
import collections
import random
import sys

HEADER_C = """\
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
"""

# The self-counting runtime, shared by both languages: no_instrument_function helpers only.
RUNTIME = """\
#define FX_NOI __attribute__((no_instrument_function, unused))
#define FX_STACK 256
#define FX_GO(d) ((d) > 0 && fx_budget > 0 && fx_depth < FX_STACK - 16)
static unsigned long fx_edge[FX_NF][FX_NF];
/* volatile: a signal handler changes them between two statements of the code it interrupts */
static __thread volatile int fx_stack[FX_STACK];
static __thread volatile int fx_depth;
static __thread volatile long fx_budget = FX_BUDGET;
static __thread volatile int fx_siglevel;	/* handlers running on this thread */
static __thread int fx_is_main;
static volatile unsigned fx_keep;

/* Entry of function id: counts the edge from the shadow stack's top and pushes id. */
FX_NOI static inline int fx_enter(int id)
{
	int caller = fx_depth ? fx_stack[fx_depth - 1] : 0;
	__atomic_fetch_add(&fx_edge[caller][id], 1, __ATOMIC_RELAXED);
	if (fx_depth >= FX_STACK)
		abort();
	fx_stack[fx_depth] = id;
	fx_budget--;
	return ++fx_depth;
}

/* Exit of the frame whose entry returned *d (cleanup attribute: every return, and unwinding). */
FX_NOI static inline void fx_leave(const int *d)
{
	fx_depth = *d - 1;
}

#define FX_FRAME(id) int fx_d __attribute__((cleanup(fx_leave), unused)) = fx_enter(id)

FX_NOI static void fx_dump(void)
{
	for (int i = 0; i < FX_NF; i++)
		for (int j = 0; j < FX_NF; j++)
			if (fx_edge[i][j])
				printf("%lu\\t%s\\t%s\\n", fx_edge[i][j], fx_name[i], fx_name[j]);
	fflush(stdout);
}

/* A signal at a known point: raise() anywhere, or kill(getpid()) from the main thread (the
 * other threads block SIGUSR2, so it is delivered to the caller before kill returns). At most
 * FX_SIGLEVELS handlers nest: the tracer records that many (FXTP_SIG_LEVELS). */
#define FX_SIGLEVELS 4
FX_NOI static void fx_signal(int how)
{
	if (fx_siglevel >= FX_SIGLEVELS)
		return;
	fx_siglevel++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (how && fx_is_main)
		kill(getpid(), SIGUSR2);
	else
		raise(SIGUSR1);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fx_siglevel--;
}

/* SIGUSR1 and SIGUSR2 handlers; with altstack, the main thread's run on a signal stack. */
FX_NOI static void fx_handlers(void (*usr1)(int), void (*usr2)(int), int altstack)
{
	static char alt[1 << 20];	/* nested handlers each push a signal frame */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_NODEFER;	/* a handler raising again nests at once */
	if (altstack) {
		stack_t ss;
		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = alt;
		ss.ss_size = sizeof(alt);
		sigaltstack(&ss, NULL);
		sa.sa_flags |= SA_ONSTACK;
	}
	sa.sa_handler = usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = usr2;
	sigaction(SIGUSR2, &sa, NULL);
}

/* Threads started while SIGUSR2 is blocked inherit the block. */
FX_NOI static void fx_block_usr2(int block)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}
"""

RUNTIME_C = """\
static __thread sigjmp_buf *volatile fx_jb;	/* innermost live sigsetjmp of this thread, or NULL */
static int fx_forked;

/* Whether this call may fork (once, from the main thread); flushes stdout first. */
FX_NOI static int fx_may_fork(void)
{
	if (!fx_is_main || fx_forked)
		return 0;
	fx_forked = 1;
	fflush(stdout);
	return 1;
}

/* The child's counts start at its fork: the frames open then are the parent's. */
FX_NOI static void fx_child(void)
{
	memset(fx_edge, 0, sizeof(fx_edge));
	fx_depth = 0;
	fx_siglevel = 0;
	fx_jb = NULL;
	fx_budget = FX_BUDGET / 2;
}
"""

HEADER_CPP = """\
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
"""


class Program:
    """One generated program: its functions, their bodies, the name table."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        self.cpp = r.random() < 0.3
        self.nf = r.randint(4, 12)          # fN, N in 1..nf
        self.top_depth = r.randint(4, 9)    # d of main's calls
        self.budget = r.choice([300, 600, 1000, 2000])
        self.nthreads = r.choice([0, 0, 1, 2, 3])
        # void functions end with a call to the exit hook the compiler may turn into a jump
        self.void = {n for n in range(1, self.nf + 1) if r.random() < 0.5}
        self.ptrs = {}   # pointer tables by return type: fx_ptr (unsigned), fx_vptr (void)
        for table, members in (('fx_ptr', set(range(1, self.nf + 1)) - self.void),
                               ('fx_vptr', self.void)):
            if members:
                self.ptrs[table] = [r.choice(sorted(members)) for _ in range(r.randint(1, 4))]
        self.fork_left = 0 if self.cpp else r.choice([0, 1])
        self.void_names = {'f%d' % n for n in self.void}
        self.uses_jmp = set()               # functions with a sigsetjmp block (acc volatile)
        self.altstack = r.randint(0, 1)
        self.features = set()               # what the program exercises (feature_list())
        self.graph = collections.defaultdict(set)   # static call graph: name -> callees
        # ids: 0 (root), then names in this order
        self.names = ['(root)', 'main']
        self.ids = {}
        for n in range(1, self.nf + 1):
            self.ids['f%d' % n] = len(self.names)
            self.names.append(self.display('f%d' % n, '(int, unsigned int)'))
        for h in ('h1', 'h2'):
            self.ids[h] = len(self.names)
            self.names.append(self.display(h, '(int)'))
        for t in range(1, self.nthreads + 1):
            self.ids['t%d' % t] = len(self.names)
            self.names.append(self.display('t%d' % t, '(void*)'))
        if self.cpp:
            for key, shown in (('sink', 'sink(unsigned int)'), ('ctor', 'Res::Res(unsigned int)'),
                               ('dtor', 'Res::~Res()')):
                self.ids[key] = len(self.names)
                self.names.append(shown)
        self.ids['main'] = 1

    def type(self, name):
        return 'void' if name in self.void_names else 'unsigned'

    def display(self, name, params):
        """A function's name as the archive shows it (C++: demangled with its parameters)."""
        return name + params if self.cpp else name

    # ---- expressions and statements -------------------------------------------------------

    def const(self):
        return self.rng.randint(1, 0xffff)

    def call(self, me, d='d - 1'):
        """(call expression, whether it returns void): a direct call or one through a pointer
        table; recursion is likely."""
        r = self.rng
        arg = r.choice(['acc + %du' % self.const(), 'acc ^ %du' % self.const(), 'x + acc'])
        if r.random() < 0.25:
            table = r.choice(sorted(self.ptrs))
            self.features.add('pointer-call')
            self.graph[me].update('f%d' % n for n in self.ptrs[table])
            return ('%s[(acc + %du) %% %d](%s, %s)' % (table, self.const(), len(self.ptrs[table]),
                                                       d, arg), table == 'fx_vptr')
        if r.random() < 0.25 and me.startswith('f'):
            n = int(me[1:])
        else:
            n = r.randint(1, self.nf)
        self.graph[me].add('f%d' % n)
        return 'f%d(%s, %s)' % (n, d, arg), n in self.void

    def call_stmt(self, me, d='d - 1'):
        """A call as a statement (its value, if any, added to acc)."""
        expr, void = self.call(me, d)
        return expr + ';' if void else 'acc += %s;' % expr

    def tail(self, me):
        """A call in tail position of me."""
        self.features.add('tail-call')
        expr, void = self.call(me)
        if me in self.void_names:
            return ['{', '\t%s;' % expr, '\treturn;', '}'] if void else \
                ['{', '\t(void)%s;' % expr, '\treturn;', '}']
        return ['return %s;' % expr] if not void else ['{', '\t%s;' % expr, '\treturn acc;', '}']

    def ret(self, me, value):
        return 'return;' if me in self.void_names else 'return %s;' % value

    def stmts(self, me, level, ctx):
        """A list of lines: 1-4 statements. ctx: 'jmp' inside a sigsetjmp block (no returns:
        the block must restore fx_jb), 'loop' inside a loop (no alloca)."""
        r = self.rng
        out = []
        for _ in range(r.randint(1, 4)):
            out += self.stmt(me, level, ctx)
        return out

    def stmt(self, me, level, ctx):
        r = self.rng
        kinds = ['call'] * 6 + ['mix'] * 2 + ['raise', 'return', 'alloca', 'vla', 'loop', 'block']
        if self.cpp:
            kinds += ['throw', 'res']
        else:
            kinds += ['jump']
            if self.fork_left:
                kinds.append('fork')
        if level >= 2:
            kinds = [k for k in kinds if k not in ('loop', 'block', 'res')]
        if 'jmp' in ctx:
            kinds = [k for k in kinds if k != 'return']
        if 'loop' in ctx:
            kinds = [k for k in kinds if k not in ('alloca', 'fork')]
        k = r.choice(kinds)
        self.features.add(k)
        m = r.choice([3, 7, 15])
        v = r.randint(0, m)
        if k == 'call':
            return ['if (FX_GO(d))', '\t' + self.call_stmt(me)]
        if k == 'mix':
            return ['acc = acc * 2654435761u + %du;' % self.const()]
        if k == 'raise':
            how = r.randint(0, 1)
            self.features.add(('raise()', 'kill(getpid())')[how])
            return ['if (FX_GO(d) && (acc & %d) == %d)' % (m, v), '\tfx_signal(%d);' % how]
        if k == 'return':
            return ['if ((acc & %d) == %d)' % (m, v),
                    '\t' + self.ret(me, 'acc + %du' % self.const())]
        if k == 'alloca':
            return ['{', '\tvolatile char *fx_a = (volatile char *)alloca(16 + (acc & 255));',
                    '\tfx_a[acc & 15] = (char)x;', '\tacc += (unsigned)fx_a[acc & 15];', '}']
        if k == 'vla':
            if self.cpp:   # C++ has no VLA: a second alloca of another size
                return ['{', '\tvolatile char *fx_v = (volatile char *)alloca(1 + (x & 511));',
                        '\tfx_v[0] = (char)acc;', '\tacc += (unsigned)fx_v[0];', '}']
            return ['{', '\tvolatile char fx_v[2 + (x & 511)];', '\tfx_v[x & 1] = (char)acc;',
                    '\tacc += (unsigned)fx_v[x & 1];', '}']
        if k == 'loop':
            body = self.stmts(me, level + 1, ctx | {'loop'})
            return (['for (unsigned i = 0; i < %du + (x & 3); i++) {' % r.randint(1, 3),
                     '\tacc += i;'] + ['\t' + s for s in body] + ['}'])
        if k == 'block':
            return ['if ((acc & 1) == %d) {' % r.randint(0, 1)] + \
                ['\t' + s for s in self.stmts(me, level + 1, ctx)] + ['}']
        if k == 'jump':
            if r.random() < 0.5:
                self.features.add('longjmp')
                return ['if (fx_jb && (acc & %d) == %d)' % (m, v), '\tsiglongjmp(*fx_jb, 1);']
            self.features.add('setjmp')
            self.uses_jmp.add(me)
            body = self.stmts(me, level + 1, ctx | {'jmp'})
            return (['{', '\tsigjmp_buf fx_here;', '\tsigjmp_buf *fx_prev = fx_jb;',
                     '\tint fx_level = fx_siglevel;',
                     '\tif (sigsetjmp(fx_here, %d) == 0) {' % r.randint(0, 1),
                     '\t\tfx_jb = &fx_here;']
                    + ['\t\t' + s for s in body]
                    + ['\t} else {', '\t\tfx_depth = fx_d;', '\t\tfx_siglevel = fx_level;',
                       '\t\tacc += %du;' % self.const(),
                       '\t}', '\tfx_jb = fx_prev;', '}'])
        if k == 'throw':
            return ['if (d > 1 && (acc & %d) == %d)' % (m, v), '\tthrow Boom{acc};']
        if k == 'res':
            body = self.stmts(me, level + 1, ctx)
            return ['{', '\tRes fx_r(acc);'] + ['\t' + s for s in body] + \
                ['\tacc += fx_r.v;', '}']
        if k == 'fork':
            self.fork_left = 0
            return ['if (FX_GO(d) && fx_may_fork()) {', '\tpid_t fx_pid = fork();',
                    '\tif (fx_pid == 0) {', '\t\tfx_child();',
                    '\t\t' + self.call_stmt(me, d='%d' % self.top_depth),
                    '\t\tfx_dump();', '\t\texit(0);', '\t}',
                    '\tif (fx_pid > 0)', '\t\twaitpid(fx_pid, NULL, 0);', '}']
        raise AssertionError(k)

    def try_block(self, me, body):
        """C++: calls wrapped in try/catch, restoring the shadow stack where the throw lands."""
        return (['try {'] + ['\t' + s for s in body]
                + ['} catch (const Boom &fx_b) {', '\tfx_depth = fx_d;', '\tacc += fx_b.v;', '}'])

    def body(self, me):
        """The statements of fN: a random body, then a return (a call in tail position or not)."""
        r = self.rng
        lines = []
        if r.random() < 0.3:   # the shape of issue 21: recurse, then call another
            n = r.randint(1, self.nf)
            lines += ['if (FX_GO(d))', '\t' + ('' if me in self.void_names else 'acc += ')
                      + '%s(d - 1, acc + 1u);' % me,
                      'if (FX_GO(d))', '\t' + ('' if n in self.void else 'acc += ')
                      + 'f%d(d - 1, acc);' % n]
        lines += self.stmts(me, 0, frozenset())
        if self.cpp and r.random() < 0.4:
            self.features.add('catch')
            lines = self.try_block(me, lines)
        if r.random() < 0.5:
            lines += ['if (FX_GO(d))'] + ['\t' + s for s in self.tail(me)]
        return lines if me in self.void_names else lines + ['return acc;']

    # ---- the program ----------------------------------------------------------------------

    def function(self, name):
        body = self.body(name)   # first: it decides whether acc is volatile
        acc = 'volatile unsigned' if name in self.uses_jmp else 'unsigned'
        out = ['static %s %s(int d, unsigned x)' % (self.type(name), name), '{',
               '\tFX_FRAME(%d);' % self.ids[name], '\t%s acc = x;' % acc, '\t(void)d;']
        return out + ['\t' + s for s in body] + ['}', '']

    def handler(self, name):
        """A signal handler: calls with a small depth; in C it may siglongjmp out."""
        r = self.rng
        out = ['static void %s(int sig)' % name, '{', '\tFX_FRAME(%d);' % self.ids[name],
               '\tunsigned x = (unsigned)sig, acc = x;', '\tint d = 2;']
        for _ in range(r.randint(1, 2)):
            out += ['\tif (FX_GO(d))', '\t\t' + self.call_stmt(name, d='1')]
        if not self.cpp and r.random() < 0.5:
            self.features.add('siglongjmp-from-handler')
            out += ['\tif (fx_jb && (acc & 3) == %d)' % r.randint(0, 3),
                    '\t\tsiglongjmp(*fx_jb, 1);']
        return out + ['\tfx_keep += acc;', '}', '']

    def thread(self, name):
        inner = ['\t' + self.call_stmt(name, d='%d' % self.top_depth)]
        if self.cpp:
            inner = ['\ttry {', '\t' + inner[0], '\t} catch (const Boom &fx_b) {',
                     '\t\tfx_depth = fx_d;', '\t\tacc += fx_b.v;', '\t}']
        return (['static void *%s(void *arg)' % name, '{', '\tFX_FRAME(%d);' % self.ids[name],
                 '\tunsigned x = (unsigned)(uintptr_t)arg, acc = x;']
                + inner + ['\treturn (void *)(uintptr_t)acc;', '}', ''])

    def cpp_parts(self):
        """Boom (thrown), sink (a leaf) and Res (constructor and destructor call functions)."""
        i = self.ids
        return ['struct Boom {', '\tunsigned v;', '};', '',
                'static unsigned sink(unsigned x)', '{', '\tFX_FRAME(%d);' % i['sink'],
                '\tfx_keep += x;', '\treturn x * 3u;', '}', '',
                'struct Res {', '\tunsigned v;', '\texplicit Res(unsigned x);', '\t~Res();', '};',
                '', 'Res::Res(unsigned x) : v(x)', '{', '\tFX_FRAME(%d);' % i['ctor'],
                '\tif (x & 1)', '\t\tv += sink(x);', '}', '',
                'Res::~Res()', '{', '\tFX_FRAME(%d);' % i['dtor'], '\tsink(v);', '}', '']

    def main(self):
        r = self.rng
        out = ['int main(int argc, char **argv)', '{', '\tFX_FRAME(1);', '\t(void)argv;',
               '\tunsigned x = (unsigned)argc * %du, acc = x;' % self.const(), '\tint d = 1;',
               '\tfx_is_main = 1;', '\tfx_handlers(h1, h2, %d);' % self.altstack]
        if self.nthreads:
            out += ['\tpthread_t th[%d];' % self.nthreads, '\tfx_block_usr2(1);']
            for t in range(self.nthreads):
                out += ['\tpthread_create(&th[%d], NULL, t%d, (void *)(uintptr_t)%du);'
                        % (t, t + 1, self.const())]
            out += ['\tfx_block_usr2(0);']
        calls = []
        for _ in range(r.randint(1, 3)):
            calls += ['\tif (FX_GO(d))', '\t\t' + self.call_stmt('main', d='%d' % self.top_depth)]
        if self.cpp:
            calls = ['\ttry {'] + ['\t' + s for s in calls] + \
                ['\t} catch (const Boom &fx_b) {', '\t\tfx_depth = fx_d;', '\t\tacc += fx_b.v;',
                 '\t}']
        out += calls
        for t in range(self.nthreads):
            out += ['\tpthread_join(th[%d], NULL);' % t]
        return out + ['\tfx_keep += acc;', '\tfx_dump();', '\treturn 0;', '}']

    REPORTED = {'loop': 'loop', 'return': 'early-return', 'alloca': 'alloca', 'vla': 'vla',
                'raise()': 'raise()', 'kill(getpid())': 'kill(getpid())', 'setjmp': 'setjmp',
                'longjmp': 'longjmp', 'siglongjmp-from-handler': 'siglongjmp-from-handler',
                'throw': 'throw', 'catch': 'catch', 'res': 'raii', 'fork': 'fork',
                'pointer-call': 'pointer-call', 'tail-call': 'tail-call'}

    def feature_list(self):
        """The sorted names of what this program exercises (once its text is made)."""
        out = {self.REPORTED[f] for f in self.features if f in self.REPORTED}
        fs = ['f%d' % n for n in range(1, self.nf + 1)]
        if any(f in self.graph[f] for f in fs):
            out.add('self-recursion')
        reach = {f: set(self.graph[f]) for f in fs}   # transitive closure over fN
        for k in fs:
            for f in fs:
                if k in reach[f]:
                    reach[f] |= reach[k]
        if any(g != f and f in reach[g] for f in fs for g in reach[f]):
            out.add('mutual-recursion')
        if self.nthreads:
            out.add('threads')
        if self.altstack:
            out.add('altstack')
        if self.void:
            out.add('void-functions')
        return sorted(out)

    def text(self):
        fnames = ['f%d' % n for n in range(1, self.nf + 1)]
        funcs = []
        for name in fnames:
            funcs += self.function(name)
        handlers = self.handler('h1') + self.handler('h2')
        threads = []
        for t in range(1, self.nthreads + 1):
            threads += self.thread('t%d' % t)
        lang = 'C++' if self.cpp else 'C'
        out = ['/* difftest program, seed %d, %s (generated by tests/difftest/gen.py)'
               % (self.seed, lang),
               ' * features: %s */' % ' '.join(self.feature_list())]
        out += [(HEADER_CPP if self.cpp else HEADER_C).rstrip('\n'), '']
        out += ['#define FX_NF %d' % len(self.names), '#define FX_BUDGET %dL' % self.budget,
                'static const char *const fx_name[FX_NF] = {']
        out += ['\t"%s",' % n for n in self.names] + ['};', RUNTIME]
        if not self.cpp:
            out += [RUNTIME_C]
        out += ['static %s %s(int d, unsigned x) __attribute__((unused));' % (self.type(f), f)
                for f in fnames]
        for table, members in sorted(self.ptrs.items()):
            out += ['static %s (*const %s[%d])(int, unsigned) = { %s };'
                    % ('void' if table == 'fx_vptr' else 'unsigned', table, len(members),
                       ', '.join('f%d' % p for p in members))]
        out += ['']
        if self.cpp:
            out += self.cpp_parts()
        return '\n'.join(out + funcs + handlers + threads + self.main()) + '\n'


def generate(seed):
    """(language, source text, features) of the program of this seed: language 'c' or 'cpp',
    features the names of what it exercises."""
    p = Program(seed)
    text = p.text()
    return ('cpp' if p.cpp else 'c'), text, p.feature_list()


def main():
    ap = argparse.ArgumentParser(description='Writes the difftest program of one seed.')
    ap.add_argument('seed', type=int)
    ap.add_argument('-o', metavar='FILE', help='write FILE.c or FILE.cpp (default: stdout)')
    a = ap.parse_args()
    lang, text, _ = generate(a.seed)
    if a.o is None:
        sys.stdout.write(text)
        return
    with open('%s.%s' % (a.o, lang), 'w') as f:
        f.write(text)
    print(lang)


if __name__ == '__main__':
    main()
