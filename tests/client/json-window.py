#!/usr/bin/env python3
"""json-window.py FULL.json WINDOW.json SINCE UNTIL [TID,...]: checks that WINDOW (`fxt json
--since SINCE --until UNTIL [--tid TIDS]`) holds exactly what FULL (`fxt json`, no selection)
holds in that window: each call (X, or a B/E pair; CPU slices too) that overlaps the window,
cut at its bounds (an argument "clipped": start, end or both on the X events that were cut),
each point event (instants, counters, async, flows, logs) with SINCE <= ts <= UNTIL, nothing
else; with TIDS, only those threads' events (CPU slices of those threads). SINCE and UNTIL are
stamps in seconds as fxt prints them. Prints "N calls, M points compared, K mismatches";
exit 1 on any."""
# SPDX-License-Identifier: MIT
import json
import sys
from collections import Counter, defaultdict

INF = 1 << 64


def stamp_ns(s):
    whole, _, frac = s.partition(".")
    return int(whole) * 1000000000 + int((frac + "000000000")[:9])


def ns(us):
    return round(us * 1000)


def load(path):
    """(calls, points): calls as (pid, tid, name, start, end, clipped), points as tuples."""
    events = json.load(open(path))["traceEvents"]
    calls, points, stacks = [], [], defaultdict(list)
    for e in events:
        ph, key = e["ph"], (e.get("pid"), e.get("tid"))
        clip = e.get("args", {}).get("clipped") if isinstance(e.get("args"), dict) else None
        if ph == "X":
            calls.append((key[0], key[1], e["name"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]),
                          clip))
        elif ph == "B":
            stacks[key].append((e["name"], ns(e["ts"]), clip))
        elif ph == "E":
            if stacks[key]:
                name, start, bclip = stacks[key].pop()
                both = {clip, bclip} - {None}
                calls.append((key[0], key[1], name, start, ns(e["ts"]),
                              "both" if len(both) > 1 else (clip or bclip)))
        elif ph != "M":
            points.append((ph, e["name"], key[0], key[1], ns(e["ts"])))
    for key, st in stacks.items():
        for name, start, clip in st:
            calls.append((key[0], key[1], name, start, INF, clip))
    return calls, points


def main():
    full, window = load(sys.argv[1]), load(sys.argv[2])
    lo, hi = stamp_ns(sys.argv[3]), stamp_ns(sys.argv[4])
    tids = {int(t) for t in sys.argv[5].split(",")} if len(sys.argv) > 5 else None
    def selected(pid, tid, name):  # CPU slices: "tid N" on process 0's tracks
        if tids is None:
            return True
        if pid == 0 and name.startswith("tid "):
            return int(name[4:]) in tids
        return tid in tids

    want_calls, want_points = Counter(), Counter()
    for pid, tid, name, start, end, _ in full[0]:
        if end < lo or start > hi or not selected(pid, tid, name):
            continue
        cut = {(True, True): "both", (True, False): "start", (False, True): "end"}.get(
            (start < lo, end > hi))
        want_calls[(pid, tid, name, max(start, lo), min(end, hi), cut)] += 1
    for p in full[1]:
        if lo <= p[4] <= hi and selected(p[2], p[3], p[1]):
            want_points[p] += 1
    got_calls = Counter(window[0])
    got_points = Counter(window[1])
    bad = 0
    for what, want, got in (("call", want_calls, got_calls), ("point", want_points, got_points)):
        for k in sorted(set(want) | set(got), key=str):
            if want[k] != got[k]:
                bad += 1
                if bad <= 8:
                    print(f"{what} {k}: expected {want[k]}, written {got[k]}", file=sys.stderr)
    print(f"{sum(want_calls.values())} calls, {sum(want_points.values())} points compared, "
          f"{bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
