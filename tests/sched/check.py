#!/usr/bin/env python3
# Claims of a c-sched run under FXT_SCHED=1 (tests/sched/run.sh): for each function, the on-CPU
# fraction `fxt report` computes from the context switch records is within TOL points of the
# thread's own CPU-time/wall-time (plus the time c-sched saw pass with neither its CPU clock
# advancing nor a context switch: the scheduler counts it on CPU); each thread's switch-outs in the trace match its
# voluntary + nonvoluntary context switches from /proc/<tid>/status (the trace may hold a few
# more: the thread's exit, after it read its counts); blocked/preempted split likewise. Self
# time is on-CPU time: a function with no recorded callees has self = on-cpu, and the rows
# [preempted] and [blocked] hold the time off CPU: a sleeper's off-CPU time is blocked time.
# usage: check.py PROGRAM_STDOUT REPORT_TEXT DUMP_TEXT [TOL]
import re, sys

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
prog, report, dump = (open(p).read() for p in sys.argv[1:4])
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 5.0
fails = 0

def claim(ok, text):
    global fails
    print(("ok     " if ok else "NOT OK ") + text)
    fails += not ok

def t(v, u):
    return float(v) * UNITS[u]

rows = {}
for m in re.finditer(r"^\s*(\d+)\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)"
                     r"\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s+(\S+)$",
                     report, re.M):
    g = m.groups()
    rows[g[13]] = (t(g[1], g[2]), t(g[9], g[10]), t(g[3], g[4]))   # total, on-cpu, self
claim(len(rows) > 0, "fxt report has on-cpu columns")
for name in ("spin_work", "sleep_work", "half_work", "pipe_work"):
    if name in rows:
        claim(rows[name][2] == rows[name][1],
              f"{name} (no recorded callees): self {rows[name][2]:.0f} ns = on-cpu {rows[name][1]:.0f} ns")
for name in ("[preempted]", "[blocked]"):
    claim(name in rows and rows[name][1] == 0 and rows[name][2] == rows[name][0],
          f"row {name}: all off CPU, its own self time")
if "sleep_work" in rows and "[blocked]" in rows:
    off = rows["sleep_work"][0] - rows["sleep_work"][1]
    claim(rows["[blocked]"][0] >= off * 0.999,
          f"[blocked] {rows['[blocked]'][0]:.0f} ns holds sleep_work's off-CPU {off:.0f} ns")

sw = {}
for line in dump.splitlines():
    m = re.search(r" context_switch ts=\d+ cpu=\d+ out_state=(\d) out=\d+/(\d+) in=", line)
    if m and m.group(2) != "0":
        tid = int(m.group(2))
        vol, inv = sw.get(tid, (0, 0))
        sw[tid] = (vol + (m.group(1) == "3"), inv + (m.group(1) == "1"))

for line in prog.splitlines():
    f = line.split()
    if f[0] == "fn":
        name, wall, cpu, unseen = f[1], int(f[3]), int(f[4]), int(f[5])
        frac = 100.0 * (cpu + unseen) / wall
        if name not in rows:
            claim(False, f"{name}: in the report")
            continue
        total, on = rows[name][:2]
        tf = 100.0 * on / total
        claim(abs(tf - frac) <= tol,
              f"{name}: on-CPU {tf:.1f}% from the trace, {frac:.1f}% from the thread's CPU clock "
              f"(with {unseen / 1e6:.1f} ms on CPU unseen by it; tolerance {tol} points)")
    elif f[0] == "sw":
        tid, vol, inv = int(f[1]), int(f[2]), int(f[3])
        tv, ti = sw.get(tid, (0, 0))
        proc, trace = vol + inv, tv + ti
        claim(proc <= trace <= proc + 3 + proc // 50,
              f"thread {tid}: {trace} switches out in the trace, {proc} in /proc (voluntary {vol}, nonvoluntary {inv})")
        claim(abs(tv - vol) <= 3 + vol // 20 and abs(ti - inv) <= 3 + inv // 5 + 2,
              f"thread {tid}: blocked {tv} / preempted {ti} in the trace, voluntary {vol} / nonvoluntary {inv} in /proc")
sys.exit(1 if fails else 0)
