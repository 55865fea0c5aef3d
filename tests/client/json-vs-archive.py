#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One-for-one check of `fxt json` against the archive, decoded here independently of the
project's reader: walks the FXT records
(https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format) with per-provider string and thread
tables, tick rates and clock records (docs/FORMAT.md: a provider's "fxt-clock" blob makes its times
CLOCK_MONOTONIC), and builds the multiset of (phase, name, pid, tid, ts in ns) for every
event, log and process/thread kernel object record (a name repeated for the same koid counts
once; a `log` instant at the time and thread of that thread's latest log record is the record's
mirror for Perfetto and counts not, once); the JSON events must be the same multiset.
Usage: json-vs-archive.py ARCHIVE.fxt OUT.json   Exit 0 when equal, 1 with the differences."""
import collections
import json
import struct
import sys

PH = "iCBEXbnestf"


def field(w, lo, hi):
    return (w >> lo) & ((1 << (hi - lo + 1)) - 1)


def archive_events(path):
    data = open(path, "rb").read()
    words = struct.unpack("<%dQ" % (len(data) // 8), data[: len(data) // 8 * 8])
    out = collections.Counter()
    strings, threads, tps, clocks = {}, {}, {}, {}
    prov = 0
    pos = 0
    knames = {}
    last_log = {}  # (pid, tid) -> ts of its latest log record not yet mirrored

    def text(ref, p):
        """(string, next word) for a string ref whose inline bytes would start at word p."""
        if ref == 0:
            return "", p
        if ref & 0x8000:
            n = ref & 0x7FFF
            raw = data[p * 8: p * 8 + n]
            return raw.decode("utf-8", "replace"), p + (n + 7) // 8
        return strings.get((prov, ref), ""), p

    def ns(ticks):
        rate = tps.get(prov, 10**9)
        if prov not in clocks:
            return ticks * 10**9 // rate
        t0, n0, t1, n1 = clocks[prov]
        num, den = (n1 - n0, t1 - t0) if t1 > t0 and n1 > n0 else (10**9, rate)
        q = abs(ticks - t0) * num // den  # rounded toward the start reading, as the reader
        return min(n0 + q, 2**64 - 1) if ticks >= t0 else max(n0 - q, 0)

    while pos < len(words):
        h = words[pos]
        rtype = field(h, 0, 3)
        size = field(h, 4, 35) if rtype == 15 else field(h, 4, 15)
        if size == 0 or pos + size > len(words):
            break
        p = pos + 1
        if rtype == 0 and field(h, 16, 19) in (1, 2):
            prov = field(h, 20, 51)
            if field(h, 16, 19) == 1:
                clocks.pop(prov, None)  # a provider info record starts it afresh
        elif rtype == 5 and field(h, 16, 31) == 0x8009 and field(h, 32, 46) == 32 \
                and field(h, 48, 55) == 1 and data[p * 8: p * 8 + 9] == b"fxt-clock":
            clocks[prov] = words[p + 2: p + 6]
        elif rtype == 1:
            tps[prov] = words[p]
        elif rtype == 2:
            n = field(h, 32, 46)
            strings[(prov, field(h, 16, 30))] = data[p * 8: p * 8 + n].decode("utf-8", "replace")
        elif rtype == 3:
            threads[(prov, field(h, 16, 23))] = (words[p], words[p + 1])
        elif rtype == 4:
            et = field(h, 16, 19)
            ts = words[p]
            p += 1
            tref = field(h, 24, 31)
            if tref:
                pid, tid = threads.get((prov, tref), (0, 0))
            else:
                pid, tid = words[p], words[p + 1]
                p += 2
            cat, p = text(field(h, 32, 47), p)
            name, p = text(field(h, 48, 63), p)
            if et == 0 and cat == "log" and last_log.get((pid, tid)) == ts:
                del last_log[(pid, tid)]
            elif et < len(PH):
                out[(PH[et], name, pid, tid, ns(ts))] += 1
        elif rtype == 7 and field(h, 16, 23) in (1, 2):
            key = (field(h, 16, 23), words[p])
            name, _ = text(field(h, 24, 39), p + 1)
            if knames.get(key) != name:
                out[("M",) + key] += 1
            knames[key] = name
        elif rtype == 9:
            tref = field(h, 32, 39)
            pid, tid = threads.get((prov, tref), (0, 0)) if tref else (words[p + 1], words[p + 2])
            out[("i", "log", pid, tid, ns(words[p]))] += 1
            last_log[(pid, tid)] = words[p]
        pos += size
    return out


def json_events(path):
    out = collections.Counter()
    for e in json.load(open(path, encoding="utf-8"))["traceEvents"]:
        if e["ph"] == "M":
            koid = e["pid"] if e["name"] == "process_name" else e["tid"]
            out[("M", 1 if e["name"] == "process_name" else 2, koid)] += 1
        else:
            out[(e["ph"], e["name"], e["pid"], e["tid"], int(round(e["ts"] * 1000)))] += 1
    return out


def main():
    want, got = archive_events(sys.argv[1]), json_events(sys.argv[2])
    if want == got:
        print("%d events match one for one" % sum(want.values()))
        return 0
    for k in sorted(set(want) | set(got), key=str):
        if want[k] != got[k]:
            print("archive %d x, json %d x: %s" % (want[k], got[k], k))
    return 1


if __name__ == "__main__":
    sys.exit(main())
