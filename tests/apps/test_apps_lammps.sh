#!/usr/bin/env bash
# test apps_lammps (issue 28): Debian's LAMMPS (lmp), unmodified, runs a small Lennard-Jones melt
# (500 atoms, 400 steps) at 2 ranks natively, under libisochron-cc.so in cc mode with a checkpoint
# every 0.01 s (the minimum: a quiet machine runs the loop in 0.1 s), in 2pc mode, and under libisochron-trace.so; every layered run must exit 0 and print
# the native run's thermo table unchanged (tests/apps/app_output.py); cc must take at least one
# checkpoint whose state log passes tests/cc/check_cc_log.py (the paper's safe state); the trace
# must pass tests/trace/check_trace.py (otf2-print reads the OTF2 archive, the Perfetto JSON has
# one track per rank, MPI_Allreduce instances line up on the global clock).
# Exit 77 (skipped) when lmp is not installed or links another MPI than the layers.
#   usage: test_apps_lammps.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
cc_lib=$build/libisochron-cc.so tr_lib=$build/libisochron-trace.so
fail() { echo "apps_lammps: FAIL: $*"; exit 1; }
lmp=$(command -v lmp) || { echo "apps_lammps: SKIP: lmp (Debian package lammps) is not installed: tools/install-deps.sh installs it"; exit 77; }
mpi_of() { ldd "$1" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ {print $3}' | xargs -r readlink -f; }
if [ "$(mpi_of "$lmp")" != "$(mpi_of "$cc_lib")" ]; then
  echo "apps_lammps: SKIP: $lmp links '$(mpi_of "$lmp")', the layers '$(mpi_of "$cc_lib")': a layer preloads only into a program of its own MPI"
  exit 77
fi
out=$build/tests/apps_lammps
rm -rf "$out" && mkdir -p "$out" && cd "$out" || fail "cannot make $out"
sed -e 's/@CELLS@/5/g' -e 's/@STEPS@/400/g' "$src/bench/apps/in.melt" > in.melt || fail "no $src/bench/apps/in.melt"
run() {  # run TAG [ENV...]: lmp on 2 ranks, log TAG.log, stderr TAG.err
  local tag=$1; shift
  env OMP_NUM_THREADS=1 "$@" "$src/tools/mpirun-local" -np 2 "$lmp" -in in.melt -log "$tag.log" -screen none \
    > "$tag.out" 2> "$tag.err"
  local rc=$?
  [ "$rc" -eq 0 ] || { tail -5 "$tag.out"; cat "$tag.err"; fail "$tag run exited with status $rc"; }
  [ "$tag" = native ] && return 0
  python3 "$src/tests/apps/app_output.py" lammps native.log "$tag.log" | sed "s/^/apps_lammps: $tag: /"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "$tag: thermo output differs from the native run"
}
run native
run cc ISOCHRON_CC_MODE=cc ISOCHRON_CC_DIR=ck ISOCHRON_CC_LOG=cclog ISOCHRON_CC_INTERVAL=0.01 LD_PRELOAD="$cc_lib"
n=$(ls -d ck/ckpt.*/complete 2>/dev/null | wc -l)
[ "$n" -ge 1 ] || fail "cc: no complete checkpoint in $out/ck (interval 0.01 s: the run was shorter?)"
python3 "$src/tests/cc/check_cc_log.py" cclog --np 2 --interval > cclog.check 2>&1 || { cat cclog.check; fail "cc: state log check"; }
echo "apps_lammps: cc: $n checkpoints, state log: $(tail -1 cclog.check)"
run 2pc ISOCHRON_CC_MODE=2pc LD_PRELOAD="$cc_lib"
if [ -e "$tr_lib" ]; then
  run trace ISOCHRON_TRACE_DIR=tr LD_PRELOAD="$tr_lib"
  python3 "$src/tests/trace/check_trace.py" tr isochron-trace 2 > tr.check 2>&1 || { cat tr.check; fail "trace: check_trace.py"; }
  echo "apps_lammps: trace: $(grep -c '"ph": *"X"' tr/isochron-trace.json) events; $(tail -1 tr.check)"
else
  echo "apps_lammps: trace: libisochron-trace.so not built (no libotf2), not run"
fi
echo "apps_lammps: PASS"
