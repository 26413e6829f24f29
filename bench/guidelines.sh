#!/usr/bin/env bash
# Self-consistent performance guidelines (key traff-guidelines; docs/tuning.md): every collective of
# the guideline list against its mock-up (src/ops/mockup.c) with `isochron guidelines`, then the same
# procedure on each collective against itself under a second name (<coll>_alias): the A/A control,
# whose violations are false ones (target: <= 5 % of pairs). One interleaved launch set per process
# count (collective first / mock-up first, LAUNCHES launches each); the table gives per pair the
# ratio mock-up/collective, its t interval across launches, the launch-to-launch noise and the
# verdict, and the violations by size range.
#   MPI=ompi (default) or MPI=mpich (Debian's MPICH 4.0.2: BUILD=build-mpich, built with
#   -DMPI_C_COMPILER=mpicc.mpich as tools/test-mpich.sh does; launcher mpirun.mpich)
#   NP=2,4  LAUNCHES=3  SIZES=8,1K,32K,256K  BUDGET=0.2 (s per point)  KEEP=DIR keeps the sets
# The sets are small because the machine (2 cores) is shared; the title line says the load.
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ -n "${PY:-}" ] || PY=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
bench_init MPI=ompi NP=2,4 LAUNCHES=3 SIZES=8,1K,32K,256K BUDGET=0.2 AA=1
if [ "$MPI" = mpich ]; then
  [ "$BUILD" != build ] || BUILD=build-mpich
  launcher="env MPIRUN=mpirun.mpich tools/mpirun-local"
else
  launcher="tools/mpirun-local"
fi
[ -x "$BUILD/isochron-bench" ] || { echo "guidelines.sh: no $BUILD/isochron-bench (build it first)" >&2; exit 2; }
echo "# guidelines, $MPI, np $NP, $LAUNCHES launches per order, sizes $SIZES, budget $BUDGET s/point;" \
     "$(bench_cores) at start"
"$PY" -m isochron.cli guidelines --run "$OUT/gl" --np "$NP" --launches "$LAUNCHES" --sizes "$SIZES" \
  --bench "$BUILD/isochron-bench" --bench-args "--budget $BUDGET" --launcher "$launcher" \
  --json "$OUT/guidelines.json" 2>"$OUT/gl.log" || { cat "$OUT/gl.log" >&2; exit 1; }
echo "# load at end of the guideline sets: $(bench_load)"
if [ "$AA" = 1 ]; then
  echo
  "$PY" -m isochron.cli guidelines --aa --run "$OUT/aa" --np "$NP" --launches "$LAUNCHES" --sizes "$SIZES" \
    --bench "$BUILD/isochron-bench" --bench-args "--budget $BUDGET" --launcher "$launcher" \
    --json "$OUT/aa.json" 2>"$OUT/aa.log" || { cat "$OUT/aa.log" >&2; exit 1; }
  echo "# load at end of the A/A sets: $(bench_load)"
fi
