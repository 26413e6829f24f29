#!/usr/bin/env bash
# The truth at first checks (issue 35): test_truth_first (tests/sync/test_truth_first.c) repeats
# checks with the single wait 0 and sets each true offset against the truth it computes itself; here
# it is launched LAUNCHES times quiet and LAUNCHES times beside a CPU hog (a busy loop on every CPU,
# started and stopped by this script), with rank 1 in its own time namespace (+7 s, unshare --time:
# the truth across "nodes", as tools/cluster's) where root may make one, else on one namespace (said).
# Any true offset outside the truth between its check's ends fails; no timing threshold.
# Usage: check_truth_first.sh MPIRUN_LOCAL TEST_TRUTH_FIRST   env: LAUNCHES (default 4), CHECKS (default 15), SEED
set -u
mpirun=$1 prog=$2
launches=${LAUNCHES:-4} checks=${CHECKS:-15} seed=${SEED:-3511}
ns=(unshare --time --monotonic=7 --fork)
where="rank 1 in a time namespace 7 s ahead"
if [ "$(id -u)" -ne 0 ] || ! unshare --time --monotonic=7 --fork true 2>/dev/null; then
  ns=(); where="one time namespace (no root or no unshare --time here)"
fi
hogs=()
stop_hogs() { for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; wait "$h" 2>/dev/null; done; hogs=(); }
trap stop_hogs EXIT
fails=0 runs=0
for mode in quiet loaded; do
  off=0
  if [ $mode = loaded ]; then
    off=100
    for ((c = 0; c < $(nproc); c++)); do (while :; do :; done) & hogs+=($!); done
  fi
  for ((l = 0; l < launches; l++)); do
    s=$((seed + off + l))
    out=$("$mpirun" -np 1 "$prog" "$checks" "$s" : -np 1 "${ns[@]}" "$prog" "$checks" "$s" 2>&1)
    rc=$? runs=$((runs + 1))
    line=$(grep "^test_truth_first:" <<<"$out" | sed "s/^test_truth_first: //" | paste -sd";" -)
    echo "$mode launch $l (seed $s): ${line:-no summary} (exit $rc)"
    if [ $rc -ne 0 ] || [ -z "$line" ]; then fails=$((fails + 1)); grep -E "FAIL|rror" <<<"$out" | head -5; fi
  done
  stop_hogs
done
if [ $fails -ne 0 ]; then echo "check_truth_first: FAIL ($fails of $runs launches, $where)"; exit 1; fi
echo "check_truth_first: PASS ($runs launches of $checks first checks each, half beside a CPU hog; $where)"
