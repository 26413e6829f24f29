#!/usr/bin/env python3
"""quickstart: the C and C++ programs of docs/quickstart.md compile against this build's shared
library and run at 2 ranks, each printing its one line (issue 36). The programs are taken from the
page's own ```c and ```cpp blocks, so the page cannot drift from the API.
  quickstart.py SOURCE_DIR LIBRARY_DIR   (MPICC, MPIRUN from the environment; MPICXX, else MPICC's C++ twin)
Prints "quickstart: PASS" or "quickstart: FAIL: ..."."""
import os
import re
import subprocess
import sys
import tempfile

src, libdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
page = open(os.path.join(src, "docs", "quickstart.md"), encoding="utf-8").read()
progs = {"c": re.findall(r"^```c\n(.*?)^```", page, re.S | re.M),
         "cpp": re.findall(r"^```cpp\n(.*?)^```", page, re.S | re.M)}
if len(progs["c"]) != 1 or len(progs["cpp"]) != 1:
    print(f"quickstart: FAIL: the page should hold one ```c and one ```cpp block, has {len(progs['c'])} and {len(progs['cpp'])}")
    sys.exit(1)
mpirun = [os.path.join(src, "tools", "mpirun-local")]   # MPIRUN (the build's MPI) plus what Open MPI needs here
bad = []
with tempfile.TemporaryDirectory() as tmp:
    mpicc = os.environ.get("MPICC") or "mpicc"
    # the C++ wrapper of the same MPI (CMake finds only the C one: mpicc.mpich -> mpicxx.mpich)
    mpicxx = os.environ.get("MPICXX") or os.path.join(os.path.dirname(mpicc), os.path.basename(mpicc).replace("mpicc", "mpicxx", 1))
    for lang, cc, std in (("c", mpicc, "-std=c11"), ("cpp", mpicxx, "-std=c++11")):
        srcf, exe = os.path.join(tmp, "quick." + lang), os.path.join(tmp, "quick_" + lang)
        open(srcf, "w").write(progs[lang][0])
        build = [cc, std, "-Wall", "-Wextra", "-Werror", "-I", os.path.join(src, "include"), srcf, "-o", exe,
                 "-L", libdir, "-lisochron", "-lm", "-Wl,-rpath," + libdir]
        p = subprocess.run(build, capture_output=True, text=True)
        if p.returncode:
            bad.append(f"{lang}: does not compile: {' '.join(build)}\n{p.stdout}{p.stderr}")
            continue
        p = subprocess.run(mpirun + ["-np", "2", exe], capture_output=True, text=True, timeout=120)
        lines = [x for x in p.stdout.splitlines() if x.startswith("my_operation: median")]
        if p.returncode or len(lines) != 1 or "nan" in lines[0]:
            bad.append(f"{lang}: exit {p.returncode}, output:\n{p.stdout}{p.stderr}")
        else:
            print(f"quickstart: {lang}: {lines[0]}")
for b in bad:
    print("quickstart: FAIL:", b)
if bad:
    sys.exit(1)
print("quickstart: PASS")
