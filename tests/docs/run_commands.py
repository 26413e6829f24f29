#!/usr/bin/env python3
"""run_commands: the commands the front page (README.md) shows run as shown (issue 27). Every
`$ command` line of a ```console block whose command starts with tools/mpirun-local, optionally
after VAR=value assignments, or is `ls` of what such a command wrote, is run from a scratch
directory with `build/` standing for the build directory and `tools/` for the source tree's; it must
exit 0 and print the first two words of the first output line the page shows under it (a table's
header, the program's first line). Commands of a driver or library this build lacks
(isochron-shmem, libisochron-trace.so) are reported as not built; `isochron ...` (Python) commands
are left to pytest.
  run_commands.py SOURCE_DIR BUILD_DIR [PAGE.md]
Prints one line per command and "run_commands: PASS (N run)" or "run_commands: FAIL"."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
page = sys.argv[3] if len(sys.argv) > 3 else os.path.join(src, "README.md")

blocks, cur = [], None
for line in open(page, encoding="utf-8"):
    if line.startswith("```console"):
        cur = []
    elif line.startswith("```") and cur is not None:
        blocks.append(cur)
        cur = None
    elif cur is not None:
        cur.append(line.rstrip("\n"))

cmds = []  # (command, first shown output line)
for b in blocks:
    for i, l in enumerate(b):
        if l.startswith("$ "):
            shown = next((x for x in b[i + 1:] if x.strip()), "")
            cmds.append((l[2:], "" if shown.startswith("$ ") else shown))

bad, ran = [], 0
with tempfile.TemporaryDirectory() as tmp:
    for cmd, shown in cmds:
        words = shlex.split(cmd)
        env_words = [w for w in words if re.match(r"^[A-Z_]+=", w)]
        rest = words[len(env_words):]
        if not rest or (rest[0] != "tools/mpirun-local" and rest[0] != "ls"):
            print(f"run_commands: left out: {cmd}")
            continue
        needs = [w for w in words if w.startswith("build/") or "=build/" in w]
        missing = [w.split("=", 1)[-1] for w in needs if not os.path.exists(os.path.join(build, w.split("=", 1)[-1][len("build/"):]))]
        if missing:
            print(f"run_commands: not built here ({', '.join(missing)}): {cmd}")
            continue
        line = cmd.replace("build/", build + "/").replace("tools/mpirun-local", os.path.join(src, "tools", "mpirun-local"))
        p = subprocess.run(["bash", "-c", line], cwd=tmp, capture_output=True, text=True, timeout=120)
        out = p.stdout + p.stderr
        ran += 1
        want = shown.split()[:2]
        if p.returncode != 0:
            bad.append(f"{cmd}: exit {p.returncode}\n{out[-2000:]}")
        elif want and not all(w in out for w in want):
            bad.append(f"{cmd}: the output lacks {' '.join(want)!r}\n{out[-2000:]}")
        else:
            print(f"run_commands: ok: {cmd}")
for b in bad:
    print("run_commands: FAIL:", b)
if bad or not ran:
    print("run_commands: FAIL" + ("" if ran else " (no command ran)"))
    sys.exit(1)
print(f"run_commands: PASS ({ran} run)")
