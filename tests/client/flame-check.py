#!/usr/bin/env python3
"""The widths of `fxt flame` are report --tree's figures: runs `fxt flame --folded OPTIONS
ARCHIVE` and `fxt report --tree OPTIONS ARCHIVE` (--sample: its sampled call tree; --threads
and the selection options passed to both), sums the folded values per call path and compares,
for every line report --tree prints, the path's own folded value with its self column and
(wall time: no context switches in the archive) the sum over the path and the paths below it
with its total column, to the precision report prints (12.345 us: 0.5 ns). Every folded path
must be one report prints. Then per function, the folded values of the paths ending in it
summed equal the self column of `fxt report` (the table). --window: the options hold a window,
which report --tree leaves empty when the outer calls cross it (it hides calls it does not
count and their callees; flame draws them, without time of their own): the table alone.
Prints "flame-check: N paths, M compared, 0 mismatches"; exit 1 on a mismatch.
Usage: flame-check.py FXT ARCHIVE [--window] [fxt flame options...]"""
import re
import subprocess
import sys

fxt, archive, *opts = sys.argv[1:]
window = '--window' in opts
opts = [o for o in opts if o != '--window']
sample = '--sample' in opts
ropts = [o for o in opts if o != '--sample']

UNIT = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}


def ns(text):
    """A time as fxt_time_fmt prints it, and the half unit of its last digit."""
    v, u = text.split()
    dec = len(v.split('.')[1]) if '.' in v else 0
    return float(v) * UNIT[u], UNIT[u] / 10 ** dec / 2


run = subprocess.run([fxt, 'flame', '--folded', *opts, archive], capture_output=True, text=True,
                     errors='surrogateescape')
table = subprocess.run([fxt, 'report', '--sort', 'name', *ropts, archive], capture_output=True,
                       text=True, errors='surrogateescape')
if 'no calls match' in table.stderr and table.returncode == 1:
    # nothing inside the window: flame says so as report does, and writes nothing
    ok = run.returncode == 1 and 'no calls match' in run.stderr and not run.stdout
    print(f'flame-check: no calls in the window, flame exit {run.returncode}: {run.stderr.strip()}'
          f', {0 if ok else 1} mismatches')
    sys.exit(0 if ok else 1)
if run.returncode or table.returncode:
    sys.exit(f'flame-check: fxt flame exit {run.returncode}, fxt report exit {table.returncode}:'
             f' {run.stderr.strip()} {table.stderr.strip()}')
folded, table = run.stdout, table.stdout
own, incl = {}, {}
top = 2 if '--threads' in opts else 1   # process (and thread) frames above the calls


def key_of(frames):
    """(process id, thread id or 0) from the top frames "NAME [ID]" / "process ID"."""
    ids = [int(re.search(r'(\d+)\]?$', f).group(1)) for f in frames[:top]]
    return (ids[0], ids[1] if top == 2 else 0)


for line in folded.splitlines():
    path, value = line.rsplit(' ', 1)
    frames = path.split(';')
    k, calls = key_of(frames), tuple(frames[top:])
    own[(k, calls)] = own.get((k, calls), 0) + int(value)
    for d in range(1, len(calls) + 1):
        incl[(k, calls[:d])] = incl.get((k, calls[:d]), 0) + int(value)

oncpu = table.find('on-cpu') >= 0
report = '' if window else subprocess.run([fxt, 'report', '--tree', *ropts, archive],
                                          check=True, capture_output=True, text=True,
                                          errors='surrogateescape').stdout
want = 'sampled call tree' if sample else 'call tree'
section, stack, seen, compared, bad = None, [], set(), 0, 0
for line in report.splitlines():
    m = re.match(r'== (.*?): process (\d+) \(.*?\)(?:, thread (\d+) \(.*\))? ==$', line)
    if m:
        section = (int(m.group(2)), int(m.group(3) or 0)) if m.group(1) == want else None
        stack = []
        continue
    if section is None or len(line) <= 38 or line.startswith('       total'):
        if not line.strip():
            section = None
        continue
    total, self_ = ns(line[0:12].strip()), ns(line[13:25].strip())
    rest = line[38:]
    depth = (len(rest) - len(rest.lstrip(' '))) // 2
    stack[depth:] = [rest.strip().replace(';', ':')]
    path = (section, tuple(stack))
    seen.add(path)
    compared += 1
    got_own, got_incl = own.get(path, 0), incl.get(path, 0)
    if abs(got_own - self_[0]) > self_[1] + 1:
        bad += 1
        print(f'self mismatch {path}: folded {got_own} ns, report {line[13:25].strip()}')
    if not oncpu and abs(got_incl - total[0]) > total[1] + 1:
        bad += 1
        print(f'total mismatch {path}: folded {got_incl} ns, report {line[0:12].strip()}')
    if oncpu and got_incl > total[0] + total[1] + 1:
        bad += 1
        print(f'on-CPU {path}: folded {got_incl} ns over the wall total {line[0:12].strip()}')
# the table: per (process or thread, function) the summed own time of the paths ending in it
leaf = {}
for (k, calls), v in own.items():
    if calls and not calls[-1].startswith('['):
        leaf[(k, calls[-1])] = leaf.get((k, calls[-1]), 0) + v
want = 'sampled stacks' if sample else 'functions'
section, rows = None, set()
for line in table.splitlines():
    m = re.match(r'== (.*?): process (\d+) \(.*?\)(?:, thread (\d+) \(.*\))? ==$', line)
    if m:
        section = (int(m.group(2)), int(m.group(3) or 0)) if m.group(1).startswith(want) else None
        continue
    if section is None or not line.strip() or line.lstrip().startswith(('calls', 'slices')):
        if not line.strip():
            section = None
        continue
    col = 90 if oncpu else 64
    name, self_ = line[col:].replace(';', ':'), ns(line[24:36].strip())
    if name.startswith('['):
        continue    # [preempted], [blocked]: off-CPU rows, no frames
    rows.add((section, name))
    compared += 1
    if abs(leaf.get((section, name), 0) - self_[0]) > self_[1] + 1:
        bad += 1
        print(f'table self mismatch {section} {name}: folded {leaf.get((section, name), 0)} ns,'
              f' report {line[24:36].strip()}')
for k, v in leaf.items():
    if k not in rows and v:
        bad += 1
        print(f'folded function not in the report table: {k}')
extra = [p for p in incl if p not in seen]
if extra and not window:
    bad += len(extra)
    for p in extra[:10]:
        print(f'folded path not in report --tree: {p}')
if not compared:
    print('flame-check: report --tree printed no call tree')
    bad += 1
print(f'flame-check: {len(incl)} paths, {compared} compared'
      f'{" (on-CPU: self only)" if oncpu else ""}, {bad} mismatches')
sys.exit(1 if bad else 0)
