#!/usr/bin/env bash
# Algorithm tuning of a collective from isochron's measurements (docs/tuning.md), Open MPI's
# coll/tuned (MPI=ompi, the default) or MPICH 4.0's JSON selection (MPI=mpich: bench/tune_mpich.sh):
#  1. every algorithm of COLL forced per launch (Open MPI: --mca coll_tuned_<coll>_algorithm N;
#     MPICH: MPIR_CVAR_<COLL>_INTRA_ALGORITHM; alg0 = the default) in one interleaved launch set,
#     LAUNCHES launches each; `isochron tune` chooses per size the fastest algorithm that is
#     significantly faster than the default across launches and writes the library's rules file;
#  2. the default, the rules file and every algorithm forced, side by side in a second,
#     independent launch set (VLAUNCHES each): per size the rules/default and rules/best-single
#     ratios with their intervals, and whether the rules file is never slower than the default
#     beyond launch noise and at least as fast as the best single algorithm (the fastest of the
#     tuning set, compared through its launches in this independent set).
#   COLL=allreduce NP=2 SIZES=8,1K,32K,256K,1M LAUNCHES=4 VLAUNCHES=4 MAX_LAUNCHES=12 MPI=ompi KEEP=DIR
#   keeps the sets (and a rerun with the same KEEP reuses the finished sets). MAX_LAUNCHES: where the
#   fastest algorithm is faster than the default but not significant, `isochron tune` measures more
#   launches of just those two at just those sizes (2 per round, sets algs.more<N>) up to this many
#   BENCH_ARGS: the driver's arguments (default: 0.15 s per point; one node, so ranks share the host's
#   CLOCK_MONOTONIC: --sync prop --timer monotonic, no tracking: a launch takes seconds, not tens)
# The machine (2 cores) is shared with other jobs: the title line gives the load.
set -euo pipefail
[ -n "${PY:-}" ] || PY=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
. "$(dirname "$0")/common.sh"
bench_quick SIZES=8,32K LAUNCHES=3 VLAUNCHES=2 MAX_LAUNCHES=5
bench_init COLL=allreduce NP=2 SIZES=8,1K,32K,256K,1M LAUNCHES=4 VLAUNCHES=4 MAX_LAUNCHES=12 MPI=ompi \
  BENCH_ARGS="--budget 0.15 --sync prop --track off --timer monotonic"
case $MPI in
  ompi) rules=$OUT/rules.txt; version="Open MPI $(ompi_info --version 2>/dev/null | head -1 | awk '{print $NF}')" ;;
  mpich) rules=$OUT/rules.json; export MPIRUN=${MPIRUN:-mpirun.mpich}
         version="MPICH $(mpichversion 2>/dev/null | awk -F: '/Version/ {gsub(/[ \t]/, "", $2); print $2}')" ;;
  *) echo "tune_ompi.sh: MPI=$MPI: give ompi or mpich" >&2; exit 2 ;;
esac
[ -x "$BUILD/isochron-bench" ] || { echo "tune_ompi.sh: no $BUILD/isochron-bench (build it first)" >&2; exit 2; }
tune=("$PY" -m isochron.cli tune --mpi "$MPI" --coll "$COLL" --np "$NP" --sizes "$SIZES" --bench "$BUILD/isochron-bench"
      --bench-args "$BENCH_ARGS")
echo "# tune: $COLL at $NP processes, sizes $SIZES, $LAUNCHES launches per algorithm, then $VLAUNCHES per"\
     "configuration to verify (adaptive up to $MAX_LAUNCHES); $version; $(bench_cores); driver: $BENCH_ARGS"
"${tune[@]}" --run "$OUT/algs" --launches "$LAUNCHES" --max-launches "$MAX_LAUNCHES" --rules "$rules" 2>"$OUT/algs.log" \
  || { cat "$OUT/algs.log" >&2; exit 1; }
grep '^adaptive round' "$OUT/algs.log" | sed 's/^/# /' || true
echo
echo "# the rules file ($(basename "$rules")):"
if [ "$MPI" = ompi ]; then cat "$rules"; else
  "$PY" -c 'import json, sys; t = json.load(open(sys.argv[1])); print(json.dumps({k: v for k, v in t.items() if k == "collective=" + sys.argv[2]}, indent=1))' "$rules" "$COLL"
fi
echo
echo "# verification (load now $(bench_load)): default, rules file and every algorithm forced"
"${tune[@]}" --rules "$rules" --verify "$OUT/verify" --launches "$VLAUNCHES" "$OUT/algs" 2>"$OUT/verify.log" \
  || { cat "$OUT/verify.log" >&2; exit 1; }
echo "# load at end: $(bench_load)"
