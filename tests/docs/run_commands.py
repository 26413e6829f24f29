#!/usr/bin/env python3
"""run_commands: the commands the pages show run as shown, and print what the pages show (issues 27
and 36). Every `$ command` line of a ```console block (README.md and docs/*.md) whose command starts
with tools/mpirun-local, optionally after VAR=value assignments, or is `ls` of what such a command
wrote, is run from a scratch directory with `build/` standing for the build directory and `tools/`
for the source tree's. It must exit 0, and every line the page shows under it must be a line of the
real output column by column: values may differ, words may not. Two lines compare equal when they
do after `shape()`: every number (with its time unit, `<=` before it) and every `-` cell becomes `#`, a `...` on the page
elides (the parts around it must appear in that order),
the stop reason becomes STOP, the two bound kinds KIND, and a row's trailing `! ...` note (whether a
point is uncertain depends on the run), `retried: ...` note and `clock± hard` mark are dropped; a context line (`key  a=1, b=2`)
compares the names of its fields (their values differ between MPIs), of which the page may show
some. So a column added,
removed or renamed, a new `[timing]` cell or a changed header fails. Commands of a driver or
library this build lacks (isochron-shmem, libisochron-trace.so) are reported as not built;
`isochron ...` (Python) commands are left to pytest.
  run_commands.py SOURCE_DIR BUILD_DIR [PAGE.md...]
Prints one line per command and "run_commands: PASS (N run)" or "run_commands: FAIL"."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
pages = sys.argv[3:] or ([os.path.join(src, "README.md")]
                         + sorted(os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md")))

NUM = re.compile(r"(<=\s*)?[-+]?\d+(\.\d+)?(e[-+]?\d+)?(\s?(ns|us|µs|ms|s)\b)?")
STOPS = r"\b(ci|max_reps|max_attempts|budget|error)\b(?!=)"


CTX = re.compile(r"^([a-z_]+)\s{2,}([a-z_]+=.*)$")    # a context line: key  k1=v1, k2=v2, ...


def shape(line):
    """The line with its values replaced: what must agree between a page and a real run. A context
    line keeps its key and the names of its fields only (their values name the MPI library, the
    binding, the command: they differ between MPIs and machines)."""
    m = CTX.match(line.strip())
    if m:
        return "CTX " + m.group(1) + " " + " ".join(re.findall(r"(?:^|, )([a-z_]+)=", m.group(2)))
    s = line.strip()
    s = re.sub(r"\s+!\s.*$|\s+!$", "", s)               # the uncertain note: depends on the run
    s = re.sub(r"\s+retried: .*$", "", s)                # a retried point's note: likewise
    s = re.sub(r"\s+clock± hard$", "", s)                # the hard bound's mark: likewise
    s = NUM.sub("#", s)
    s = re.sub(r"(?<=\s)-(?=\s|$)", "#", s)              # a cell without a value
    s = re.sub(r"\b(stat|hard)\b", "KIND", s) if s.startswith("max |offset|") else s
    s = re.sub(STOPS, "STOP", s) if "#" in s else s       # rows, not the header's 'stop'
    return " ".join(s.split())


def fits(page_shape, real_shape):
    """A page's line equals the real one; where the page elides with '...', its parts appear in order."""
    if page_shape.startswith("CTX ") and real_shape.startswith("CTX "):   # the page's fields exist
        p, r = page_shape.split(), real_shape.split()
        return p[1] == r[1] and set(p[2:]) <= set(r[2:])
    if "..." not in page_shape:
        return page_shape == real_shape
    at = 0
    for part in (x.strip(" ,") for x in page_shape.split("...")):
        i = real_shape.find(part, at)
        if i < 0 or (at == 0 and i != 0):
            return False
        at = i + len(part)
    return True


cmds = []  # (page, command, shown output lines)
for page in pages:
    blocks, cur = [], None
    for line in open(page, encoding="utf-8"):
        if line.startswith("```console"):
            cur = []
        elif line.startswith("```") and cur is not None:
            blocks.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line.rstrip("\n"))
    for b in blocks:
        for i, l in enumerate(b):
            if l.startswith("$ "):
                shown = []
                for x in b[i + 1:]:
                    if x.startswith("$ "):
                        break
                    if x.strip() and not x.lstrip().startswith("..."):
                        shown.append(x)
                cmds.append((os.path.relpath(page, src), l[2:], shown))

bad, ran, skipped = [], 0, False
with tempfile.TemporaryDirectory() as tmp:
    for page, cmd, shown in cmds:
        words = shlex.split(cmd)
        env_words = [w for w in words if re.match(r"^[A-Z_]+=", w)]
        rest = words[len(env_words):]
        if not rest or (rest[0] != "tools/mpirun-local" and rest[0] != "ls"):
            print(f"run_commands: left out ({page}): {cmd}")
            continue
        needs = [w for w in words if w.startswith("build/") or "=build/" in w]
        missing = [w.split("=", 1)[-1] for w in needs if not os.path.exists(os.path.join(build, w.split("=", 1)[-1][len("build/"):]))]
        if rest[0] == "ls" and skipped:                   # lists what a command not run here wrote
            print(f"run_commands: left out (its command was not run): {cmd}")
            continue
        skipped = bool(missing)
        if missing:
            print(f"run_commands: not built here ({', '.join(missing)}): {cmd}")
            continue
        line = cmd.replace("build/", build + "/").replace("tools/mpirun-local", os.path.join(src, "tools", "mpirun-local"))
        p = subprocess.run(["bash", "-c", line], cwd=tmp, capture_output=True, text=True, timeout=120)
        out = p.stdout + p.stderr
        ran += 1
        if p.returncode != 0:
            bad.append(f"{page}: {cmd}: exit {p.returncode}\n{out[-2000:]}")
            continue
        if rest[0] == "ls":                                # ls prints one name a line into a pipe
            names = set(out.split())
            lacking = [x for x in shown if not set(x.split()) <= names]
        else:
            have = [shape(x) for x in out.splitlines()]
            lacking = [x for x in shown if not any(fits(shape(x), h) for h in have)]
        if lacking:
            bad.append(f"{page}: {cmd}: the page shows lines the run does not print (column by column):\n"
                       + "".join(f"  page: {x}\n  shape: {shape(x)}\n" for x in lacking)
                       + "real output:\n" + out[-3000:])
        else:
            print(f"run_commands: ok ({page}, {len(shown)} lines compared): {cmd}")
for b in bad:
    print("run_commands: FAIL:", b)
if bad or not ran:
    print("run_commands: FAIL" + ("" if ran else " (no command ran)"))
    sys.exit(1)
print(f"run_commands: PASS ({ran} run)")
