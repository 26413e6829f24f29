#!/usr/bin/env bash
# Algorithm tuning of Open MPI's coll/tuned from isochron's measurements (docs/tuning.md):
#  1. every algorithm of COLL forced per launch (--mca coll_tuned_use_dynamic_rules 1 --mca
#     coll_tuned_<coll>_algorithm N; alg0 = the default) in one interleaved launch set, LAUNCHES
#     launches each; `isochron tune` chooses per size the fastest algorithm that is significantly
#     faster than the default across launches and writes Open MPI's dynamic rules file;
#  2. the default, the rules file and the chosen algorithms forced for every size, side by side in
#     a second, independent launch set: the rules file must never be slower than the default beyond
#     launch noise, and at least as fast as the best single algorithm per size.
#   COLL=allreduce NP=2 SIZES=8,1K,64K,1M LAUNCHES=3 VLAUNCHES=4 BUDGET=0.3 KEEP=DIR keeps the sets
# The machine (2 cores) is shared with other jobs: the title line gives the load.
set -euo pipefail
[ -n "${PY:-}" ] || PY=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
. "$(dirname "$0")/common.sh"
bench_init COLL=allreduce NP=2 SIZES=8,1K,64K,1M LAUNCHES=3 VLAUNCHES=4 BUDGET=0.3
[ -x "$BUILD/isochron-bench" ] || { echo "tune_ompi.sh: no $BUILD/isochron-bench (build it first)" >&2; exit 2; }
echo "# tune_ompi: $COLL at $NP processes, sizes $SIZES, $LAUNCHES launches per algorithm, then $VLAUNCHES per"\
     "configuration to verify; Open MPI $(ompi_info --version 2>/dev/null | head -1 | awk '{print $NF}'); $(bench_cores)"
"$PY" -m isochron.cli tune --coll "$COLL" --np "$NP" --run "$OUT/algs" --launches "$LAUNCHES" --sizes "$SIZES" \
  --bench "$BUILD/isochron-bench" --bench-args "--budget $BUDGET" --rules "$OUT/rules.txt" 2>"$OUT/algs.log" \
  || { cat "$OUT/algs.log" >&2; exit 1; }
echo
echo "# the rules file:"
cat "$OUT/rules.txt"
chosen=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ && $2 != 0 {print $2}' "$OUT/rules.txt" | sort -u | paste -sd, -)
echo
echo "# verification (load now $(bench_load)); forced for comparison: ${chosen:-none}"
"$PY" -m isochron.cli tune --coll "$COLL" --np "$NP" --rules "$OUT/rules.txt" --verify "$OUT/verify" \
  ${chosen:+--algs "$chosen"} --launches "$VLAUNCHES" --sizes "$SIZES" --bench "$BUILD/isochron-bench" \
  --bench-args "--budget $BUDGET" 2>"$OUT/verify.log" || { cat "$OUT/verify.log" >&2; exit 1; }
echo "# load at end: $(bench_load)"
