#!/usr/bin/env python3
"""check_paths: docs/ and bench/results/ name no file a reader cannot open: no absolute path of the
development machine (issue 36). Flagged, in every text file under docs/ and bench/results/:
  /work/...  the development machine's workspace (its checkouts /work/main and /work/wt/NAME, its
             shared papers, its scratch and peer builds)
  /root/...  the developer's home
  /tmp/...   on a result's header lines (starting with '#'): the setup a result records
(/var/tmp/..., a script's documented default for its peer builds, is not flagged; nor a /tmp/ a log
line printed as the run's scratch output.)
  check_paths.py SOURCE_DIR          prints each finding and "check_paths: PASS (N files)" or FAIL
  check_paths.py SOURCE_DIR --fix    rewrites what has one meaning in the repository: a checkout's
                                     /work/main/X or /work/wt/NAME/X becomes the relative X
                                     (a result written by a script of a worktree), then checks"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
fix = "--fix" in sys.argv[2:]
DEV = re.compile(r"(?<![\w.-])/(work|root)/[^\s`'\")\]]*")
TMP = re.compile(r"(?<![\w.-])/tmp/[^\s`'\")\]]*")
CHECKOUT = re.compile(r"(?<![\w.-])/work/(main|wt/[\w.-]+)/")

files = []
for sub in ("docs", os.path.join("bench", "results")):
    for d, _, names in os.walk(os.path.join(root, sub)):
        for n in names:
            files.append(os.path.join(d, n))
bad, count = [], 0
for f in sorted(files):
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue                                # images and other binaries
    count += 1
    if fix and CHECKOUT.search(text):
        text = CHECKOUT.sub("", text)
        open(f, "w", encoding="utf-8").write(text)
    rel = os.path.relpath(f, root)
    results = rel.startswith(os.path.join("bench", "results"))
    for n, line in enumerate(text.splitlines(), 1):
        hits = [m.group(0) for m in DEV.finditer(line)]
        if results and line.startswith("#"):
            hits += [m.group(0) for m in TMP.finditer(line)]
        for h in hits:
            bad.append(f"{rel}:{n}: {h}")
for b in bad:
    print("check_paths:", b)
if bad:
    print("check_paths: FAIL: a reader cannot open these; cite a paper by its reference (docs/references.md),"
          " a file by its path in the repository (check_paths.py SOURCE_DIR --fix rewrites checkout paths)")
    sys.exit(1)
print(f"check_paths: PASS ({count} files)")
