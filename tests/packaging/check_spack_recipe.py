#!/usr/bin/env python3
"""check_spack_recipe: the Spack recipe parses as Python, defines a
CMakePackage named Isochron that depends on mpi and cmake, sits in a Spack
repository (repo.yaml with a namespace), lists the version
CMakeLists.txt declares, and every CMake option it passes exists in
CMakeLists.txt (Spack itself is not installed here: this checks the recipe's
text with Python's ast, not by running Spack).
  check_spack_recipe.py RECIPE CMAKELISTS
Prints "check_spack_recipe: PASS" or the first problem."""
import ast, os, re, sys

def fail(msg):
    print("check_spack_recipe: FAIL:", msg)
    sys.exit(1)

recipe, cmakelists = sys.argv[1], sys.argv[2]
# `spack repo add packaging/spack` needs the repository's repo.yaml (namespace) beside packages/: without
# it Spack refuses the repository ("No repo.yaml found"), as the first real build showed (issue 39)
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(recipe))))
ry = os.path.join(repo, "repo.yaml")
if not os.path.isfile(ry) or not re.search(r"^repo:\s*\n\s+namespace:\s*[A-Za-z_][A-Za-z0-9_]*\s*$", open(ry).read(), re.M):
    fail(f"{ry}: missing, or without 'repo:' and its 'namespace:' (Spack refuses the repository)")
tree = ast.parse(open(recipe).read(), recipe)
cls = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Isochron"]
if not cls: fail("no class Isochron")
bases = [b.id for b in cls[0].bases if isinstance(b, ast.Name)]
if "CMakePackage" not in bases: fail(f"Isochron derives from {bases}, not CMakePackage")
calls = [n for n in ast.walk(cls[0]) if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))]
def args(name):
    return [[a.value for a in c.args if isinstance(a, ast.Constant)] for c in calls
            if (c.func.id if isinstance(c.func, ast.Name) else c.func.attr) == name]
deps = [a[0] for a in args("depends_on") if a]
for d in ("mpi", "cmake@3.18:"):
    if d not in deps: fail(f"no depends_on('{d}') (has {deps})")
versions = [a[0] for a in args("version") if a]
cm = open(cmakelists).read()
# the version's one source is include/isochron.h (CMakeLists.txt reads it for project())
hdr = open(os.path.join(os.path.dirname(os.path.abspath(cmakelists)), "include", "isochron.h")).read()
nums = [re.search(rf"^#define ISOCHRON_VERSION_{k} ([0-9]+)$", hdr, re.M) for k in ("MAJOR", "MINOR", "PATCH")]
ver = ".".join(m.group(1) for m in nums) if all(nums) else None
if ver not in versions: fail(f"the version {ver} (include/isochron.h) is not among the recipe's {versions}")
variants = [a[0] for a in args("variant") if a]
for opt in [a[0] for a in args("define_from_variant") if a]:
    # option(NAME ...) for ON/OFF, isochron_optional(NAME ...) for the AUTO/ON/OFF parts (ON = required)
    if not re.search(r"(option|isochron_optional)\(" + re.escape(opt) + r"\b", cm):
        fail(f"the recipe sets {opt}, which CMakeLists.txt does not define")
for v in ("hwloc", "shmem", "simgrid", "otf2"):
    if v not in variants: fail(f"no variant {v}")
print(f"  versions {versions}, variants {variants}, depends on {deps}")
print("check_spack_recipe: PASS")
