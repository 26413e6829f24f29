#!/usr/bin/env python3
"""check_versions: one version everywhere. CMakeLists.txt's project VERSION,
include/isochron.h's ISOCHRON_VERSION_STRING, the Python package
(isochron/_version.py, which pyproject.toml reads) and what every driver prints for
--version (given as the remaining arguments: "name=output") agree.
  check_versions.py SOURCE_DIR [driver=output ...]"""
import re, sys

def fail(msg):
    print("check_versions: FAIL:", msg)
    sys.exit(1)

src = sys.argv[1]
def grab(path, pattern):
    m = re.search(pattern, open(f"{src}/{path}").read(), re.M)
    if not m: fail(f"no version found in {path}")
    return m.group(1)
found = {
    "CMakeLists.txt": grab("CMakeLists.txt", r"project\(isochron VERSION ([0-9.]+)"),
    "include/isochron.h": grab("include/isochron.h", r'ISOCHRON_VERSION_STRING "([^"]+)"'),
    "isochron.__version__": grab("python/src/isochron/_version.py", r'^__version__ = "([^"]+)"'),
}
for arg in sys.argv[2:]:
    name, _, out = arg.partition("=")
    m = re.search(r"([0-9]+\.[0-9]+\.[0-9]+)", out)
    found[name + " --version"] = m.group(1) if m else f"(nothing in {out!r})"
for k, v in found.items(): print(f"  {k}: {v}")
if len(set(found.values())) != 1: fail(f"versions differ: {found}")
print("check_versions: PASS")
