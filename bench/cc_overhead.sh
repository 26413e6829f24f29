#!/usr/bin/env bash
# Overhead of libisochron-cc.so (issue 14, paper 003 section 5): isochron-bench
# run unchanged under ISOCHRON_CC_MODE=native, cc and 2pc (LD_PRELOAD), at each
# NP, for Allreduce, Bcast, Alltoall, Barrier, Iallreduce, Ibcast at 4 B, 1 KiB,
# 1 MiB, ROUNDS rounds with the modes interleaved. Prints per point the median
# over rounds of each launch's median, and the median over rounds of each mode's
# ratio to native in the same round with its [min, max] over rounds.
#   usage: bench/cc_overhead.sh [NP ...]      (default: 4 2)
#   env:   BUILD (default build), BUDGET (s per point, default 0.5), MAXREPS (default 400), ROUNDS (5)
# Targets (issue 14): cc within 2 % of native on blocking small messages, 10 % non-blocking.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
lib=$build/libisochron-cc.so
bench=$build/isochron-bench
for f in "$lib" "$bench"; do
  [ -e "$f" ] || { echo "cc_overhead: $f not built (cmake --build $build --target isochron_cc isochron-bench)" >&2; exit 2; }
done
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${BUDGET:=0.05}" "${MAXREPS:=20}"   # BENCH_QUICK=1: a short smoke run (2 ranks)
nps=("$@"); [ ${#nps[@]} -gt 0 ] || nps=(4 2); [ $# -gt 0 ] || [ -z "${BENCH_QUICK:-}" ] || nps=(2)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ROUNDS=${ROUNDS:-5}
# Modes interleaved round by round, in a rotated order: the machine's state changes within seconds
# (a 1 KiB bcast alternates between ~0.7 and ~2.4 us here), so modes run one after the other
# compare states, not layers (one run of each showed cc 4x native on a 4 B bcast at 2 ranks, and
# 0.09x on a 1 MiB allreduce at 4).
modes=(native cc 2pc)
for r in $(seq 1 "$ROUNDS"); do
  for np in "${nps[@]}"; do
    for k in 0 1 2; do
      mode=${modes[$(( (k + r) % 3 ))]}
      ISOCHRON_CC_MODE=$mode LD_PRELOAD=$lib "$here/tools/mpirun-local" -np "$np" "$bench" \
        --ops allreduce,bcast,alltoall,barrier,iallreduce,ibcast --sizes 4,1K,1M --format csv --quiet \
        --budget "${BUDGET:-0.5}" --max-reps "${MAXREPS:-400}" --rel-ci 0.01 --sync hca3/20/skampi/10 \
        > "$tmp/$np.$mode.$r.csv"
    done
  done
done
python3 - "$tmp" "$ROUNDS" "${nps[@]}" <<'PY'
import csv, sys, os, math, statistics
tmp, rounds, nps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(p):
    rows = {}
    with open(p) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["median_s"]: rows[(r["op"], int(r["bytes"]))] = float(r["median_s"])
    return rows
print(f"median over {rounds} interleaved rounds of each launch's median; ratio = median over rounds of mode/native")
print("within a round (launches next to each other), [min, max] over rounds")
print("np  op          bytes   native_us       cc_us  cc/native [min max]        2pc_us  2pc/native [min max]")
for np in nps:
    d = {m: [load(os.path.join(tmp, f"{np}.{m}.{r}.csv")) for r in range(1, rounds + 1)] for m in ("native", "cc", "2pc")}
    for key in d["native"][0]:
        nat = [x[key] for x in d["native"] if key in x]
        out = f"{np:<3} {key[0]:<11} {key[1]:>8} {statistics.median(nat)*1e6:>10.2f}"
        for m in ("cc", "2pc"):
            pairs = [(d[m][r][key], d["native"][r][key]) for r in range(rounds) if key in d[m][r] and key in d["native"][r]]
            if not pairs:
                out += f" {'-':>11}  {'-':<24}"
                continue
            rat = [a / b for a, b in pairs]
            out += f" {statistics.median([a for a, _ in pairs])*1e6:>11.2f}  {statistics.median(rat):6.3f} [{min(rat):6.3f} {max(rat):6.3f}]"
        print(out)
PY
echo "# 2 cores: np 4 is oversubscribed"
