#!/usr/bin/env python3
"""json-nest.py FILE.json...: checks that the slices of each thread track of `fxt json` output
nest: no X event or B/E pair starts inside another and ends after it (Perfetto counts such a
pair as slice_spill_overlapping_complete_event or drops it). Times are read exactly (ns from
the microseconds with three decimals). Prints "FILE: N slices, K partly overlapping" and the
first few pairs; exit 1 on any."""
# SPDX-License-Identifier: MIT
import json
import sys
from decimal import Decimal


def slices(events):
    """(pid, tid) -> [(start ns, end ns, name)] of X events and B/E pairs (pid 0: CPU tracks)."""
    ns = lambda us: int(Decimal(us) * 1000)
    by, open_ = {}, {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e["ph"] == "X":
            by.setdefault(key, []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]))
        elif e["ph"] == "B":
            open_.setdefault(key, []).append((ns(e["ts"]), e["name"]))
        elif e["ph"] == "E" and open_.get(key):
            start, name = open_[key].pop()
            by.setdefault(key, []).append((start, ns(e["ts"]), name))
    return by


def overlaps(events):
    """Pairs (outer, inner) where inner starts inside outer and ends after it; slice count."""
    bad, count = [], 0
    for key, xs in slices(events).items():
        xs.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s in xs:
            count += 1
            while stack and stack[-1][1] <= s[0]:
                stack.pop()
            if stack and s[1] > stack[-1][1]:
                bad.append((key, stack[-1], s))
            stack.append(s)
    return bad, count


def main():
    failed = 0
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            bad, count = overlaps(json.load(f, parse_float=Decimal)["traceEvents"])
        print(f"{path}: {count} slices, {len(bad)} partly overlapping")
        for key, outer, inner in bad[:5]:
            print(f"  pid/tid {key[0]}/{key[1]}: {inner[2]} [{inner[0]}, {inner[1]}] ends after "
                  f"{outer[2]} [{outer[0]}, {outer[1]}]")
        failed |= bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
