#!/usr/bin/env python3
# Checks what libfxtauto.so records of a program's threads, locks and logs: runs PROGRAM
# untraced and traced (LD_PRELOAD=$FXTAUTO), requires identical stdout, stderr and exit status,
# `fxt check` valid, then reads the archive through `fxt dump` (the project's reader) and checks
# the claims of CASE: sync (tests/progs/k-sync.c), log (k-log.c), lines (any program: each
# stderr line one log record, in order) or threaded (any program: valid archive naming its
# threads). Prints one `ok`/`FAIL` line per claim; exit 1 on a failure.
# Usage: check.py CASE PROGRAM [ARGS...]; env: FXT, FXTAUTO, optionally FXT_LOG.
# SPDX-License-Identifier: MIT
import collections
import os
import re
import subprocess
import sys
import tempfile

failed = 0


def ok(cond, claim):
    global failed
    print(("ok: " if cond else "FAIL: ") + claim)
    if not cond:
        failed = 1


REC = re.compile(r'^([0-9a-f]{8}) (\S+) ?(.*)$')
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def unquote(v):
    if v.startswith('"'):
        return bytes(v[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
    return v


def parse(dump):
    """Records as dicts: off, type, fields (before args{...}), args (name -> raw value)."""
    recs = []
    for line in dump.splitlines():
        m = REC.match(line)
        if not m:
            continue
        rest = m.group(3)
        args = {}
        a = rest.find(' args{')
        if a >= 0:
            for am in re.finditer(r'"((?:[^"\\]|\\.)*)":(\w+)=("(?:[^"\\]|\\.)*"|[^,}]+)',
                                  rest[a:]):
                args[am.group(1)] = unquote(am.group(3))
            rest = rest[:a]
        f = {k: unquote(v) for k, v in FIELD.findall(rest)}
        recs.append({'off': int(m.group(1), 16), 'type': m.group(2), 'f': f, 'args': args})
    return recs


def run(env_extra, argv, cwd):
    env = dict(os.environ)
    env.update(env_extra)
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def thread_names(recs):
    """tid -> every name its kernel object records gave, in order."""
    names = collections.defaultdict(list)
    for r in recs:
        if r['type'] == 'kernel_object' and r['f'].get('obj_type') == '2':
            names[r['f']['koid']].append(r['f']['name'])
    return names


def tid_of(r):
    return r['f']['thread'].split('/')[1]


def lock_waits(recs, names):
    """(thread's last name, event name, label, record) of every lock wait; the label is the
    string argument, else the name of the object's userspace object record."""
    uobj = {r['f']['pointer']: r['f']['name'] for r in recs if r['type'] == 'userspace_object'}
    return [(names[tid_of(r)][-1] if names[tid_of(r)] else '?', r['f']['name'],
             r['args'].get('label', uobj.get(r['args'].get('object'))), r) for r in recs
            if r['type'] == 'complete' and r['f'].get('cat') == 'lock']


def check_sync(recs):
    names = thread_names(recs)
    waits = lock_waits(recs, names)
    got = {(n, e, l) for n, e, l, _ in waits}
    labels = os.environ.get('FXT_LOCK_LABELS') != '0'
    for want in [('consumer', 'cond_wait', 'queue_cond'), ('locker', 'mutex_lock', 'queue_lock'),
                 ('locker', 'rwlock_rdlock', 'table_lock'), ('locker', 'sem_wait', 'ready_sem'),
                 ('locker', 'barrier_wait', 'start_barrier'),
                 ('k-sync', 'join', 'sleeper' if labels else None),   # threads: no uobj
                 ('k-sync', 'sem_timedwait', 'idle_sem'), ('k-sync', 'cond_clockwait', 'idle_cond')]:
        ok(want in got, 'thread %s waits in %s on %s (a lock duration with its label)' % want)
    ok(all(('label' in w[3]['args']) == labels for w in waits),
       'lock waits %s a label argument' % ('carry' if labels else '(FXT_LOCK_LABELS=0) lack'))
    uobj = {r['f']['pointer']: r for r in recs if r['type'] == 'userspace_object'}
    for name in ['queue_lock', 'queue_cond', 'table_lock', 'ready_sem', 'start_barrier',
                 'idle_sem', 'idle_cond']:
        ok(any(u['f']['name'] == name for u in uobj.values()),
           'a userspace object record names %s by its symbol' % name)
    ok(all(w[3]['args'].get('object') in uobj and uobj[w[3]['args']['object']]['off'] <
           w[3]['off'] for w in waits if w[1] != 'join'),
       'every wait points to an object whose record comes before it')
    ok(all(uobj[w[3]['args']['object']]['f']['name'] == w[2] for w in waits
           if w[1] != 'join' and w[3]['args'].get('object') in uobj),
       'each wait\'s label is its object\'s userspace object name')
    ok(all(int(w[3]['f']['end_ts']) >= int(w[3]['f']['ts']) for w in waits),
       'no wait ends before it starts')
    for final, first in [('consumer', 'cons-a'), ('locker', 'lock-a'), ('sleeper', 'sleep-a')]:
        ok(any(n[-2:] == [first, final] for n in names.values()),
           'a thread renamed twice has kernel object records %s then %s' % (first, final))


def check_flows(recs, n):
    names = thread_names(recs)
    begins = {r['f']['id']: r for r in recs if r['type'] == 'flow_begin'}
    ends = {r['f']['id']: r for r in recs if r['type'] == 'flow_end'}
    ok(len(begins) == n and set(begins) == set(ends),
       'each of the %d pthread_create calls is a flow begun and ended (%d/%d)'
       % (n, len(begins), len(ends)))
    ok(all(tid_of(ends[i]) != tid_of(b) and names[tid_of(ends[i])] for i, b in begins.items()
           if i in ends), 'each flow ends on another thread, a named one')


def check_log(recs, stderr, stdout, streams):
    names = thread_names(recs)
    logs = collections.defaultdict(list)    # (thread, stream) -> log record messages
    inst = collections.defaultdict(list)    # (thread, stream) -> instant event messages
    with_events = os.environ.get('FXT_LOG_EVENTS') != '0'   # else FXT_LOG=stderr is tested
    events = {(tid_of(r), r['f']['ts']): r for r in recs
              if r['type'] == 'instant' and r['f'].get('cat') == 'log'}
    nlogs = 0
    for r in recs:     # a line's log record and instant event share thread and time
        if r['type'] != 'log':
            continue
        nlogs += 1
        th = names[tid_of(r)][-1]
        ev = events.get((tid_of(r), r['f']['ts']))
        stream = ev['f']['name'] if ev else 'stderr'
        logs[(th, stream)].append(r['f']['msg'])
        if ev:
            inst[(th, stream)].append(ev['args'].get('message'))
    want = collections.defaultdict(list)
    for text, stream in ((stderr, 'stderr'), (stdout, 'stdout')):
        if stream not in streams:
            continue
        for line in text.decode('utf-8', 'replace').replace('\ufffd', '?').splitlines():
            m = re.match(r'^(\S+) ', line)
            if m:
                want[(m.group(1), stream)].append(line[:32000])
    if 'syslog' in streams:
        want[('k-log', 'syslog')] = ['k-log syslog No such file or directory', 'k-log syslog 7']
    if streams != ['none']:
        ok(len({th for th, _ in want}) >= 5, 'the program printed lines from %d threads'
           % len({th for th, _ in want}))
    for key, lines in sorted(want.items()):
        ok(logs.get(key) == lines,
           'thread %s, %s: its %d lines are log records on it, in order' % (key + (len(lines),)))
        if with_events:
            ok(inst.get(key) == lines,
               'thread %s, %s: each line is also an instant event (category log) on it' % key)
    if not with_events:
        ok(not inst, 'FXT_LOG_EVENTS=0: no log instant event')
    extra = nlogs - sum(len(v) for v in want.values())
    ok(extra == 0, 'no log record beyond the lines of the captured streams (%d extra)' % extra)


def check_lines(recs, stderr):
    """Every line the program wrote to stderr is one log record, in order, and nothing else."""
    want = stderr.decode('utf-8', 'replace').replace('\ufffd', '?').splitlines()
    got = [r['f']['msg'] for r in recs if r['type'] == 'log']
    ok(len(want) > 0, 'the program wrote %d lines to stderr' % len(want))
    for i, line in enumerate(want):
        ok(i < len(got) and got[i] == line, 'stderr line %d is log record %d: %r' % (i, i, line))
    ok(len(got) == len(want), '%d log records for %d lines' % (len(got), len(want)))


def main():
    case, argv = sys.argv[1], sys.argv[2:]
    argv[0] = os.path.realpath(argv[0])
    fxt = os.path.realpath(os.environ['FXT'])
    preload = os.path.realpath(os.environ['FXTAUTO'])
    with tempfile.TemporaryDirectory() as work:
        plain = run({}, argv, work)
        arch = os.path.join(work, 'trace.fxt')
        traced = run({'LD_PRELOAD': preload, 'FXT_OUTPUT': arch,
                      'ASAN_OPTIONS': 'verify_asan_link_order=0'}, argv, work)
        ok(plain[1] == traced[1], 'stdout is byte-identical with the tracer')
        ok(plain[2] == traced[2], 'stderr is byte-identical with the tracer')
        ok(plain[0] == traced[0], 'exit status %d untraced, %d traced' % (plain[0], traced[0]))
        chk = subprocess.run([fxt, 'check', arch], capture_output=True, text=True)
        ok(chk.returncode == 0 and 'valid' in chk.stdout.split('\n'), 'fxt check: the archive is valid')
        dump = subprocess.run([fxt, 'dump', arch], capture_output=True, text=True,
                              errors='replace')
        recs = parse(dump.stdout)
        if case == 'sync':
            check_sync(recs)
            check_flows(recs, 3)
        elif case == 'log':
            streams = (os.environ.get('FXT_LOG') or 'stderr,syslog').split(',')
            check_log(recs, traced[2], traced[1], streams)
        elif case == 'lines':
            check_lines(recs, traced[2])
        else:
            names = thread_names(recs)
            ok(len(names) >= 2 and all(n for n in names.values()),
               '%d threads, each named by a kernel object record: %s' %
               (len(names), sorted({n[-1] for n in names.values()})))
            check_flows(recs, len(names) - 1)
            waits = lock_waits(recs, names)
            print('lock waits: %d (%s)' % (len(waits), sorted({(w[1], w[2]) for w in waits})[:8]))
    return failed


sys.exit(main())
