#!/usr/bin/env python3
"""check_cycles: no cycle of dependencies between files (issue 27, item 4).

The module rule of check_layering.cmake (nothing lower includes anything higher)
says nothing about the files inside one module; this check does. A cycle between
files means neither can be read, tested or replaced without the other. What
counts as a dependency, precisely:

  C (src/**/*.c and the private headers src/**/*.h):
    - a.c -> b.c when a.c names an identifier that b.c defines with external
      linkage (a function or a variable at file scope not declared static):
      a call, a table entry, a pointer taken, all alike;
    - a.h -> b.h when the private header a.h includes "b.h" (header cycles);
    comments, string and character literals and preprocessor lines are ignored.
  Python (python/src/isochron/*.py):
    - a -> b when a imports b by any form (``from .b import x``, ``from . import
      b``, ``import isochron.b``), at the top or inside a function: an import
      moved into a function to dodge the circle is still the circle.
      ``from . import x`` where x is no module names the package (__init__).

A cycle is a strongly connected component of more than one file; each is
printed with one of its edges per file and the identifiers behind it. Prints
"check_cycles: PASS" or one "check_cycles: FAIL: ..." line per cycle; cycles in
ALLOWED are printed as "allowed" and do not fail.

    check_cycles.py SOURCE_DIR
"""
import ast
import os
import re
import sys

# Cycles tolerated for now, with the reason. Each entry is the sorted tuple of
# the files in the component; an entry that no longer matches a cycle is
# reported as a note to remove it (not a failure: its owner may land the fix
# before anyone edits this list). A cycle that grows or changes its files fails.
ALLOWED = set()   # (files...) tuples; none tolerated now

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_c(text):
    """C text without comments, string/char literals and preprocessor lines."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            while i < n:                       # skip the directive, with continuations
                j = text.find("\n", i)
                if j < 0:
                    i = n
                    break
                cont = text[i:j].rstrip().endswith("\\")
                i = j + 1
                if not cont:
                    break
            out.append("\n")
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if c == "\n":
            at_line_start = True
            out.append(c)
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j) + " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" 0 ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


MACRO_CALL = re.compile(r"\b(?:[A-Z_][A-Z0-9_]*|__attribute__)\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")


def c_definitions(code):
    """Identifiers that this (stripped) C file defines with external linkage:
    functions and file-scope variables not declared static. Upper-case macro
    invocations at file scope (which may generate definitions whose names only
    the preprocessor knows) are passed over."""
    defs = set()
    depth = 0
    stmt = []
    for ch in code:
        if depth:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            continue
        if ch == "{":
            s = MACRO_CALL.sub(" ", "".join(stmt)).strip()
            depth = 1
            if s.endswith(")") and "=" not in s:          # a function definition
                _toplevel(s, True, defs)
                stmt = []
            else:                                         # struct body or initializer
                stmt.append(" {} ")
        elif ch == ";":
            _toplevel(MACRO_CALL.sub(" ", "".join(stmt)).strip(), False, defs)
            stmt = []
        else:
            stmt.append(ch)
    return defs


def _toplevel(s, is_function, defs):
    words = IDENT.findall(s)
    if not words or {"static", "typedef", "extern"} & set(words):
        return
    if is_function:
        names = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", s)
        if names:
            defs.add(names[0])
        return
    head = re.split(r"=", s)[0]
    if "(" in head and "(*" not in head.replace(" ", ""):
        return                                            # a prototype
    head = head.split("{}")[-1]                           # after a struct body: the declarators
    for decl in head.split(","):
        names = IDENT.findall(decl.split("[")[0])
        if names and names[-1] not in ("struct", "union", "enum", "const", "volatile"):
            defs.add(names[-1])


def c_graph(root):
    files, heads = {}, {}
    for d, _, fs in os.walk(os.path.join(root, "src")):
        for f in sorted(fs):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if f.endswith(".c"):
                files[rel] = strip_c(open(p, encoding="utf-8", errors="replace").read())
            elif f.endswith(".h"):
                heads[rel] = open(p, encoding="utf-8", errors="replace").read()
    owner = {}
    for rel, code in files.items():
        for name in c_definitions(code):
            owner.setdefault(name, set()).add(rel)
    edges = {}
    for rel, code in files.items():
        for name in set(IDENT.findall(code)):
            for other in owner.get(name, ()):
                if other != rel:
                    edges.setdefault(rel, {}).setdefault(other, set()).add(name)
    inc = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
    for rel, text in heads.items():
        base = os.path.dirname(rel)
        for target in inc.findall(text):
            for cand in (os.path.normpath(os.path.join(base, target)), os.path.join("src", target)):
                if cand in heads and cand != rel:
                    edges.setdefault(rel, {}).setdefault(cand, set()).add("#include")
    return edges


def py_graph(root):
    pkg = os.path.join(root, "python", "src", "isochron")
    mods = {f[:-3]: os.path.join(pkg, f) for f in os.listdir(pkg) if f.endswith(".py")}
    name = lambda m: f"python/src/isochron/{m}.py"
    edges = {}
    for m, path in sorted(mods.items()):
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    targets.append((node.module.split(".")[0], node.lineno))
                elif node.level == 1:
                    for a in node.names:
                        targets.append((a.name if a.name in mods else "__init__", node.lineno))
                elif node.level == 0 and node.module and node.module.split(".")[0] == "isochron":
                    parts = node.module.split(".")
                    if len(parts) > 1:
                        targets.append((parts[1], node.lineno))
                    else:
                        for a in node.names:
                            targets.append((a.name if a.name in mods else "__init__", node.lineno))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == "isochron":
                        targets.append((parts[1] if len(parts) > 1 else "__init__", node.lineno))
            for t, line in targets:
                if t in mods and t != m:
                    edges.setdefault(name(m), {}).setdefault(name(t), set()).add(f"import at line {line}")
    return edges


def components(edges):
    """Strongly connected components (Tarjan, iterative) of more than one node."""
    nodes = set(edges)
    for v in edges.values():
        nodes |= set(v)
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(tuple(sorted(comp)))
    return sorted(out)


def describe(comp, edges):
    parts = []
    for a in comp:
        for b in comp:
            why = edges.get(a, {}).get(b)
            if why:
                shown = sorted(why)
                more = f" +{len(shown) - 3}" if len(shown) > 3 else ""
                parts.append(f"{a} -> {b} ({', '.join(shown[:3])}{more})")
    return "; ".join(parts)


def main():
    if len(sys.argv) != 2:
        print("usage: check_cycles.py SOURCE_DIR")
        return 2
    root = sys.argv[1]
    edges = c_graph(root)
    edges.update(py_graph(root))
    comps = components(edges)
    failed = 0
    for comp in comps:
        if comp in ALLOWED:
            print(f"check_cycles: allowed: {len(comp)} files: {describe(comp, edges)}")
        else:
            print(f"check_cycles: FAIL: cycle of {len(comp)} files: {describe(comp, edges)}")
            failed += 1
    for comp in sorted(ALLOWED - set(comps)):
        print(f"check_cycles: note: ALLOWED names {', '.join(comp)}, which is no longer a cycle: remove the entry")
    nfiles = len(set(edges) | {b for v in edges.values() for b in v})
    print(f"check_cycles: {len(comps)} cycles among {nfiles} connected files")
    if failed:
        return 1
    print("check_cycles: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
