#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks `fxt json` output for the archive of gen-client-archive.c, whose content is known:
the JSON parses (json.load), holds one event per event, log and process/thread kernel object
record, and each mapping (phases, times from both tick rates, scopes, counters, ids, flows,
metadata, argument types, pointer names, escaping) is as the archive says.
Usage: check-json.py OUT.json   Prints one line per failed claim; exit 1 if any failed."""
import collections
import json
import sys

failed = 0


def ok(cond, claim):
    global failed
    if not cond:
        failed += 1
        print("not ok - " + claim)


with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)
ev = doc["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
ok(len(ev) == 38, "38 JSON events for 32 event, 2 log and 4 kernel object records (got %d)" % len(ev))
ok(ph == {"X": 15, "B": 3, "E": 3, "i": 5, "C": 2, "b": 1, "n": 1, "e": 1, "s": 1, "t": 1,
          "f": 1, "M": 4}, "phases: 15 X, 3 B/E, 3 instants + 2 logs, 2 C, b/n/e, s/t/f, 4 M: %s" % dict(ph))


def one(pred, what):
    hits = [e for e in ev if pred(e)]
    ok(len(hits) == 1, "exactly one " + what)
    return hits[0] if hits else {}


main1 = one(lambda e: e["ph"] == "X" and e["name"] == "main" and e["pid"] == 1000 and e["cat"] == "fn",
           "function main X in pid 1000")
ok(main1.get("ts") == 1000.0 and main1.get("dur") == 1.0 and main1.get("tid") == 1001,
   "1 GHz ticks: main at 1000 us for 1 us on thread 1001")
main2 = one(lambda e: e["ph"] == "X" and e["name"] == "main" and e["pid"] == 2000, "main X in pid 2000")
ok(main2.get("ts") == 2000.0 and main2.get("dur") == 1.0, "100 MHz ticks: 200000 ticks -> 2000 us, 100 ticks -> 1 us")
a2 = [e for e in ev if e["pid"] == 2000 and e["name"] == "a"]
ok(sorted(e["dur"] for e in a2) == [0.01, 0.2], "nanosecond precision: a call of 1 tick lasts 0.010 us")
scopes = sorted(e.get("s") for e in ev if e["ph"] == "i")
ok(scopes == ["g", "p", "t", "t", "t"], "instant scopes g, p and t (logs are thread-scoped): %s" % scopes)
odd = one(lambda e: e["ph"] == "i" and e["name"].startswith("tab"), "instant with the odd name")
ok(odd.get("name") == "tab\there \"q\" \x01 bad\ufffd\ufffd utf8 \u00e9",
   "escaping: tab, quote, control char kept; invalid UTF-8 bytes become U+FFFD; valid UTF-8 kept")
want_args = {"nothing": None, "i32": -5, "u32": 4000000000, "i64": -9000000000,
             "u64": 18000000000000000000, "dbl": 3.5, "str": "line\nbreak \\ back",
             "obj": {"pointer": "0x1000", "name": "queue_lock"}, "raw": "0xdead", "koid": 1001,
             "flag": True}
ok(odd.get("args") == want_args, "every argument type keeps its type: %s" % odd.get("args"))
for e in ev:
    if e["ph"] == "i" and e["name"] == "ev":
        ok("scope" not in e.get("args", {}), "the scope argument is consumed by s")
counters = [e for e in ev if e["ph"] == "C"]
ok([c.get("args") for c in counters] == [{"used": 4096, "ratio": 0.5}, {"used": 8192}],
   "counters: one series per numeric argument, strings left out")
ok("id" not in counters[0] and counters[1].get("id") == "0x5", "counter id 5 kept, id 0 left out")
asy = [(e["ph"], e.get("id"), e["tid"]) for e in ev if e["ph"] in "bne"]
ok(asy == [("b", "0x7", 1001), ("n", "0x7", 1002), ("e", "0x7", 1002)], "async b/n/e share id 0x7 across threads")
flows = {e["ph"]: e for e in ev if e["ph"] in "stf"}
ok(all(f.get("id") == "0x9" for f in flows.values()), "flow s/t/f share id 0x9")
ok("bp" not in flows.get("s", {}) and flows.get("t", {}).get("bp") == "e" and
   flows.get("f", {}).get("bp") == "e", "flow step and end bind to their enclosing slice (bp e)")
meta = sorted((e["name"], e["pid"], e["tid"], e["args"]["name"]) for e in ev if e["ph"] == "M")
ok(meta == [("process_name", 1000, 0, "gen-proc"), ("process_name", 2000, 0, "second"),
            ("thread_name", 1000, 1001, "main-thread"), ("thread_name", 1000, 1002, 'worker "2"')],
   "M metadata names processes and threads (thread pid from the process argument): %s" % meta)
logs = [(e["tid"], e["args"]["message"]) for e in ev if e["cat"] == "log"]
ok(logs == [(1001, "hello from main"), (1002, 'worker says "hi"')], "log records become instants with their message")
lock_e = [e for e in ev if e["ph"] == "E" and e["cat"] == "lock"]
ok(lock_e and lock_e[0].get("args") == {"object": "queue_lock"}, "an end event repeats its begin's arguments")
lock_x = one(lambda e: e["ph"] == "X" and e["cat"] == "lock", "lock wait X")
ok(lock_x.get("args", {}).get("mutex") == {"pointer": "0x1000", "name": "queue_lock"},
   "pointer arguments are named through the userspace object record")
sys.exit(1 if failed else 0)
