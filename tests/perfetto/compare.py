#!/usr/bin/env python3
"""compare.py FXT TRACE_PROCESSOR ARCHIVE [NEEDS]: loads ARCHIVE with Perfetto's
trace_processor_shell and checks it against what `fxt stats` and `fxt dump` count:
no stats row of severity error or data_loss; slices (instant, duration begin, complete, async
begin and instant events; the `records dropped` and `records overwritten` notes, which fxt stats
counts apart, are left out of the slices; the drop notes are there
when records were dropped), flows (flow steps and ends), logs (the `log` instants mirroring log
records), counter values (numeric arguments of counter events), sched slices (context switches
in) equal; the same threads (pid, tid: those with events, and those only named) and processes
with the same names. NEEDS: comma-separated
kinds the archive must hold at least one of (slice, flow, log, counter, sched, thread:N for N
threads or more), so that a run that recorded nothing does not pass. Prints one line per
archive; exit 1 with the differences on stderr."""
# SPDX-License-Identifier: MIT
import os
import re
import subprocess
import sys
import tempfile

SLICE_EVENTS = ("instant", "duration begin", "duration complete", "async begin", "async instant")
NUMERIC = re.compile(r'":(?:u?int(?:32|64)|double)=')


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def fxt_counts(fxt, archive):
    """Expected counts and names, from fxt stats (events by type, threads) and fxt dump."""
    stats = run([fxt, "stats", archive])
    events, records, threads, procs = {}, {}, {}, set()
    section = None
    for line in stats.splitlines():
        if line.startswith("record type"):
            section = "records"
        elif line.startswith("event type"):
            section = "events"
        elif line.strip().startswith("provider"):
            section = "providers"
        elif line.strip().startswith("pid"):
            section = "threads"
        elif not line.strip():
            continue
        elif section in ("records", "events"):
            m = re.match(r"(\S.*?)\s+(\d+)(?:\s+\d+)?$", line)
            if m:
                (records if section == "records" else events)[m.group(1)] = int(m.group(2))
        elif section == "providers":
            f = line.split(None, 6)
            if len(f) == 7 and f[0] != "0":
                procs.add(f[6])
        elif section == "threads":
            f = line.split(None, 3)
            threads[(int(f[0]), int(f[1]))] = f[3] if len(f) > 3 else ""
    counters = sched = 0
    named = {}	# thread -> its last name in the archive (a rename writes the record again)
    for line in run([fxt, "dump", archive]).splitlines():
        kind = line.split(" ", 2)[1] if " " in line else ""
        if kind == "counter":
            counters += len(NUMERIC.findall(line))
        elif kind == "context_switch" and " in=0/0 " not in line:
            sched += 1
        elif kind == "kernel_object" and " obj_type=2 " in line:
            # a thread named but without events (it began as the trace ended, or a circular
            # buffer overwrote them): Perfetto lists it too, under the name it was given last
            m = re.search(r' koid=(\d+) name="((?:[^"\\]|\\.)*)".*"process":koid=(\d+)', line)
            if m:
                named[(int(m.group(3)), int(m.group(1)))] = m.group(2)
    for key, name in named.items():
        threads.setdefault(key, name)
    return {
        "slice": sum(events.get(k, 0) for k in SLICE_EVENTS),
        "flow": events.get("flow step", 0) + events.get("flow end", 0),
        "log": records.get("log", 0),
        "counter": counters,
        "sched": sched,
    }, int(re.search(r"^records dropped: (\d+)", stats, re.M).group(1)), threads, procs


QUERY = """
select 'E', name, severity, value from stats where value > 0 and severity in ('error', 'data_loss');
select 'N', 'slice', count(*) from slice where not (category = 'fxtauto' and name in ('records dropped', 'records overwritten'));
select 'N', 'drop notes', count(*) from slice where category = 'fxtauto' and name = 'records dropped';
select 'N', 'flow', count(*) from flow;
select 'N', 'log', count(*) from slice where category = 'log';
select 'N', 'counter', count(*) from counter;
select 'N', 'sched', count(*) from sched;
select 'T', coalesce(p.pid, 0), t.tid, coalesce(t.name, '') from thread t left join process p using (upid) where t.utid != 0;
select 'P', pid, coalesce(name, '') from process where upid != 0;
"""


def perfetto(tp, archive):
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as q:
        q.write(QUERY)
    try:
        out = run([tp, "-q", q.name, archive])
    finally:
        os.unlink(q.name)
    errors, counts, threads, procs = [], {}, {}, set()
    for line in out.splitlines():
        f = [x.strip('"') for x in re.findall(r'"(?:[^"]|"")*"|[^,]+', line)]
        if not f:
            continue
        if f[0] == "E":
            errors.append(f"{f[1]} ({f[2]}): {f[3]}")
        elif f[0] == "N":
            counts[f[1]] = int(f[2])
        elif f[0] == "T":
            threads[(int(f[1]), int(f[2]))] = f[3]
        elif f[0] == "P":
            procs.add(f[2])
    return errors, counts, threads, procs


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.splitlines()[0])
    fxt, tp, archive = sys.argv[1:4]
    needs = [n for n in (sys.argv[4] if len(sys.argv) == 5 else "").split(",") if n]
    want, dropped, wthreads, wprocs = fxt_counts(fxt, archive)
    errors, got, gthreads, gprocs = perfetto(tp, archive)
    problems = [f"trace_processor stats: {e}" for e in errors]
    problems += [f"{k}: fxt {want[k]}, Perfetto {got.get(k)}" for k in want if got.get(k) != want[k]]
    if (got.get("drop notes", 0) > 0) != (dropped > 0):
        problems.append(f"records dropped: fxt {dropped}, Perfetto {got.get('drop notes')} notes")
    for key in sorted(set(wthreads) | set(gthreads)):
        if wthreads.get(key) != gthreads.get(key):
            problems.append(f"thread {key[0]}/{key[1]}: fxt {wthreads.get(key)!r}, "
                            f"Perfetto {gthreads.get(key)!r}")
    if wprocs != gprocs:
        problems.append(f"process names: fxt {sorted(wprocs)}, Perfetto {sorted(gprocs)}")
    for n in needs:
        kind, _, least = n.partition(":")
        have = len(wthreads) if kind == "thread" else want[kind]
        if have < int(least or 1):
            problems.append(f"expected {n}: the archive holds {have}")
    name = os.path.basename(archive)
    if problems:
        print(f"{name}: FAIL", flush=True)
        for p in problems:
            print(f"  {name}: {p}", file=sys.stderr)
        sys.exit(1)
    print(f"{name}: ok ({', '.join(f'{k} {want[k]}' for k in want)}, threads {len(wthreads)}, "
          f"processes {len(wprocs)}; no import errors)")


main()
