#!/usr/bin/env bash
# CTest "cluster_clone" (label cluster): the namespace cluster run from a fresh copy of the repository
# under /tmp (issue 35: a checkout or build tree under /tmp used to vanish inside every node, whose /tmp
# was its own, and every launch failed with "agent: exec: /tmp/x/tools/cluster: not found").
# Copies the work tree (git's tracked and untracked, not ignored, files as they are now: what is being
# tested, committed or not; without git, everything but build directories) into a new directory under
# PARENT (default /tmp), builds the cluster tests' probe there with mpicc (and mpicc.mpich where
# installed), and from that copy: `tools/cluster with 2` launches the probe across the nodes by Open
# MPI, MPICH and Slurm's srun (where installed), each run checked against the cluster's state
# (check_probe.py: hostnames, offsets, one kernel), and the probe's binary and the copy's files are
# what the nodes ran (the path under PARENT). A few seconds. Exit 77 where namespaces cannot be made.
# usage: clone.sh SOURCE_DIR [PARENT]   (SLURM=0: without the Slurm launch)
set -euo pipefail
src=$(cd "${1:?usage: clone.sh SOURCE_DIR [PARENT]}" && pwd)
parent=${2:-/tmp}
SLURM=${SLURM:-1}
if ! why=$("$src/tools/cluster" check); then
  echo "SKIPPED: $why"
  exit 77
fi
export ISOCHRON_CLUSTER=c$(($$ % 10000000))
dir=$(mktemp -d "$parent/isochron-clone.XXXXXX")
trap 'rm -rf "$dir" "/run/isochron-cluster/$ISOCHRON_CLUSTER.lock"' EXIT
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$dir"
else
  tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.venv --exclude=./.git -cf - . | tar -xf - -C "$dir"
fi
cd "$dir"
mkdir -p build
mpicc -O2 -o build/cluster_probe tests/cluster/probe.c
mpich=0
command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null && mpicc.mpich -O2 -o build/probe.mpich tests/cluster/probe.c && mpich=1
slurm=0
[ "$SLURM" = 1 ] && command -v slurmctld >/dev/null && command -v munged >/dev/null && slurm=1
echo "copy of $src in $dir (from $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo 'no git'), work tree as it is); MPICH $mpich, Slurm $slurm"
cat >build/runs.sh <<'SH'
set -u
dir=$1 mpich=$2 slurm=$3 fails=0
cl=$dir/tools/cluster nodes=$ISOCHRON_CLUSTER_DIR/nodes
run() { # NAME NRANKS cmd..: a launch from the copy, under a timeout, checked against the state
  local name=$1 n=$2 rc=0 t0=$SECONDS
  shift 2
  timeout -k 5 60 "$@" >"$dir/build/$name.txt" 2>"$dir/build/$name.err" || rc=$?
  echo "$name: $((SECONDS - t0)) s"
  if [ $rc != 0 ]; then
    tail -5 "$dir/build/$name.err"
    echo "FAIL: $name from the copy under $(dirname "$dir"): '$*' exited with status $rc"
    fails=$((fails + 1))
    return
  fi
  python3 "$dir/tests/cluster/check_probe.py" "$nodes" "$dir/build/$name.txt" "$n" 2 "$name" || fails=$((fails + 1))
}
run openmpi 2 "$cl" mpirun-ompi -np 2 --map-by node --mca mpi_yield_when_idle 1 "$dir/build/cluster_probe" --pingpong 20
# the nodes ran the copy's files: the agent is the copy's tool, each node sees the copy's directory
grep -q "$dir/tools/cluster" "$ISOCHRON_CLUSTER_DIR/agent" || { echo "FAIL: the agent is not the copy's tool: $(tail -1 "$ISOCHRON_CLUSTER_DIR/agent")"; fails=$((fails + 1)); }
for k in 0 1; do
  "$cl" exec $k test -f "$dir/tests/cluster/probe.c" || { echo "FAIL: node $k does not see $dir"; fails=$((fails + 1)); }
done
# MPICH's hydra (1 rank per node: docs/cluster.md); a run that hung in MPI_Finalize after all its output
# is the known UCX defect there (tests/cluster/run.sh), not this test's concern
if [ "$mpich" = 1 ]; then
  rc=0 t0=$SECONDS
  timeout -k 5 15 "$cl" mpirun-mpich -np 2 -ppn 1 "$dir/build/probe.mpich" >"$dir/build/mpich.txt" 2>"$dir/build/mpich.err" || rc=$?
  echo "mpich: $((SECONDS - t0)) s$([ $rc = 124 ] && echo ': hung after its output (the known MPI_Finalize defect, docs/cluster.md); killed after 15 s')"
  if [ $rc = 0 ] || { [ $rc = 124 ] && [ "$(grep -c '^rank=' "$dir/build/mpich.txt")" = 2 ]; }; then
    python3 "$dir/tests/cluster/check_probe.py" "$nodes" "$dir/build/mpich.txt" 2 2 mpich || fails=$((fails + 1))
  else
    tail -5 "$dir/build/mpich.err"; echo "FAIL: mpich from the copy: exited with status $rc"; fails=$((fails + 1))
  fi
fi
if [ "$slurm" = 1 ]; then
  t0=$SECONDS
  "$cl" slurm-up >"$dir/build/slurm-up.txt" 2>&1 || { cat "$dir/build/slurm-up.txt"; echo "FAIL: Slurm did not start from the copy"; fails=$((fails + 1)); }
  echo "slurm-up: $((SECONDS - t0)) s"
  run srun 2 "$cl" srun -N 2 -n 2 "$dir/build/cluster_probe"
fi
exit $fails
SH
rc=0 t0=$SECONDS
"$dir/tools/cluster" with 2 --offsets 0,7 -- bash build/runs.sh "$dir" "$mpich" "$slurm" </dev/null || rc=$?
[ $rc = 77 ] && { echo "SKIPPED: the cluster cannot be built here"; exit 77; }
echo "cluster_clone: $rc failure(s) from a copy under $parent ($((SECONDS - t0)) s with up and down)"
[ $rc = 0 ]
