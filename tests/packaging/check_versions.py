#!/usr/bin/env python3
"""check_versions: one version everywhere. include/isochron.h's
ISOCHRON_VERSION_MAJOR/MINOR/PATCH (the one C source: CMakeLists.txt's project
VERSION and ISOCHRON_VERSION_STRING are made of them), the Python package
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
def header_version(path):
    text = open(f"{src}/{path}").read()
    nums = [re.search(rf"^#define ISOCHRON_VERSION_{k} ([0-9]+)$", text, re.M) for k in ("MAJOR", "MINOR", "PATCH")]
    if not all(nums): fail(f"no ISOCHRON_VERSION_MAJOR/MINOR/PATCH in {path}")
    return ".".join(m.group(1) for m in nums)
found = {
    "include/isochron.h (the C source, CMakeLists.txt reads it)": header_version("include/isochron.h"),
    "isochron.__version__": grab("python/src/isochron/_version.py", r'^__version__ = "([^"]+)"'),
}
for arg in sys.argv[2:]:
    name, _, out = arg.partition("=")
    m = re.search(r"([0-9]+\.[0-9]+\.[0-9]+)", out)
    found[name + " --version"] = m.group(1) if m else f"(nothing in {out!r})"
for k, v in found.items(): print(f"  {k}: {v}")
if len(set(found.values())) != 1: fail(f"versions differ: {found}")
print("check_versions: PASS")
