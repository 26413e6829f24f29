#!/usr/bin/env python3
"""check_links: every relative link of README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md,
docs/papers/*.md and docs/man/*.md resolves, and every docs/... path a man page (docs/man/*.1) names
exists: the file or directory exists in the source tree and, for `page.md#anchor`, the page has
a heading whose GitHub anchor is `anchor` (lower case, punctuation dropped, spaces to '-').
External links (http, https, mailto) are not fetched. Issue 27.
  check_links.py SOURCE_DIR
Prints one line per broken link and "check_links: FAIL", or "check_links: PASS (N links in M files)"."""
import os
import re
import sys

root = sys.argv[1]
# Pages other work items create: a link to one of them is reported as pending, not broken, until it
# exists; remove a name once it has landed (docs/shmem.md and docs/cluster.md have).
PENDING = set()

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchors(path):
    out = set()
    fenced = False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            a = m.group(1).strip().lower()
            a = re.sub(r"[^\w\- ]", "", a)
            out.add(a.replace(" ", "-"))
    return out


def links(path):
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        # inline code spans are not links
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            yield n, target


files = [f for f in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md") if os.path.exists(os.path.join(root, f))]
for sub in ("docs", "docs/papers", "docs/man"):
    files += sorted(os.path.join(sub, f) for f in os.listdir(os.path.join(root, sub)) if f.endswith(".md"))
bad, pending, count = [], set(), 0
for man in sorted(f for f in os.listdir(os.path.join(root, "docs", "man")) if f.endswith(".1")):
    for n, line in enumerate(open(os.path.join(root, "docs", "man", man), encoding="utf-8"), 1):
        for target in re.findall(r"\bdocs/[\w./-]*[\w/]", line.replace("\\-", "-")):
            count += 1
            if not os.path.exists(os.path.join(root, target)):
                bad.append(f"docs/man/{man}:{n}: {target} does not exist")
for rel in files:
    here = os.path.dirname(rel)
    for n, target in links(os.path.join(root, rel)):
        if re.match(r"^[a-z]+:", target):
            continue
        count += 1
        path, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(here, path)) if path else rel
        if not os.path.exists(os.path.join(root, dest)):
            if dest in PENDING:
                pending.add(dest)
                continue
            bad.append(f"{rel}:{n}: {target}: {dest} does not exist")
            continue
        if frag and dest.endswith(".md") and frag not in anchors(os.path.join(root, dest)):
            bad.append(f"{rel}:{n}: {target}: no heading with anchor #{frag} in {dest}")
for b in bad:
    print("check_links:", b)
for p in sorted(pending):
    print(f"check_links: pending: {p} (created by another work item of issue 27)")
if bad:
    print("check_links: FAIL")
    sys.exit(1)
print(f"check_links: PASS ({count} links in {len(files)} files)")
