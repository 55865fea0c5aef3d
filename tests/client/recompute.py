#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of `fxt report` figures: recomputes calls, total, self, avg and max per
function (and per lock object, sampled frame, thread-creation span and tracer stall) from the
events of `fxt json` with a different algorithm (all of a thread's intervals sorted by start,
swept with a stack), formats them as the report does and compares with the report's tables row
for row; with --tree, the call tree path by path (total, self, calls) instead.
Usage: recompute.py TRACE.json REPORT.txt [TREE.txt]
  (REPORT from `fxt report --sort name FILE`, TREE from `fxt report --tree FILE`)
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


SECTIONS = {"lock": "lock waits", "sample": "sampled stacks", "fxtauto": "tracer stalls",
            "pthread": "thread creation"}
# sections whose rows have no self column (nothing nests inside them)
NO_SELF = ("lock waits", "tracer stalls", "thread creation")
# what a --tree line shows before a name that is not one of the program's functions
MARKS = {"lock waits": "[lock wait] ", "tracer stalls": "[tracer stall] ",
         "thread creation": "[thread] "}


def kind_of(ev):
    return SECTIONS.get(ev.get("cat"), "functions")


def pointer(v):
    """A pointer argument as JSON writes it: "0x..." or {"pointer": "0x...", "name": ...}."""
    if isinstance(v, dict):
        v = v.get("pointer", "0x0")
    try:
        return int(v, 16)
    except (TypeError, ValueError):
        return 0


def label(ev):
    """A lock wait's row name: a join's "join NAME 0xPTHREAD", else its string argument, else
    its named pointer, else its name."""
    args = ev.get("args", {})
    if ev["name"] == "join":
        name = next((v for v in args.values() if isinstance(v, str) and v and
                     not v.startswith("0x")), "thread")
        ptr = next((pointer(v) for k, v in args.items() if k == "object"), 0)
        return "join %s 0x%x" % (name[:256], ptr)
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
                             label(ev) if k == "lock waits" else ev["name"], len(out[key])))
        elif ph == "B":
            open_[key].append(ev)
        elif open_[key]:
            b = open_[key].pop()
            k = kind_of(b)
            out[key].append((ns(b["ts"]), ns(ev["ts"]), k,
                             label(b) if k == "lock waits" else b["name"], len(out[key])))
    return out


def frames(events, per_thread=False):
    """Every call with its callee time and call path: (section, pid, tid, path, start, end,
    callee time), a path being the tuple of marked names from the thread's root."""
    done = []
    for (pid, tid, _), lst in spans(events).items():
        # by start, the outer of two equal intervals (written later) first
        lst.sort(key=lambda s: (s[0], -s[1], -s[4]))
        stack = []  # [start, end, kind, path, callee time]
        for s, e, k, n, _ in lst:
            while stack and not (stack[-1][0] <= s and e <= stack[-1][1]):
                done.append(stack.pop())
            path = (stack[-1][3] if stack else ()) + (MARKS.get(k, "") + n,)
            if stack:
                stack[-1][4] += e - s
            stack.append([s, e, k, path, 0])
        done.extend(reversed(stack))
        for fr in done[len(done) - len(lst):]:
            fr.insert(0, (pid, tid if per_thread else 0))
    return done


def recompute(events):
    rows = {}
    for (pid, _), s, e, k, path, callees in frames(events):
        r = rows.setdefault((k, pid, path[-1][len(MARKS.get(k, "")):]), [0, 0, 0, 0])
        r[0] += 1
        r[1] += e - s
        r[2] += max(0, e - s - callees)
        r[3] = max(r[3], e - s)
    out = {}
    for key, (c, t, sf, m) in rows.items():
        if key[0] in NO_SELF:
            out[key] = (str(c), fmt(t), fmt(t // c), fmt(m))
        else:
            out[key] = (str(c), fmt(t), fmt(sf), fmt(t // c), fmt(m))
    return out


def recompute_tree(events):
    """(tree section, pid, path) -> (total, self, calls) as --tree prints them."""
    nodes = {}
    for (pid, _), s, e, k, path, callees in frames(events):
        sec = "sampled call tree" if k == "sampled stacks" else "call tree"
        r = nodes.setdefault((sec, pid, path), [0, 0, 0])
        r[0] += e - s
        r[1] += max(0, e - s - callees)
        r[2] += 1
    return {key: (fmt(t), fmt(sf), str(c)) for key, (t, sf, c) in nodes.items()}


def parse_tree(text):
    nodes = {}
    section = pid = None
    path = []
    for line in text.splitlines():
        m = re.match(r"== (.*?): process (\d+) ", line)
        if m:
            section, pid, path = m.group(1), int(m.group(2)), []
            continue
        m = re.match(r"\s*(\S+ \S+)\s+(\S+ \S+)\s+(\d+)  ( *)(\S.*)$", line)
        if m and section and "tree" in section:
            depth = len(m.group(4)) // 2
            path = path[:depth] + [m.group(5)]
            nodes[(section, pid, tuple(path))] = m.groups()[:3]
    return nodes


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
        if m and section and section not in NO_SELF:
            rows[(section, pid, m.group(6))] = m.groups()[:5]
            continue
        m = re.match(r"\s*(\d+)\s+(\S+ \S+)\s+(\S+ \S+)\s+(\S+ \S+)  (.*)$", line)
        if m and section in NO_SELF:
            rows[(section, pid, m.group(5))] = m.groups()[:4]
    return rows


def compare(want, got, what):
    bad = 0
    for key in sorted(set(want) | set(got), key=str):
        if want.get(key) != got.get(key):
            print("MISMATCH %s: recomputed %s, %s %s" % (key, want.get(key), what, got.get(key)))
            bad += 1
    print("%d %s compared, %d mismatches" % (len(want), what, bad))
    return 1 if bad or not want else 0


def main():
    with open(sys.argv[1]) as f:
        events = json.load(f)["traceEvents"]
    with open(sys.argv[2]) as f:
        bad = compare(recompute(events), parse_report(f.read()), "rows")
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as f:
            bad |= compare(recompute_tree(events), parse_tree(f.read()), "tree paths")
    return bad


if __name__ == "__main__":
    sys.exit(main())
