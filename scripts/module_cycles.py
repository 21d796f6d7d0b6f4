#!/usr/bin/env python3
"""Prints the `use` graph of a Rust crate's modules and fails on a cycle.

    scripts/module_cycles.py CRATE_SRC [PREFIX ...]

Each `.rs` file under CRATE_SRC is one module (`lib.rs` the root, `a/mod.rs`
and `a.rs` the module `a`). Every `use crate::...`, `use super::...` and
`use self::...` path, every relative `use child::...` path, and every such
path in code, points at the deepest module its segments name; that is an edge from the file's module
to it (a module's own `mod child;` declarations are not edges). With
PREFIX arguments only modules under those paths are printed and checked
(e.g. `jni`). Inline test modules at the end of a file are left out.
Exits 1 and prints each strongly connected component of more
than one module when there is a cycle.
"""

import os
import re
import sys


def module_of(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return "::".join(rel)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(line.split("//")[0] for line in text.splitlines())
    # An inline `#[cfg(test)] mod tests { ... }` (by convention the end of
    # the file) is a child module whose `super::` is this file: not counted.
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def use_paths(text):
    """Every path of `use` items (braces expanded) and inline crate/super paths."""
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        paths.extend(expand(m.group(1).replace("\n", " ").replace(" ", "")))
    for m in re.finditer(r"(?<![:\w])(\w+(?:::\w+)+)", text):
        paths.append(m.group(1))
    return paths


def expand(tree):
    """`a::{b, c::{d}}` -> [`a::b`, `a::c::d`]."""
    if "{" not in tree:
        return [tree.split(" as ")[0]]
    i = tree.index("{")
    head, body = tree[:i], tree[i + 1 : tree.rindex("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [p for part in parts if part for p in expand(head + part)]


def resolve(path, here, modules):
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = here.split("::") if here else []
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    elif "::".join((here.split("::") if here else []) + segs[:1]) in modules:
        # A 2018-style relative path through a child module (`use eval::X`).
        base = here.split("::") if here else []
    else:
        return None
    best = None
    for k in range(len(segs) + 1):
        cand = "::".join(base + segs[:k])
        if cand in modules:
            best = cand
    return best


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    root, prefixes = sys.argv[1], sys.argv[2:]
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(d, n)
                files[module_of(root, p)] = p
    modules = set(files)
    keep = lambda m: not prefixes or any(m == p or m.startswith(p + "::") for p in prefixes)
    graph = {m: set() for m in modules if keep(m)}
    for m in graph:
        with open(files[m], encoding="utf-8") as f:
            text = strip_comments(f.read())
        for path in use_paths(text):
            target = resolve(path, m, modules)
            if target is not None and target != m and keep(target):
                graph[m].add(target)
    for m in sorted(graph):
        print(f"{m or '(root)'} -> {', '.join(sorted(t or '(root)' for t in graph[m])) or '-'}")
    cycles = [c for c in sccs(graph) if len(c) > 1]
    for c in cycles:
        print("CYCLE: " + " <-> ".join(sorted(c)))
    print(f"{len(graph)} modules, {sum(len(v) for v in graph.values())} edges, {len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
