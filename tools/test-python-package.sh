#!/usr/bin/env bash
# tools/test-python-package.sh: the Python package on its own, as a user gets it (issue 39).
#
# Design. Everything here runs from a fresh virtual environment that never sees the checkout's
# .venv or its editable install: (1) `pip install` of a copy of python/ (so no stale build/ or
# *.egg-info of the checkout can slip in; not editable) into a clean venv; (2) the copy built into
# a wheel and an sdist with PyPA's `build`, their metadata checked with `twine check --strict`, and
# both archives opened to check that the package data (results-1.schema.json, py.typed) is inside;
# the installed `isochron show/compare/report` then read JSON Lines the
# C drivers wrote in this job (a short isochron-clock and two isochron-bench launches at 2 ranks,
# when BUILD holds the drivers) or else the committed examples/data (real runs, see
# examples/data/README.md); (3) examples/analysis.ipynb executed with nbclient (from PyPI) in that
# venv's kernel on the same files. References: PyPA's packaging guide (build, twine check),
# nbclient's NotebookClient. pip downloads count in the stage time; pip's cache is used if present.
#   tools/test-python-package.sh [BUILD]      (BUILD default: build; WORK dir: $BUILD/pkg-test)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build}
PY=${PYTHON:-python3}
W=$ROOT/$BUILD/pkg-test
rm -rf "$W" && mkdir -p "$W/src" "$W/dist" "$W/runs"
t0=$SECONDS
say() { echo "test-python-package: $* ($((SECONDS - t0)) s)"; }

# the package's sources as the repository holds them (tracked files only when this is a git checkout)
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$ROOT" ls-files -z python | (cd "$ROOT" && xargs -0 cp --parents -t "$W/src")
else
  cp -r python "$W/src/"
fi

# result files: written by the C drivers now (in the background, while pip works) when they are
# built, else the committed real runs
RUN=$ROOT/tools/mpirun-local
drivers=
if [ -x "$BUILD/isochron-bench" ] && [ -x "$BUILD/isochron-clock" ]; then
  drivers=yes
  ( "$RUN" -np 2 "$BUILD/isochron-clock" --wait 0,0.2 --quiet --format none --jsonl "$W/runs/clock.jsonl"
    for k in a b; do
      "$RUN" -np 2 "$BUILD/isochron-bench" --ops allreduce,bcast,pingpong --sizes 8,1K --max-reps 60 --quiet --format none --jsonl "$W/runs/bench-$k.jsonl"
    done ) >"$W/runs/log" 2>&1 &
  drivers=$!
  CLOCK=$W/runs/clock.jsonl A=$W/runs/bench-a.jsonl B=$W/runs/bench-b.jsonl
else
  CLOCK=$ROOT/examples/data/clock.jsonl A=$ROOT/examples/data/bench-a.jsonl B=$ROOT/examples/data/bench-b.jsonl
  echo "test-python-package: $BUILD has no drivers: reading the committed examples/data"
fi

# (1) a non-editable install of the package (a copy of python/) into a clean venv, with the tools
# this script uses (one resolver run; no byte-compiling: imports compile what they use)
"$PY" -m venv "$W/venv"
V=$W/venv/bin
"$V/python" -m pip install -q --no-compile --disable-pip-version-check "$W/src/python" build twine nbclient nbformat ipykernel
"$V/python" - <<'PY'
import importlib.metadata as md, os, isochron
from isochron.dataset import _schema
assert "site-packages" in isochron.__file__, f"isochron imported from {isochron.__file__}, not the installed copy"
assert os.path.isfile(os.path.join(os.path.dirname(isochron.__file__), "results-1.schema.json"))
assert md.version("isochron") == isochron.__version__
print(f"  isochron {isochron.__version__} from {os.path.dirname(isochron.__file__)}; schema {_schema().get('$id', '(no $id)')}")
PY
say "pip install (not editable) of the package and the tools into a clean venv"

# (2) wheel + sdist, metadata, package data inside both
"$V/python" -m build -q --outdir "$W/dist" "$W/src/python" >"$W/build.log" 2>&1 || { cat "$W/build.log"; exit 1; }
"$V/twine" check --strict "$W"/dist/*
"$V/python" - "$W/dist" <<'PY'
import glob, os, sys, tarfile, zipfile
d = sys.argv[1]
whl, = glob.glob(os.path.join(d, "isochron-*.whl"))
sdist, = glob.glob(os.path.join(d, "isochron-*.tar.gz"))
need = ("isochron/results-1.schema.json", "isochron/py.typed", "isochron/cli.py")
names = zipfile.ZipFile(whl).namelist()
missing = [n for n in need if n not in names]
if missing or not any(n.endswith("entry_points.txt") for n in names):
    sys.exit(f"test-python-package: FAIL: {os.path.basename(whl)} lacks {missing or 'entry_points.txt'}")
snames = tarfile.open(sdist).getnames()
smissing = [n for n in need if not any(s.endswith("src/" + n) for s in snames)]
if smissing:
    sys.exit(f"test-python-package: FAIL: {os.path.basename(sdist)} lacks {smissing}")
print(f"  {os.path.basename(whl)}: {len(names)} files; {os.path.basename(sdist)}: {len(snames)} files; package data in both")
PY
say "wheel and sdist built, twine check passed"

if [ -n "$drivers" ]; then
  wait "$drivers" || { cat "$W/runs/log"; echo "test-python-package: FAIL: a driver run failed"; exit 1; }
  say "drivers ran (isochron-clock, 2 x isochron-bench, 2 ranks)"
fi
"$V/isochron" --version
"$V/isochron" show "$CLOCK" "$A" >"$W/show.txt"
grep -q . "$W/show.txt" || { echo "test-python-package: FAIL: isochron show printed nothing"; exit 1; }
"$V/isochron" compare "$A" "$B" --threshold 5% >"$W/compare.txt"
head -n 12 "$W/compare.txt"
"$V/isochron" report "$CLOCK" "$A" "$B" -o "$W/report" >"$W/report.txt"
[ -s "$W/report/index.html" ] || { echo "test-python-package: FAIL: isochron report wrote no $W/report/index.html"; ls -l "$W/report" || true; exit 1; }
say "isochron show/compare/report"

# (3) the notebook, executed in the venv's own kernel, on the same files
"$V/python" -m ipykernel install --prefix "$W/venv" --name isochron-pkg-test >/dev/null
ISOCHRON_EXAMPLE_A=$A ISOCHRON_EXAMPLE_B=$B ISOCHRON_EXAMPLE_OUT=$W/notebook \
"$V/python" - "$ROOT/examples/analysis.ipynb" "$W/analysis.out.ipynb" <<'PY'
import os, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=120, kernel_name="isochron-pkg-test",
               resources={"metadata": {"path": os.path.dirname(sys.argv[1])}}).execute()
nbformat.write(nb, sys.argv[2])
outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
errors = [o for o in outs if o.get("output_type") == "error"]
images = [o for o in outs if "image/png" in o.get("data", {})]
if errors or not images:
    sys.exit(f"test-python-package: FAIL: the notebook gave {len(errors)} errors, {len(images)} figures")
print(f"  examples/analysis.ipynb: {len(nb.cells)} cells executed, {len(images)} figure(s)")
PY
ls "$W/notebook"
say "notebook executed"
echo "test-python-package: PASS ($((SECONDS - t0)) s)"
