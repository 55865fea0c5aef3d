#!/usr/bin/env python3
"""Differential tester: the caller->callee edge counts the tracer records must equal the ones
the traced program counted itself.

For each seed, gen.py writes a random self-counting program (C or C++); each variant builds it
(gcc and clang at -O0 -O1 -O2 -O3 -Os, gcc -O1 with sibling calls and -O2 without), each mode
traces it (`fxtrun`, and LD_PRELOAD=libfxtauto.so alone with FXT_OUTPUT), and the program's own
edge dump (its stdout) is compared with `fxt report --edges` summed over the run's archives (a
forked child's is a file of its own in the LD_PRELOAD mode). Mode `uftrace` (not a default: the
bench bench/difftest-uftrace.sh) compares `uftrace graph` instead.

A run fails, with its class, when
  compile  the compiler rejects the program (a generator bug),
  exit     the traced program does not exit 0 within the time limit,
  reader   the reader rejects an archive, or one is missing or left unfinished,
  program  the program's own counts differ from the other runs of its seed (the programs are
           deterministic: a generator or compiler bug, not the tracer's),
  edges    one edge count read back differs from the program's own, and the archive's calls,
           nested by time by tests/e2e/fxt-calls, differ too (the recording is wrong),
  report   only `fxt report --edges` differs: fxt-calls reads the program's counts.
Each failure prints its seed, the differing edges and a reproducer command (--quiet: not);
the summary counts runs, failures by class, variant and mode, the runs that passed per variant
and mode, and the features the seeds covered. Exit 0 when every run passed, 1 when one failed,
2 on a usage error.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

# name: (C compiler, C++ compiler, flags). -O2 and up already optimize sibling calls (the exit
# hook becomes a jump); -O1 does not unless asked, -O2 stops when told not to.
VARIANTS = collections.OrderedDict(
    [('gcc-O%s' % o, ('gcc', 'g++', ['-O' + o])) for o in '0123s']
    + [('gcc-O1-sibcall', ('gcc', 'g++', ['-O1', '-foptimize-sibling-calls'])),
       ('gcc-O2-nosibcall', ('gcc', 'g++', ['-O2', '-fno-optimize-sibling-calls']))]
    + [('clang-O%s' % o, ('clang', 'clang++', ['-O' + o])) for o in '0123s'])
MODES = ('fxtrun', 'preload')
RUN_TIMEOUT = 120


class Tools:
    """The project's binaries, from a build directory."""

    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.fxt = os.path.join(self.build, 'launcher', 'fxt')
        self.fxtrun = os.path.join(self.build, 'launcher', 'fxtrun')
        self.fxtauto = os.path.join(self.build, 'preload', 'libfxtauto.so')
        self.fxt_calls = os.path.join(self.build, 'tests', 'fxt-calls')
        for path in (self.fxt, self.fxtrun, self.fxtauto, self.fxt_calls):
            if not os.path.exists(path):
                sys.exit('difftest: %s: not built (--build names the build directory)' % path)


class Failure(Exception):
    """A failed run: cls is its class (see the top comment), text the details."""

    def __init__(self, cls, text):
        super().__init__(text)
        self.cls = cls
        self.text = text


def parse_edges(text, what):
    """{(caller, callee): count} of `count\\tcaller\\tcallee` lines."""
    edges = collections.Counter()
    for line in text.splitlines():
        parts = line.split('\t')
        if len(parts) != 3 or not parts[0].isdigit():
            raise Failure('reader', '%s: not an edge line: %r' % (what, line))
        edges[(parts[1], parts[2])] += int(parts[0])
    return edges


GRAPH_LINE = re.compile(r'^((?: \| |   | \+-)*)\((\d+)\) (.*)$')


def parse_uftrace_graph(text):
    """{(caller, callee): count} of `uftrace graph -f none` output: a node's only child is
    printed on the next line at its indent, several children one indent deeper after ` +-`;
    the root of each graph is the program, its children are callers `(root)`."""
    edges = collections.Counter()
    last = None         # the node printed last
    by_indent = {}      # indent -> the node printed last at it
    for line in text.splitlines():
        if line.startswith('#') or line.startswith('='):   # a graph (session) begins
            last = None
            continue
        m = GRAPH_LINE.match(line)
        if not m:
            continue    # the ` | ` lines between subtrees
        prefix, count, name = m.groups()
        indent = len(prefix) // 3
        node = (name, line)
        if last is None:
            node = ('(root)', line)
        elif prefix.endswith('+-'):
            edges[(by_indent[indent - 1][0], name)] += int(count)
        else:
            edges[(last[0], name)] += int(count)
        by_indent[indent] = last = node
    return edges


