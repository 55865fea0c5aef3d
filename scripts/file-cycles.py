#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The arrows between the C files of a folder, and the circles they make.

Usage: scripts/file-cycles.py [--root DIR] [--no-callers FILE]... [--arrows] FOLDER...

Each FOLDER (relative to --root, default: the repository above this script) is one graph, built
from its .c and .h files below it (the sub-folders too). A file and its header (x.c, x.h in the
same folder) are one node. An arrow Y -> X when Y includes X's header ("folder/x.h" or "x.h"),
or when Y names a function or variable that X defines at its top level and does not make static
(a plain scan of C identifiers: comments, strings, #include lines, prototypes, extern
declarations, struct members and names after '.' or '->' do not count; nor do functions marked
FXTP_EXPORT, the interposed libc names and hooks: a call of one is a call of libc's). Files outside the
folder (common/, writer/...) are not nodes.

Prints, per folder, its files and arrows, then every circle of files (a strongly connected set
of more than one node; a circle is reported once, with its members and the arrows inside it).
--no-callers FILE: FILE's node must have no arrow into it (e.g. the constructor's file: only the
loader calls it); each arrow into it is printed. --arrows prints every arrow too.
Exits 1 when a folder has a circle or a --no-callers file has a caller, 2 on bad usage, else 0.
Reads files only; needs python3 alone.
"""
import argparse
import os
import re
import sys

TOKEN = re.compile(r"[A-Za-z_]\w*|->|\S")
# The mark of the functions the program calls (hooks, interposed libc names): a call of one of
# them from inside the folder is a call of the libc function, not an arrow.
EXPORTED = "FXTP_EXPORT"
KEYWORDS = set("""auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while _Bool _Atomic _Noreturn _Static_assert _Thread_local
__thread __typeof__ typeof __asm__ asm __extension__ __inline__ __restrict""".split())


def strip(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_preprocessor(text):
    """(code without preprocessor lines, macro bodies)."""
    code, macros = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("#"):
            full = line
            while full.endswith("\\") and i + 1 < len(lines):
                i += 1
                full = full[:-1] + " " + lines[i]
                code.append("")
            code.append("")
            if re.match(r"\s*#\s*define\b", full):
                macros.append(full)
        else:
            code.append(line)
        i += 1
    return "\n".join(code), macros


def drop_attributes(tokens):
    """Tokens without __attribute__((...)) and __asm__(...) groups."""
    out, i = [], 0
    while i < len(tokens):
        if tokens[i] in ("__attribute__", "__asm__", "asm") and i + 1 < len(tokens) \
                and tokens[i + 1] == "(":
            depth, i = 0, i + 1
            while i < len(tokens):
                depth += tokens[i] == "("
                depth -= tokens[i] == ")"
                i += 1
                if depth == 0:
                    break
            continue
        out.append(tokens[i])
        i += 1
    return out


def ident(tok):
    return (tok[0].isalpha() or tok[0] == "_") and tok not in KEYWORDS


def scan(code):
    """(names defined at top level and not static, names referenced)."""
    tokens = drop_attributes(TOKEN.findall(code))
    defined, refs = set(), set()
    stmt = []   # the top-level statement so far (tokens at brace depth 0)
    i = 0

    def body_end(start):
        depth = 0
        for j in range(start, len(tokens)):
            depth += tokens[j] == "{"
            depth -= tokens[j] == "}"
            if depth == 0:
                return j
        return len(tokens) - 1

    def take_refs(seq, prev=None):
        for k, t in enumerate(seq):
            before = seq[k - 1] if k else prev
            if ident(t) and before not in (".", "->"):
                refs.add(t)

    while i < len(tokens):
        t = tokens[i]
        if t == "{":
            end = body_end(i)
            paren = [k for k, s in enumerate(stmt) if s == "("]
            aggregate = any(s in ("struct", "union", "enum") for s in stmt) and \
                "=" not in stmt and not (stmt and stmt[-1] == ")")
            if aggregate:
                # a type's members: no references, but an enum's constants may be defined
                if "enum" in stmt:
                    take_refs(tokens[i + 1:end])
                i = end + 1
                # the declarators after the closing brace stay in the statement
                stmt.append("{}")
                continue
            if "=" in stmt:    # an initializer: its names are references
                take_refs(tokens[i + 1:end])
                i = end + 1
                stmt.append("{}")
                continue
            if paren and stmt[-1] == ")":
                # a function definition: the name before the last top-level parameter list
                depth, k = 0, len(stmt) - 1
                while k >= 0:
                    depth += stmt[k] == ")"
                    depth -= stmt[k] == "("
                    if depth == 0:
                        break
                    k -= 1
                if k > 0 and ident(stmt[k - 1]) and \
                        not ({"static", "typedef", EXPORTED} & set(stmt)):
                    defined.add(stmt[k - 1])
                take_refs(tokens[i + 1:end])
            i = end + 1
            stmt = []
            continue
        if t == ";":
            if stmt and not ({"static", "extern", "typedef"} & set(stmt)):
                # a variable definition (not a prototype): the name before '=', '[' or ';'
                top = [s for s in stmt]
                cut = len(top)
                for k, s in enumerate(top):
                    if s in ("=", "["):
                        cut = k
                        break
                head = top[:cut]
                if "{}" in head:    # a type defined here: only declarators after it
                    head = head[len(head) - head[::-1].index("{}"):]
                    head = ["{}"] + head if head else []
                # not a prototype, an assertion or a type declared ahead (struct x;)
                if head and "(" not in head and \
                        not (len(head) > 1 and head[-2] in ("struct", "union", "enum")):
                    names = [s for s in head if ident(s)]
                    if names and len(head) > 1:
                        defined.add(names[-1])
                    take_refs(top[cut:])
            elif stmt and "static" in stmt and "=" in stmt:
                take_refs(stmt[stmt.index("="):])
            stmt = []
            i += 1
            continue
        stmt.append(t)
        i += 1
    return defined, refs


def node_of(path, root):
    rel = os.path.relpath(path, root)
    return os.path.splitext(rel)[0]


def build(folder, root):
    files = []
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        files += [os.path.join(dirpath, f) for f in names if f.endswith((".c", ".h"))]
    nodes = sorted({node_of(f, root) for f in files})
    node_set = set(nodes)
    defines, uses, includes = {}, {}, {}
    for f in sorted(files):
        node = node_of(f, root)
        with open(f, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        code, macros = split_preprocessor(strip(raw))
        # quoted includes only (<...> are the system's), read before strings are blanked
        incs = re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', raw, re.M)
        defined, refs = scan(code)
        for m in macros:   # a macro's body names what it calls
            body = re.sub(r"^\s*#\s*define\s+\w+(\([^)]*\))?", "", m)
            toks = TOKEN.findall(body)
            refs |= {t for k, t in enumerate(toks)
                     if ident(t) and (k == 0 or toks[k - 1] not in (".", "->"))}
        defines.setdefault(node, set()).update(defined)
        uses.setdefault(node, set()).update(refs)
        for inc in incs:
            for cand in (os.path.join(os.path.dirname(f), inc), os.path.join(root, inc)):
                target = node_of(os.path.normpath(cand), root)
                if os.path.exists(cand) and target in node_set and target != node:
                    includes.setdefault(node, set()).add(target)
                    break
    owner = {}
    for node, names in defines.items():
        for name in names:
            owner.setdefault(name, set()).add(node)
    arrows = {n: set(includes.get(n, ())) for n in nodes}
    why = {}
    for n in nodes:
        for inc in includes.get(n, ()):
            why.setdefault((n, inc), []).append("#include")
        for name in uses.get(n, ()):
            for target in owner.get(name, ()):
                if target != n:
                    arrows[n].add(target)
                    why.setdefault((n, target), []).append(name)
    return nodes, arrows, why


def circles(nodes, arrows):
    """Strongly connected sets of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(arrows[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(arrows[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    scc = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        scc.append(w)
                        if w == v:
                            break
                    if len(scc) > 1:
                        out.append(sorted(scc))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   ".."))
    ap.add_argument("--no-callers", action="append", default=[], metavar="FILE")
    ap.add_argument("--arrows", action="store_true")
    ap.add_argument("folders", nargs="+")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    bad = 0
    for folder in a.folders:
        if not os.path.isdir(os.path.join(root, folder)):
            print(f"file-cycles: {folder}: no such folder under {root}", file=sys.stderr)
            return 2
    for folder in a.folders:
        nodes, arrows, why = build(folder, root)
        total = sum(len(v) for v in arrows.values())
        found = circles(nodes, arrows)
        print(f"{folder}: {len(nodes)} files, {total} arrows, {len(found)} circles")
        if a.arrows:
            for n in nodes:
                for t in sorted(arrows[n]):
                    print(f"  {n} -> {t} ({', '.join(sorted(set(why[(n, t)]))[:4])})")
        for scc in found:
            bad = 1
            members = set(scc)
            inside = [(n, t) for n in scc for t in sorted(arrows[n]) if t in members]
            print(f"  circle of {len(scc)} files: {' '.join(scc)}")
            for n, t in inside:
                print(f"    {n} -> {t} ({', '.join(sorted(set(why[(n, t)]))[:4])})")
        for path in a.no_callers:
            target = os.path.splitext(os.path.normpath(path))[0]
            if target not in nodes:
                continue
            callers = [n for n in nodes if target in arrows[n]]
            for n in callers:
                bad = 1
                print(f"  {n} calls into {path} "
                      f"({', '.join(sorted(set(why[(n, target)]))[:4])})")
            if not callers:
                print(f"  {path}: no callers")
    return bad


if __name__ == "__main__":
    sys.exit(main())
