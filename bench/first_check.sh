#!/usr/bin/env bash
# The truth oracle at first checks (issue 35): many launches of isochron-clock's accuracy check at
# wait 0 with rank 1 in its own time namespace (unshare --time, +7 s on CLOCK_MONOTONIC), so the truth
# is the kernel's shared clock, independent of isochron; half of the launches quiet, half beside one
# busy-looping hog per CPU. Each launch injects 2 ppm by host on its own seed (SEED + launch; tests use
# 4711 and others). Prints, per condition, how many first checks had the true error above the stated or
# the hard bound (a false "bound below truth" where the oracle is wrong), and the true errors' spread.
# Usage (root): bench/first_check.sh [BUILD_DIR]   env: LAUNCHES (per condition, default 50), SEED
# (default 12000), BENCH_QUICK=1 (5 launches per condition)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(readlink -f "${1:-$here/build}")
[ -z "${BENCH_QUICK:-}" ] || : "${LAUNCHES:=5}"
launches=${LAUNCHES:-50} seed=${SEED:-12000}
[ "$(id -u)" -eq 0 ] && unshare --time --monotonic=7 --fork true 2>/dev/null ||
  { echo "first_check: SKIPPED (needs root and time namespaces: unshare --time)"; exit 77; }
out=$build/first_check
mkdir -p "$out"
rm -f "$out"/*.jsonl
echo "first_check: $launches launches per condition, 2 ranks (rank 1 in a time namespace, +7 s), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
hogs=()
for cond in quiet loaded; do
  if [ "$cond" = loaded ]; then
    for ((c = 0; c < $(nproc); c++)); do (while :; do :; done) & hogs+=($!); done
    trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
  fi
  for ((i = 0; i < launches; i++)); do
    s=$((seed + i)); [ "$cond" = quiet ] || s=$((s + launches))
    j=$out/$cond-$i.jsonl
    "$here/tools/mpirun-local" -np 1 "$build/isochron-clock" --timer monotonic --wait 0 --skew "drift=2,seed=$s,by=host" \
      --quiet --jsonl "$j" : -np 1 unshare --time --monotonic=7 --fork "$build/isochron-clock" --timer monotonic --wait 0 \
      --skew "drift=2,seed=$s,by=host" --quiet --jsonl "$j" > /dev/null 2>&1 || echo "($cond launch $i: isochron-clock exited $?)"
  done
  [ "$cond" != loaded ] || { kill "${hogs[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
done
python3 - "$out" "$launches" <<'PY'
import glob, json, math, os, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
print(f"{'condition':<10} {'checks':>6} {'true>stated':>11} {'true>hard':>9} {'median |true| ns':>16} {'max |true| ns':>13} {'median stated ns':>16}")
for cond in ("quiet", "loaded"):
    t, over_s, over_h, stated = [], 0, 0, []
    for i in range(n):
        p = os.path.join(out, f"{cond}-{i}.jsonl")
        if not os.path.exists(p):
            continue
        for r in map(json.loads, open(p)):
            if r.get("type") != "accuracy" or r.get("rank") != 1 or r.get("true_offset_s") is None:
                continue
            a = abs(r["true_offset_s"])
            t.append(a); stated.append(r["bound_s"])
            over_s += a > r["bound_s"]; over_h += a > r["bound_hard_s"]
    if t:
        print(f"{cond:<10} {len(t):>6} {over_s:>11} {over_h:>9} {statistics.median(t)*1e9:>16.1f} {max(t)*1e9:>13.1f} {statistics.median(stated)*1e9:>16.1f}")
    else:
        print(f"{cond:<10} {0:>6} (no first check recorded)")
PY
