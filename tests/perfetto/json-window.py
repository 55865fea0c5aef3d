#!/usr/bin/env python3
"""json-window.py FXT TRACE_PROCESSOR ARCHIVE: writes `fxt json` of the middle third of the
archive's time span (the stamps `fxt stats` prints) and loads it with Perfetto's
trace_processor_shell: no stats row of severity error or data_loss, and every slice of a
thread track there (X events, B/E pairs, thread-scoped instants: a call cut at a bound that
Perfetto found badly nested would be dropped). Prints one line; exit 1 on a difference."""
# SPDX-License-Identifier: MIT
import json
import os
import re
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def main():
    fxt, tp, archive = sys.argv[1:4]
    span = re.search(r"^time span: .* \(([0-9.]+) s to ([0-9.]+) s\)$", run([fxt, "stats", archive]),
                     re.M)
    a, b = (int(x.replace(".", "")) for x in span.groups())
    stamp = lambda n: "%d.%09d" % (n // 10**9, n % 10**9)
    since, until = stamp(a + (b - a) // 3), stamp(a + 2 * (b - a) // 3)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "window.json")
        run([fxt, "json", "--since", since, "--until", until, "-o", out, archive])
        events = json.load(open(out))["traceEvents"]
        want = sum(1 for e in events
                   if e["ph"] in "XB" or (e["ph"] == "i" and e.get("s", "t") == "t"))
        sql = os.path.join(tmp, "q.sql")
        with open(sql, "w") as f:
            f.write("select (select count(*) from slice s join thread_track t on s.track_id = t.id),"
                    " (select group_concat(name) from stats where value > 0 and"
                    " severity in ('error', 'data_loss'));\n")
        last = run([tp, "-q", sql, out]).strip().splitlines()[-1].split(",", 1)
        got, errors = int(last[0]), last[1].strip('"')
    ok = got == want and errors in ("", "[NULL]")
    print(f"{archive}: json window [{since}, {until}]: {got} slices of {want}, "
          f"import errors: {errors if errors not in ('', '[NULL]') else 'none'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
