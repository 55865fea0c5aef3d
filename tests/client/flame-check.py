#!/usr/bin/env python3
"""The widths of `fxt flame` are report --tree's figures: runs `fxt flame --folded OPTIONS
ARCHIVE` and `fxt report --tree OPTIONS ARCHIVE` (--sample: its sampled call tree; --threads
and the selection options passed to both), sums the folded values per call path and compares,
for every line report --tree prints, the path's own folded value with its self column and
(wall time: no context switches in the archive) the sum over the path and the paths below it
with its total column, to the precision report prints (12.345 us: 0.5 ns). Every folded path
must be one report prints (a window may add paths below calls it leaves out: --window).
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


folded = subprocess.run([fxt, 'flame', '--folded', *opts, archive], check=True,
                        capture_output=True, text=True).stdout
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

report = subprocess.run([fxt, 'report', '--tree', *ropts, archive], check=True,
                        capture_output=True, text=True).stdout
oncpu = subprocess.run([fxt, 'report', *ropts, archive], check=True, capture_output=True,
                       text=True).stdout.find('on-cpu') >= 0
want = 'sampled call tree' if sample else 'call tree'
section, stack, seen, compared, bad = None, [], set(), 0, 0
for line in report.splitlines():
    m = re.match(r'== (.*?): process (\d+) \(.*?\)(?:, thread (\d+) \(.*\))? ==$', line)
    if m:
        section = (int(m.group(2)), int(m.group(3) or 0)) if m.group(1) == want else None
        stack = []
        continue
    if section is None or len(line) < 40 or line.startswith('       total'):
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