def clean_env():
    """The environment without the tracer's own settings (they would change what is traced).
    Under an ASan build of the tracer, the preloaded library comes before the ASan runtime
    (the programs are not sanitized): ASan must allow it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('FXT_') and k != 'LD_PRELOAD'}
    env['ASAN_OPTIONS'] = ':'.join(filter(None, [env.get('ASAN_OPTIONS'),
                                                 'verify_asan_link_order=0']))
    return env


def run(cmd, cwd, env=None, what=''):
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=RUN_TIMEOUT, text=True)
    except subprocess.TimeoutExpired:
        raise Failure('exit', '%s did not end within %d s' % (what, RUN_TIMEOUT))


def build(src, lang, variant, exe):
    cc, cxx, flags = VARIANTS[variant]
    cmd = [cxx if lang == 'cpp' else cc] + flags + ['-finstrument-functions', '-pthread', '-w',
                                                    '-o', exe, src]
    p = run(cmd, os.path.dirname(exe), what='the compiler')
    if p.returncode != 0:
        raise Failure('compile', '%s:\n%s' % (' '.join(cmd), p.stderr[-2000:]))


def fxt_calls_edges(text):
    """{(caller, callee): count} of fxt-calls' `edge THREAD COUNT CALLER CALLEE` lines (caller
    `-`: the top of a thread), summed over threads."""
    edges = collections.Counter()
    for line in text.splitlines():
        parts = line.split('\t')
        if parts[0] == 'edge':
            edges[('(root)' if parts[3] == '-' else parts[3], parts[4])] += int(parts[2])
    return edges


def read_archives(tools, out, work, reader='report'):
    """The edges of the archive at out and of those beside it named out.PID (forked children),
    read by `fxt report --edges` (reader 'report') or by fxt-calls ('calls')."""
    base = os.path.basename(out)
    files = sorted(f for f in os.listdir(work) if f.startswith(base))
    if base not in files:
        raise Failure('reader', 'no archive at %s (files: %s)' % (out, ' '.join(files)))
    edges = collections.Counter()
    for f in files:
        if not re.fullmatch(re.escape(base) + r'(\.[0-9]+)?', f):
            raise Failure('reader', '%s left beside the archive' % f)
        if reader == 'calls':
            r = run([tools.fxt_calls, f], work, what='fxt-calls')
            if r.returncode != 0:
                raise Failure('edges', 'fxt-calls %s: %s' % (f, r.stderr.strip()))
            edges.update(fxt_calls_edges(r.stdout))
            continue
        r = run([tools.fxt, 'report', '--edges', f], work, what='fxt report --edges')
        if r.returncode != 0:
            raise Failure('reader', 'fxt report --edges %s: %s' % (f, r.stderr.strip()))
        edges.update(parse_edges(r.stdout, 'fxt report --edges %s' % f))
    return edges


def trace(tools, exe, mode, work):
    """Runs exe traced in mode; returns (program's edges, tracer's edges, the archive or uftrace
    data)."""
    env = clean_env()
    out = os.path.join(work, 'trace.fxt')
    if mode == 'fxtrun':
        cmd = [tools.fxtrun, '--buffer-size', '4M', '-o', out, exe]
    elif mode == 'preload':
        cmd = [exe]
        env.update(LD_PRELOAD=tools.fxtauto, FXT_OUTPUT=out)
    else:
        out = os.path.join(work, 'uftrace.data')
        cmd = ['uftrace', 'record', '-d', out, exe]
    p = run(cmd, work, env, what='the traced program')
    with open(os.path.join(work, 'program.txt'), 'w') as f:
        f.write(p.stdout)
    if p.returncode != 0:
        raise Failure('exit', 'exit status %d (negative: signal), stderr:\n%s'
                      % (p.returncode, p.stderr[-2000:]))
    program = parse_edges(p.stdout, 'program output')
    if mode != 'uftrace':
        return program, read_archives(tools, out, work), out
    g = run(['uftrace', 'graph', '-d', out, '-f', 'none', '--no-libcall', '--no-event',
             '--demangle=full'], work, what='uftrace graph')
    if g.returncode != 0:
        raise Failure('reader', 'uftrace graph: %s' % g.stderr.strip())
    return program, parse_uftrace_graph(g.stdout), out


def compare(program, traced, limit=12):
    """Lines `program archive caller -> callee` of the edges whose counts differ ('' if none)."""
    keys = sorted(k for k in set(program) | set(traced) if program[k] != traced[k])
    lines = ['  %8s %8s  %s -> %s' % (program[k], traced[k], k[0], k[1]) for k in keys[:limit]]
    if len(keys) > limit:
        lines.append('  ... %d more' % (len(keys) - limit))
    if lines:
        lines.insert(0, '  %8s %8s  edge (%d of %d differ)' % ('program', 'tracer', len(keys),
                                                                len(set(program) | set(traced))))
    return '\n'.join(lines)


def classify(tools, program, traced, out, work, err):
    """An edges failure becomes a report failure when fxt-calls, nesting the archive's calls
    by time, reads the program's own counts."""
    try:
        calls = read_archives(tools, out, work, reader='calls')
    except Failure as e:
        return Failure('edges', '%s\n  (%s)' % (err.text, e.text))
    if not compare(program, calls):
        return Failure('report', '%s\n  (fxt-calls reads the archive as the program counted)'
                       % err.text)
    reads = 'the same' if calls == traced else 'other counts:\n' + compare(program, calls)
    return Failure('edges', '%s\n  (fxt-calls reads %s)' % (err.text, reads))


