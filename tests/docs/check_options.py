#!/usr/bin/env python3
"""check_options: each driver's guide documents exactly the options its --help lists, and its --help's exit
statuses are docs/output.md's table (issue 36).
An option of `DRIVER --help` (a line starting with two spaces and `--name`) that its guide
docs/DRIVER.md never names fails; so does an option the guide names for the driver that --help no
longer lists: `--name` in a command line that runs the driver (a line naming DRIVER) or in the first
cell of a table row of the guide, minus the launcher's own options (those of mpirun, srun).
  check_options.py SOURCE_DIR DRIVER_BINARY...
Prints one line per finding and "check_options: PASS (N options in M guides)" or "check_options: FAIL"."""
import os
import re
import subprocess
import sys

src, drivers = sys.argv[1], sys.argv[2:]
LAUNCHER = {"--oversubscribe", "--allow-run-as-root", "--hostfile", "--map-by", "--bind-to", "--mca",
            "--ntasks-per-node", "--cpu-bind", "--nodes", "--mpi", "--host", "--report-bindings"}
OPT = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
bad, count = [], 0
for exe in drivers:
    name = os.path.basename(exe)
    helptext = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30).stdout
    have = {m.group(1) for m in re.finditer(r"^  (--[a-z][a-z0-9-]*)", helptext, re.M)}
    guide = os.path.join(src, "docs", name + ".md")
    text = open(guide, encoding="utf-8").read()
    named = set(OPT.findall(text))
    for o in sorted(have - named):
        bad.append(f"docs/{name}.md does not document {o} (in {name} --help)")
    claimed = set()
    for line in text.splitlines():
        if re.search(rf"\b{re.escape(name)}\b(?!\.md)", line) and not line.lstrip().startswith("#"):
            # the options after the driver's name on a command line
            for cmd in re.findall(rf"\b{re.escape(name)}\b[^`|]*", line):
                claimed |= set(OPT.findall(cmd))
        if line.startswith("| `--"):
            claimed |= set(OPT.findall(line.split("|")[1]))
    for o in sorted(claimed - have - LAUNCHER):
        bad.append(f"docs/{name}.md names {o} for {name}, which its --help does not list")
    count += len(have)
# the exit statuses: each driver's --help block ("exit status:", apps/options.c's one table) row for
# row as docs/output.md's table (backticks aside; "isochron-shmem only: " marks the row only it prints)
page = open(os.path.join(src, "docs", "output.md"), encoding="utf-8").read()
sec = page.split("## Exit statuses", 1)[1] if "## Exit statuses" in page else ""
rows = [(m.group(1).strip(), m.group(2).strip().replace("`", "")) for m in
        re.finditer(r"^\| *([0-9][0-9+N]*) *\| *(.+?) *\|$", sec.split("\n## ", 1)[0], re.M)]
if not rows:
    bad.append("docs/output.md has no exit-status table under '## Exit statuses'")
for exe in drivers:
    name = os.path.basename(exe)
    helptext = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30).stdout
    block = helptext.split("\nexit status:\n", 1)
    got = [tuple(l.strip().split(None, 1)) for l in block[1].split("\n") if l.startswith("  ")] if len(block) == 2 else []
    want = [(st, m.replace("isochron-shmem only: ", "")) for st, m in rows
            if name == "isochron-shmem" or not m.startswith("isochron-shmem only: ")]
    if got != want:
        bad.append(f"{name} --help's exit statuses {got} differ from docs/output.md's {want}")
for b in bad:
    print("check_options:", b)
if bad or not drivers:
    print("check_options: FAIL")
    sys.exit(1)
print(f"check_options: PASS ({count} options in {len(drivers)} guides)")
