#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of `fxt report` figures: recomputes calls, total, self, avg and max per
function (and per lock object and sampled frame) from the events of `fxt json` with a different
algorithm (intervals sorted by start, swept with a stack), formats them as the report does and
compares with the report's tables row for row.
Usage: recompute.py TRACE.json REPORT.txt   (REPORT from `fxt report --sort name FILE`)
Exit 0 when every row matches and no row is missing or extra, 1 otherwise."""
import collections
import json
import re
import sys


def fmt(ns):
    if ns < 1000:
        return "%d ns" % ns
    if ns < 1000000:
        return "%.3f us" % (ns / 1e3)
    if ns < 1000000000:
        return "%.3f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def ns(us):
    return int(round(us * 1000))


def kind_of(ev):
    return {"lock": "lock waits", "sample": "sampled stacks"}.get(ev.get("cat"), "functions")


def label(ev):
    """A lock wait's row name: its string argument, else its named pointer, else its name."""
    args = ev.get("args", {})
    for v in args.values():
        if isinstance(v, str) and v:
            return v
    for v in args.values():
        if isinstance(v, dict) and "name" in v:
            return v["name"]
    return ev["name"]


def spans(events):
    """(pid, tid, family) -> [(start, end, kind, name)] from X events and matched B/E pairs."""
    out = collections.defaultdict(list)
    open_ = collections.defaultdict(list)
    for ev in events:
        ph = ev.get("ph")
        if ph not in ("X", "B", "E"):
            continue
        key = (ev["pid"], ev["tid"], ev.get("cat") == "sample")
        if ph == "X":
            k = kind_of(ev)
            out[key].append((ns(ev["ts"]), ns(ev["ts"]) + ns(ev["dur"]), k,
                             label(ev) if k == "lock waits" else ev["name"]))
        elif ph == "B":
            open_[key].append(ev)
        elif open_[key]:
            b = open_[key].pop()
            k = kind_of(b)
            out[key].append((ns(b["ts"]), ns(ev["ts"]), k,
                             label(b) if k == "lock waits" else b["name"]))
    return out


def recompute(events):
    rows = {}
    for (pid, tid, _), lst in spans(events).items():
        lst.sort(key=lambda s: (s[0], -s[1]))
        stack = []  # [start, end, kind, name, callee time]
        done = []

        def close(fr):
            done.append(fr)

        for s, e, k, n in lst:
            while stack and not (stack[-1][0] <= s and e <= stack[-1][1]):
                close(stack.pop())
            if stack:
                stack[-1][4] += e - s
            stack.append([s, e, k, n, 0])
        while stack:
            close(stack.pop())
        for s, e, k, n, callees in done:
            r = rows.setdefault((k, pid, n), [0, 0, 0, 0])
            r[0] += 1
            r[1] += e - s
            r[2] += max(0, e - s - callees)
            r[3] = max(r[3], e - s)
    return {key: (str(c), fmt(t), fmt(sf), fmt(t // c), fmt(m))
            for key, (c, t, sf, m) in rows.items()}


def parse_report(text):
    rows = {}
    section = pid = None
    for line in text.splitlines():
        m = re.match(r"== (.*?): process (\d+) ", line)
        if m:
            section, pid = m.group(1), int(m.group(2))
            section = section.split(" (")[0]
            continue
        m = re.match(r"\s*(\d+)\s+(\S+ \S+)\s+(\S+ \S+)\s+(\S+ \S+)\s+(\S+ \S+)  (.*)$", line)
        if m and section:
            rows[(section, pid, m.group(6))] = m.groups()[:5]
    return rows


def main():
    with open(sys.argv[1]) as f:
        events = json.load(f)["traceEvents"]
    with open(sys.argv[2]) as f:
        got = parse_report(f.read())
    want = recompute(events)
    bad = 0
    for key in sorted(set(want) | set(got), key=str):
        if want.get(key) != got.get(key):
            print("MISMATCH %s: recomputed %s, report %s" % (key, want.get(key), got.get(key)))
            bad += 1
    print("%d rows compared, %d mismatches" % (len(want), bad))
    return 1 if bad or not want else 0


if __name__ == "__main__":
    sys.exit(main())