def job(tools, seed, variants, modes, root, keep):
    """Builds the seed's program with each variant and traces it in each mode.
    Returns (language, features, [(variant, mode, Failure or None)])."""
    lang, text, features = gen.generate(seed)
    sdir = os.path.join(root, 'seed-%d' % seed)
    os.makedirs(sdir, exist_ok=True)
    src = os.path.join(sdir, 'p%d.%s' % (seed, lang))
    with open(src, 'w') as f:
        f.write(text)
    results = []
    first = None    # the program's own counts in the first run that completed
    for variant in variants:
        vdir = os.path.join(sdir, variant)
        os.makedirs(vdir, exist_ok=True)
        exe = os.path.join(vdir, 'p%d' % seed)
        try:
            build(src, lang, variant, exe)
        except Failure as e:
            results += [(variant, m, e) for m in modes]
            continue
        for mode in modes:
            work = os.path.join(vdir, mode)
            os.makedirs(work, exist_ok=True)
            err = None
            try:
                program, traced, out = trace(tools, exe, mode, work)
                if first is None:
                    first = (variant, mode, program)
                diff = compare(first[2], program)
                if diff:
                    err = Failure('program', '%s\n  (program: counts of %s %s, tracer: of this '
                                  'run)' % (diff, first[0], first[1]))
                else:
                    diff = compare(program, traced)
                    err = Failure('edges', diff) if diff else None
                if err and err.cls == 'edges' and mode != 'uftrace':
                    err = classify(tools, program, traced, out, work, err)
            except Failure as e:
                err = e
            results.append((variant, mode, err))
            if not keep:
                shutil.rmtree(work)
    if not keep:
        shutil.rmtree(sdir)
    return lang, features, results


def seed_range(text):
    first, _, last = text.partition(':')
    try:
        return range(int(first), int(last or first) + 1)
    except ValueError:
        raise argparse.ArgumentTypeError('expected FIRST:LAST or SEED, got %r' % text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', required=True,
                    help='the build directory (launcher/fxt, launcher/fxtrun, '
                    'preload/libfxtauto.so)')
    ap.add_argument('--seeds', type=seed_range, action='append', required=True,
                    help='FIRST:LAST or SEED (repeatable)')
    ap.add_argument('--variant', action='append', choices=list(VARIANTS),
                    help='compiler and flags (repeatable; default: all)')
    ap.add_argument('--mode', action='append', choices=MODES + ('uftrace',),
                    help='repeatable; default: %s' % ' and '.join(MODES))
    ap.add_argument('-j', type=int, default=2, help='seeds built and traced at once (2)')
    ap.add_argument('--quiet', action='store_true', help='the summary only')
    ap.add_argument('--keep', metavar='DIR', help='keep sources, binaries, archives and the '
                    "programs' output in DIR/seed-N/VARIANT/MODE")
    a = ap.parse_args()
    tools = Tools(a.build)
    seeds = sorted({s for r in a.seeds for s in r})
    variants = a.variant or list(VARIANTS)
    modes = a.mode or list(MODES)
    root = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix='fxt-difftest.')
    os.makedirs(root, exist_ok=True)
    me = os.path.relpath(os.path.abspath(__file__))
    failures = collections.Counter()
    runs = collections.Counter()
    passed = collections.Counter()     # (variant, mode) -> runs that passed
    tried = collections.Counter()      # (variant, mode) -> runs
    covered = collections.Counter()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
            futures = {pool.submit(job, tools, s, variants, modes, root, a.keep): s
                       for s in seeds}
            for fut in concurrent.futures.as_completed(futures):
                seed = futures[fut]
                lang, features, results = fut.result()
                covered.update(features + [lang])
                for variant, mode, err in results:
                    runs[lang] += 1
                    tried[(variant, mode)] += 1
                    if err is None:
                        passed[(variant, mode)] += 1
                        continue
                    failures[(err.cls, variant, mode)] += 1
                    if not a.quiet:
                            print('FAIL seed %d (%s) %s %s: %s\n%s\n  reproduce: %s --build %s '
                              '--seeds %d --variant %s --mode %s --keep /tmp/fxt-difftest-%d'
                              % (seed, lang, variant, mode, err.cls, err.text, me,
                                 shlex.quote(tools.build), seed, variant, mode, seed), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    nfail = sum(failures.values())
    print('difftest: %d runs of %d seeds (%d C, %d C++; %d variants x %s), %d failed'
          % (sum(runs.values()), len(seeds), runs['c'], runs['cpp'], len(variants),
             '+'.join(modes), nfail))
    for (cls, variant, mode), n in sorted(failures.items()):
        print('  %5d  %-8s %-17s %s' % (n, cls, variant, mode))
    print('runs equal to the program\'s counts:\n  %-17s' % 'variant'
          + ''.join(' %12s' % m for m in modes))
    for variant in variants:
        print('  %-17s' % variant + ''.join(' %12s' % ('%d/%d' % (passed[(variant, m)],
                                                                   tried[(variant, m)]))
                                             for m in modes))
    print('seeds with: ' + ', '.join('%s %d' % (f, covered[f]) for f in sorted(covered)))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main())
