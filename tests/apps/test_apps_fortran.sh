#!/usr/bin/env bash
# test apps_fortran (issue 28): a Fortran MPI program (tests/apps/fortran_calls.f90, built here with
# mpifort) under the layers with LD_AUDIT=libisochron-fortran.so. Open MPI's Fortran bindings call
# PMPI_X, so without the audit module a layer sees none of a Fortran program's calls: each layer
# must then say so at exit (the tracer with exit status 4, as for a trace lost; cc with the program's
# status). With the module:
#   - the tracer records every call exactly once: per rank N MPI_Allreduce, N MPI_Bcast, N/10
#     MPI_Barrier on world, and tests/trace/check_trace.py passes (OTF2 read by otf2-print);
#   - cc with a checkpoint every 0.01 s takes at least one, its state log passes
#     tests/cc/check_cc_log.py, the checksum is the native one.
# Exit 77 (skipped) without mpifort, or when its MPI is not the layers'.
#   usage: test_apps_fortran.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
cc_lib=$build/libisochron-cc.so tr_lib=$build/libisochron-trace.so audit=$build/libisochron-fortran.so
fail() { echo "apps_fortran: FAIL: $*"; exit 1; }
fc=$(command -v mpifort || command -v mpif90) || { echo "apps_fortran: SKIP: no mpifort (Debian: libopenmpi-dev with gfortran)"; exit 77; }
out=$build/tests/apps_fortran
rm -rf "$out" && mkdir -p "$out" && cd "$out" || fail "cannot make $out"
"$fc" -O1 -o fortran_calls "$src/tests/apps/fortran_calls.f90" > build.log 2>&1 || { cat build.log; echo "apps_fortran: SKIP: $fc cannot build a Fortran MPI program"; exit 77; }
mpi_of() { ldd "$1" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ {print $3}' | xargs -r readlink -f; }
if [ "$(mpi_of fortran_calls)" != "$(mpi_of "$cc_lib")" ]; then
  echo "apps_fortran: SKIP: $fc links '$(mpi_of fortran_calls)', the layers '$(mpi_of "$cc_lib")'"
  exit 77
fi
N=300  # iterations traced; the cc run makes 100000 (0.1 s of calls on a quiet machine: checkpoints every 0.01 s fall in it)
run() {  # run TAG [ENV...]: 2 ranks, N iterations, stdout TAG.out; the result line must be native.N's
  local tag=$1; shift
  env "$@" "$src/tools/mpirun-local" -np 2 ./fortran_calls $N > "$tag.out" 2> "$tag.err"
  local rc=$?
  [ "$rc" -eq 0 ] || { cat "$tag.out" "$tag.err"; fail "$tag run exited with status $rc"; }
  grep -q "^fortran_calls: 2 ranks, $N iterations, checksum" "$tag.out" || { cat "$tag.out"; fail "$tag: no result line"; }
  case $tag in native*) return 0 ;; esac
  cmp -s "native.$N.out" "$tag.out" || fail "$tag: '$(cat "$tag.out")', native '$(cat "native.$N.out")'"
}
count() {  # count DIR CALL: events of CALL on rank 0 in DIR's JSON trace (0 when there is no trace)
  python3 -c "import json,sys
try: ev = json.load(open(sys.argv[1] + '/isochron-trace.json'))['traceEvents']
except OSError: print(0); sys.exit()
print(sum(1 for e in ev if e.get('ph') == 'X' and e['tid'] == 0 and e['args']['call'] == sys.argv[2]))" "$1" "$2"
}
run native.$N
if [ -e "$tr_lib" ]; then
  env ISOCHRON_TRACE_DIR=tr_plain LD_PRELOAD="$tr_lib" "$src/tools/mpirun-local" -np 2 ./fortran_calls $N > plain.out 2>&1
  rc=$?
  grep -q "isochron-trace: MPI was initialized without passing through this layer's MPI_Init: nothing was traced" plain.out &&
    [ "$rc" -ne 0 ] || { cat plain.out; fail "trace without LD_AUDIT: exit status $rc and no message that nothing was traced"; }
  echo "apps_fortran: without LD_AUDIT the tracer saw $(count tr_plain MPI_Allreduce) MPI_Allreduce of $N, said so, exit status $rc"
  run trace ISOCHRON_TRACE_DIR=tr LD_AUDIT="$audit" LD_PRELOAD="$tr_lib"
  for c in MPI_Allreduce:$N MPI_Bcast:$N MPI_Barrier:$((N / 10)); do
    got=$(count tr "${c%%:*}")
    [ "$got" = "${c##*:}" ] || fail "trace: $got ${c%%:*} on rank 0, expected ${c##*:} (each call exactly once)"
  done
  python3 "$src/tests/trace/check_trace.py" tr isochron-trace 2 > tr.check 2>&1 || { cat tr.check; fail "trace: check_trace.py"; }
  echo "apps_fortran: trace: $N MPI_Allreduce, $N MPI_Bcast, $((N / 10)) MPI_Barrier on rank 0; $(tail -1 tr.check)"
fi
env ISOCHRON_CC_MODE=cc LD_PRELOAD="$cc_lib" "$src/tools/mpirun-local" -np 2 ./fortran_calls $N > ccplain.out 2>&1
rc=$?
[ "$rc" -eq 0 ] || { cat ccplain.out; fail "cc without LD_AUDIT: exit status $rc"; }
grep -q "isochron-cc: MPI was initialized without passing through this layer's MPI_Init" ccplain.out ||
  { cat ccplain.out; fail "cc without LD_AUDIT: no message that the layer was not used"; }
echo "apps_fortran: without LD_AUDIT cc said that the program ran without the layer"
N=100000
run native.$N
run cc ISOCHRON_CC_MODE=cc ISOCHRON_CC_DIR=ck ISOCHRON_CC_LOG=cclog ISOCHRON_CC_INTERVAL=0.01 LD_AUDIT="$audit" LD_PRELOAD="$cc_lib"
n=$(ls -d ck/ckpt.*/complete 2>/dev/null | wc -l)
[ "$n" -ge 1 ] || fail "cc: no complete checkpoint in $out/ck"
python3 "$src/tests/cc/check_cc_log.py" cclog --np 2 --interval > cclog.check 2>&1 || { cat cclog.check; fail "cc: state log check"; }
echo "apps_fortran: cc: $n checkpoints, checksum unchanged, state log: $(tail -1 cclog.check)"
echo "apps_fortran: PASS"
