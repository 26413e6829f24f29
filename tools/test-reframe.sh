#!/usr/bin/env bash
# tools/test-reframe.sh: isochron's ReFrame checks (packaging/reframe/) run by ReFrame 4.10.4 from PyPI
# (issue 39), in a venv of their own (BUILD/reframe-venv).
#
# Design. Default (CI): ReFrame's local scheduler with the mpirun launcher (system isochron-local), on
# the drivers BUILD already holds (the build fixture then only checks that they are there), so the
# stage costs the checks' runs, not a build. --build: the fixture builds isochron from the checkout
# with ReFrame's CMake build system instead. --slurm: the namespace cluster through Slurm (system
# isochron-cluster: ReFrame's Slurm scheduler, srun launcher), 2 nodes, one rank per node, the
# monotonic timer (each node's CLOCK_MONOTONIC is shifted, CLOCK_REALTIME is the truth), 4 s per point
# (a loaded host's TCP path across the namespaces gave pingpong 8 B no valid repetition in 1 s): the cluster
# ISOCHRON_CLUSTER (default eco1) is brought up with Slurm and down afterwards (`tools/cluster with`);
# ReFrame's sbatch/squeue/... are packaging/reframe/cluster-bin's wrappers, first on PATH, which run
# the real commands inside node 0 (`tools/cluster sbatch ...`). Stage and output go to BUILD/reframe*,
# on a file system the nodes share. Exit status: ReFrame's (0: every check passed).
#   tools/test-reframe.sh [--build] [--slurm] [BUILD]       (BUILD default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
mode=local from_source=
while [ $# -gt 0 ]; do
  case $1 in
    --build) from_source=yes; shift ;;
    --slurm) mode=slurm; shift ;;
    -*) echo "test-reframe: unknown option $1 (valid: --build, --slurm)" >&2; exit 2 ;;
    *) break ;;
  esac
done
BUILD=$(readlink -f "${1:-build}")
t0=$SECONDS
V=$BUILD/reframe-venv
if ! "$V/bin/reframe" --version 2>/dev/null | grep -qx '4.10.4'; then
  rm -rf "$V" && python3 -m venv "$V"
  # ReFrame's dependencies as its metadata lists them, less polars (172 MB unpacked; only ReFrame's
  # results analytics import it, and its 'no-analytics' extra does not drop it under pip)
  "$V/bin/pip" install -q --no-compile --disable-pip-version-check --no-deps 'reframe-hpc==4.10.4'
  "$V/bin/pip" install -q --no-compile --disable-pip-version-check 'archspec>=0.2.4' 'argcomplete~=3.6' \
    'clustershell~=1.9' 'fasteners~=0.20' 'jinja2~=3.1' 'jsonschema~=4.26' 'lxml~=6.0' 'pyyaml~=6.0' \
    'requests~=2.33' 'semver~=3.0' 'tabulate~=0.10'
fi
echo "test-reframe: ReFrame $("$V/bin/reframe" --version) in $V ($((SECONDS - t0)) s)"

args=(-C "$ROOT/packaging/reframe/config.py" -c "$ROOT/packaging/reframe/isochron_checks.py"
      --prefix "$BUILD/reframe-$mode" --report-file "$BUILD/reframe-$mode/report.json" --nocolor)
if [ -z "$from_source" ]; then
  [ -x "$BUILD/isochron-bench" ] || { echo "test-reframe: $BUILD has no drivers (make build first, or --build)" >&2; exit 2; }
  args+=(-S "isochron_build.bindir=$BUILD")
fi
rc=0
if [ $mode = local ]; then
  "$V/bin/reframe" "${args[@]}" --system isochron-local:default -r || rc=$?
else
  export ISOCHRON_CLUSTER=${ISOCHRON_CLUSTER:-eco1}
  "$ROOT/tools/cluster" with 2 --slurm -- \
    env PATH="$ROOT/packaging/reframe/cluster-bin:$PATH" "$V/bin/reframe" "${args[@]}" --system isochron-cluster:compute \
    $(for t in isochron_clock_check isochron_bench_check; do echo "-S $t.timer=monotonic -S $t.ranks_per_node=1 -S $t.budget_s=4"; done) \
    -r || rc=$?
fi
echo "test-reframe: $mode run exited $rc ($((SECONDS - t0)) s)"
exit $rc
