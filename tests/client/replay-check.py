#!/usr/bin/env python3
"""replay-check.py FXT ARCHIVE [OPTIONS...]: walks the archive's events as `fxt dump` prints
them (its own decoding: ticks to ns per provider, begin/end pairs, the `log` instant mirroring a
thread's latest log record left out) and checks that `fxt replay OPTIONS ARCHIVE` prints exactly those events,
thread by thread, in the order they began (the outer of two with one start first), each at its
depth (the calls enclosing it), with its start, duration and text. OPTIONS are replay's and are
applied here independently: --tid T, --pid P, --since NS / --until NS (stamps in seconds as
replay prints them; +TIME is not understood here), --min DUR (ns, us, ms, s), --depth N,
--function GLOB (comma-separated). Prints "N threads, M lines compared, K mismatches" and
exits 1 on any difference (the first ones on stderr)."""
# SPDX-License-Identifier: MIT
import fnmatch
import hashlib
import os
import pickle
import re
import subprocess
import sys
from collections import defaultdict

UNITS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}


def stamp_ns(s):
    whole, _, frac = s.partition(".")
    return int(whole) * 1000000000 + int((frac + "000000000")[:9])


def dur_ns(s):
    m = re.fullmatch(r"([0-9.]+) ?(ns|us|ms|s)?", s)
    num, unit = m.group(1), m.group(2) or "ns"
    whole, _, frac = num.partition(".")
    mult = UNITS[unit]
    return int(whole) * mult + (int(frac) * mult // 10 ** len(frac) if frac else 0)


def fmt_dur(ns):
    if ns < 1000:
        return "%d ns" % ns
    if ns < 1000000:
        return "%.3f us" % (ns / 1e3)
    if ns < 1000000000:
        return "%.3f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def fmt_stamp(ns):
    return "%d.%09d" % (ns // 1000000000, ns % 1000000000)


def read_quoted(s, i):
    """The quoted string at s[i] (a '"'), escapes kept: (text with quotes, index after)."""
    j = i + 1
    while s[j] != '"':
        j += 2 if s[j] == "\\" else 1
    return s[i:j + 1], j + 1


def parse_args(s):
    """dump's args{"name":type=value, ...} -> [(name without quotes, type, value text)]."""
    out, i = [], 0
    if not s:
        return out
    while i < len(s):
        name, i = read_quoted(s, i)
        assert s[i] == ":"
        j = i + 1
        while j < len(s) and s[j] not in "=,}":
            j += 1
        typ = s[i + 1:j]
        if j < len(s) and s[j] == "=":
            if s[j + 1] == '"':
                val, j = read_quoted(s, j + 1)
            else:
                k = j + 1
                while k < len(s) and s[k] != "," and s[k] != "}":
                    k += 1
                val, j = s[j + 1:k], k
        else:
            val = "null"
        out.append((name[1:-1], typ, val))
        if j < len(s) and s[j] == ",":
            j += 2
        elif j < len(s) and s[j] == "}":
            j += 1
        i = j
    return out


def unquote(q):
    """A quoted string of dump as replay prints a name: unquoted, only control bytes escaped."""
    s = q[1:-1]
    return re.sub(r'\\(["\\])', r"\1", s) if "\\" in s else s


def args_text(args):
    text = ""
    for name, typ, val in args:
        if typ == "double":
            val = "%g" % float(val)
        text += " %s=%s" % (unquote('"' + name + '"'), val)
    return text


LINE = re.compile(r'^([0-9a-f]+) (\S+)(.*)$')
FIELD = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')
KINDS = {"instant": "instant ", "counter": "counter ", "async_begin": "async-begin ",
         "async_instant": "async-instant ", "async_end": "async-end ",
         "flow_begin": "flow-begin ", "flow_step": "flow-step ", "flow_end": "flow-end "}


def cached_events(fxt, archive):
    """events(), kept across runs in $REPLAY_CHECK_CACHE (a folder) when that is set: the
    walk of a large archive's dump is most of a check, and one archive is checked many times.
    The key is the archive's real path, size and modification time, and fxt's."""
    folder = os.environ.get("REPLAY_CHECK_CACHE")
    if not folder:
        return events(fxt, archive)
    st, ft = os.stat(archive), os.stat(fxt)
    key = "%s|%d|%d|%s|%d" % (os.path.realpath(archive), st.st_size, st.st_mtime_ns,
                              os.path.realpath(fxt), ft.st_mtime_ns)
    path = os.path.join(folder, hashlib.sha256(key.encode()).hexdigest() + ".pickle")
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except OSError:
        pass
    per = events(fxt, archive)
    os.makedirs(folder, exist_ok=True)
    tmp = "%s.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        pickle.dump(per, f)
    os.replace(tmp, path)
    return per


def events(fxt, archive):
    """Per (pid, tid): [(start, end, seq, kind, text)] as replay should see them."""
    dump = subprocess.run([fxt, "dump", archive], capture_output=True, text=True,
                          errors="surrogateescape").stdout
    tps, clocks, prov, last_log = {}, {}, 0, {}
    per = defaultdict(list)
    opens = defaultdict(list)
    seq = defaultdict(int)

    def ns(ticks):
        t = tps.get(prov, 0)
        if prov not in clocks:
            return ticks if t in (0, 1000000000) else ticks * 1000000000 // t
        # the clock record (docs/FORMAT.md): the line through its two readings, as the reader
        t0, n0, t1, n1 = clocks[prov]
        num, den = (n1 - n0, t1 - t0) if t1 > t0 and n1 > n0 else (10**9, t or 10**9)
        q = abs(ticks - t0) * num // den
        return min(n0 + q, 2**64 - 1) if ticks >= t0 else max(n0 - q, 0)

    def add(key, start, end, kind, text, name=""):
        per[key].append((start, end, seq[key], kind, text, name))
        seq[key] += 1

    for line in dump.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        kind, rest = m.group(2), m.group(3)
        argpos = rest.find(" args{")
        args = parse_args(rest[argpos + 6:]) if argpos >= 0 else []
        fields = dict(FIELD.findall(rest[:argpos] if argpos >= 0 else rest))
        if kind in ("provider_info", "provider_section"):
            prov = int(fields["provider"])
            if kind == "provider_info":
                clocks.pop(prov, None)  # a provider info record starts it afresh
        elif kind == "blob" and fields.get("name") == '"fxt-clock"':
            clocks[prov] = tuple(int(fields[k]) for k in
                                 ("start_ticks", "start_ns", "end_ticks", "end_ns"))
        elif kind == "init":
            tps[prov] = int(fields["ticks_per_second"])
        elif kind == "log":
            pid, tid = map(int, fields["thread"].split("/"))
            ts = ns(int(fields["ts"]))
            add((pid, tid), ts, ts, "log", 'log ' + fields["msg"])
            last_log[(pid, tid)] = (ts, fields["msg"])
        elif kind in ("complete", "begin", "end") or kind in KINDS:
            pid, tid = map(int, fields["thread"].split("/"))
            key, ts = (pid, tid), ns(int(fields["ts"]))
            cat, name = unquote(fields["cat"]), unquote(fields["name"])
            label = (cat + ":" if cat else "") + name
            log = last_log.get(key)
            if (kind == "instant" and cat == "log" and log and log[0] == ts
                    and any(a[0] == "message" and a[2] == log[1] for a in args)):
                del last_log[key]  # the mirror of the thread's latest log record
            elif kind == "complete":
                add(key, ts, max(ns(int(fields["end_ts"])), ts), "call", label + args_text(args),
                    name)
            elif kind == "begin":
                opens[key].append((ts, label, args, name))
            elif kind == "end":
                if opens[key]:
                    b, blabel, bargs, bname = opens[key].pop()
                    add(key, b, ts, "call", blabel + args_text(bargs + args), bname)
            else:
                ident = " #" + fields["id"] if kind != "instant" else ""
                add(key, ts, ts, "point", KINDS[kind] + label + ident + args_text(args))
    for key, stack in opens.items():
        while stack:
            b, blabel, bargs, bname = stack.pop()
            add(key, b, None, "call", blabel + args_text(bargs), bname)
    return per


def expected(per, o):
    """Per thread: [(stamp, duration, depth, text)] with the options applied."""
    out = {}
    big = 1 << 64
    for key in sorted(per):
        if (o["tid"] and key[1] not in o["tid"]) or (o["pid"] and key[0] not in o["pid"]):
            continue
        evs = sorted(per[key], key=lambda e: (e[0], -(big if e[1] is None else e[1]), -e[2]))
        stack, lines = [], []
        for start, end, _, kind, text, name in evs:
            e = big if end is None else end
            while stack and not (stack[-1][0] <= start and e <= stack[-1][1]):
                stack.pop()
            base = stack[-1][2] if stack else -1
            if kind == "call" and base < 0 and o["function"] and any(
                    fnmatch.fnmatchcase(name, g) for g in o["function"]):
                base = len(stack)
            depth = len(stack) - max(base, 0)
            show = (base >= 0 or not o["function"]) and (not o["depth"] or depth < o["depth"])
            if kind == "call":
                show = show and e - start >= o["min"] and start >= o["since"] and e <= o["until"]
                stack.append((start, e, base))
            else:
                show = show and o["since"] <= start <= o["until"]
            if show:
                dur = "(no end)" if end is None else fmt_dur(end - start) if kind == "call" else ""
                lines.append((fmt_stamp(start), dur, depth, text))
        if lines:
            out[key] = lines
    return out


HEAD = re.compile(r"^== process (\d+) \(.*\), thread (\d+) \(.*\) ==$")


def printed(text):
    """Per thread: [(stamp, duration, depth, text)] from replay's output (blocks joined)."""
    out, key = defaultdict(list), None
    for line in text.splitlines():
        m = HEAD.match(line)
        if m:
            key = (int(m.group(1)), int(m.group(2)))
            continue
        if not line or line.startswith("-- ") or " | " not in line or "time (s)" in line:
            continue
        left, right = line.split(" | ", 1)
        cols = left.split()
        stamp = cols[0]
        dur = " ".join(cols[1:3]) if len(cols) >= 3 else ""
        if len(cols) >= 2 and cols[1] == "(no":
            dur = "(no end)"
        body = right.lstrip(" ")
        out[key].append((stamp, dur, (len(right) - len(body)) // 2, body))
    return out


def main():
    fxt, archive, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
    o = {"tid": set(), "pid": set(), "since": 0, "until": 1 << 64, "min": 0, "depth": 0,
         "function": []}
    for name, val in zip(opts[::2], opts[1::2]):
        if name in ("--tid", "--pid"):
            o[name[2:]] |= {int(v) for v in val.split(",")}
        elif name in ("--since", "--until"):
            o[name[2:]] = stamp_ns(val)
        elif name == "--min":
            o["min"] = dur_ns(val)
        elif name == "--depth":
            o["depth"] = int(val)
        elif name == "--function":
            o["function"] += val.split(",")
    want = expected(cached_events(fxt, archive), o)
    run = subprocess.run([fxt, "replay"] + opts + [archive], capture_output=True, text=True,
                         errors="surrogateescape")
    got = printed(run.stdout)
    bad, n = 0, 0
    for key in sorted(set(want) | set(got)):
        w, g = want.get(key, []), got.get(key, [])
        n += max(len(w), len(g))
        for i in range(max(len(w), len(g))):
            a = w[i] if i < len(w) else None
            b = g[i] if i < len(g) else None
            if a != b:
                bad += 1
                if bad <= 5:
                    print(f"thread {key} line {i}: expected {a}, printed {b}", file=sys.stderr)
    print(f"{len(want)} threads, {n} lines compared, {bad} mismatches")
    sys.exit(1 if bad or run.returncode not in (0, 1) else 0)


if __name__ == "__main__":
    main()
