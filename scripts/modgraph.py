#!/usr/bin/env python3
"""The `use` graph of a crate's files, and its cycles.

usage: scripts/modgraph.py CRATE/src [PREFIX ...] [--edges]

An edge A -> B means file A names an item defined in file B (through a
`use` or a `crate::`/`super::`/`self::` path), with re-exports and imports
followed to the file that defines the item, so a parent `mod.rs` that
re-exports its children is not a cycle with them unless a child also uses
something the parent itself defines. `#[cfg(test)] mod tests` blocks and
comments are ignored. With PREFIX arguments (module paths such as `jni`
or `group_agg::sum`) only the modules under them are printed and checked.
Exits 1 and lists the cycles if there are any.
"""

import os
import re
import sys


def strip(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(?:\\.|[^"\\])*"', '""', src)
    # Drop `#[cfg(test)] mod name { ... }` blocks (brace matching).
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", src):
        if m.start() < i:
            continue
        out.append(src[i : m.start()])
        depth, j = 1, m.end()
        while depth and j < len(src):
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        i = j
    out.append(src[i:])
    return "".join(out)


def expand(prefix, body):
    """Expands a use tree `a::{b, c::{d}}` into flat paths."""
    body = body.strip()
    if not body:
        return []
    if body.startswith("{"):
        inner, depth, parts, cur = body[1:-1], 0, [], ""
        for ch in inner:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        parts.append(cur)
        return [p for part in parts for p in expand(prefix, part)]
    m = re.match(r"([\w:]*?)(::)?(\{.*\})$", body, flags=re.S)
    if m and m.group(3):
        head = m.group(1)
        return expand(prefix + ([*head.split("::")] if head else []), m.group(3))
    body = re.split(r"\s+as\s+", body)[0].strip()
    return [prefix + body.split("::")]


def main():
    root = sys.argv[1].rstrip("/")
    prefixes = [tuple(p.split("::")) for p in sys.argv[2:] if not p.startswith("--")]
    keep = lambda m: not prefixes or any(m[: len(p)] == p for p in prefixes)
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(d, n)
                rel = os.path.relpath(p, root)[:-3].split(os.sep)
                if rel[-1] in ("mod", "lib", "main"):
                    rel = rel[:-1]
                files[tuple(rel)] = (p, strip(open(p).read()))
    # Per module: names it imports (name -> absolute path) and items it defines.
    imports, defines = {}, {}
    for mod, (_, src) in files.items():
        imp = {}
        for m in re.finditer(r"\buse\s+([^;]+);", src):
            for path in expand([], m.group(1)):
                absolute = resolve_prefix(mod, path)
                if absolute is None:
                    continue
                name = path[-1]
                alias = re.search(r"\b" + re.escape(name) + r"\s+as\s+(\w+)", m.group(1))
                imp[alias.group(1) if alias else name] = absolute
                if name == "self" and len(absolute) > 0:
                    imp[absolute[-1]] = absolute
        imports[mod] = imp
        defines[mod] = set(
            re.findall(r"\b(?:fn|struct|enum|trait|type|const|static|macro_rules!|union)\s+(\w+)", src)
        )

    def locate(path, seen=()):
        """The file module that defines `path` (an absolute path)."""
        path = [p for p in path if p not in ("self",)]
        # Longest module prefix.
        k = len(path)
        while k > 0 and tuple(path[:k]) not in files:
            k -= 1
        mod = tuple(path[:k])
        rest = path[k:]
        if not rest or rest[0] == "*":
            return mod
        name = rest[0]
        if name in defines.get(mod, ()):
            return mod
        target = imports.get(mod, {}).get(name)
        if target is not None and tuple(target) not in seen:
            if target[:1] and target[0] not in ("crate",) and tuple(target[:1]) not in files:
                return None  # an external crate
            return locate(list(target) + rest[1:], seen + (tuple(target),))
        return mod

    edges = {m: set() for m in files}
    for mod, (_, src) in files.items():
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", src):
            paths += [(m.start(), p) for p in expand([], m.group(1))]
        for m in re.finditer(r"\b(?:crate|super|self)(?:::\w+)+", src):
            if not re.search(r"\buse\s+[^;]*$", src[: m.start()].rsplit(";", 1)[-1]):
                paths.append((m.start(), m.group(0).split("::")))
        paths = [p if isinstance(p, tuple) else (None, p) for p in paths]
        for pos, path in paths:
            absolute = resolve_prefix(mod + inline_at(src, pos), path)
            if absolute is None or (absolute and absolute[0] not in ("crate",) and tuple(absolute[:1]) not in files):
                continue
            target = locate(absolute[1:] if absolute[:1] == ["crate"] else absolute)
            if target is not None and target != mod:
                edges[mod].add(target)

    edges = {m: {t for t in ts if keep(t)} for m, ts in edges.items() if keep(m)}
    show = lambda m: "crate" + "".join("::" + s for s in m)
    if "--edges" in sys.argv:
        for m in sorted(edges):
            for t in sorted(edges[m]):
                print(f"{show(m)} -> {show(t)}")
    cycles = [c for c in sccs(edges) if len(c) > 1]
    for c in cycles:
        print("cycle:", " <-> ".join(sorted(show(m) for m in c)))
    print(f"{len(edges)} files, {sum(map(len, edges.values()))} edges, {len(cycles)} cycles")
    sys.exit(1 if cycles else 0)


def inline_at(src, pos):
    """The inline (non-file) modules enclosing byte `pos` of `src`."""
    if pos is None:
        return ()
    names = []
    for m in re.finditer(r"\bmod\s+(\w+)\s*\{", src[:pos]):
        depth, j = 1, m.end()
        while depth and j < len(src):
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        if j > pos:
            names.append(m.group(1))
    return tuple(names)


def resolve_prefix(mod, path):
    """`path` (as written in module `mod`) as a path from the crate root,
    or None for an external crate / std path."""
    path = [p.strip() for p in path if p.strip()]
    if not path:
        return None
    if path[0] == "crate":
        return path[1:]
    if path[0] == "super" or path[0] == "self":
        cur = list(mod)
        while path and path[0] in ("super", "self"):
            if path[0] == "super":
                cur = cur[:-1]
            path = path[1:]
        return cur + path
    if path[0] in ("std", "core", "alloc"):
        return None
    # A path relative to this module (edition 2018: a child module name).
    return list(mod) + path


def sccs(edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
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

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    main()
