#!/usr/bin/env bash
# isochron-barrier's cost experiment (the barrier as an operation of the benchmark engine,
# src/barrier/experiment.c) under SimGrid SMPI, 8 ranks on the flat platform (sim/run.sh).
# Every algorithm but "mpi" deadlocked there: the operation found its barrier through a
# thread-local pointer, and SMPI runs every simulated rank on one host thread, so all ranks ran
# the last caller's handle (rank 7's, whose rank number made every rank report to rank 0 and wait).
# Now the operation finds it in the point's context (isochron_op_ctx_t.user). The run is bounded
# by a timeout, so a hang fails the test instead of blocking CI (a deadlock SimGrid detects makes
# sim/run.sh exit 3; smpirun itself exits 0 then); each algorithm must yield a cost
# record with valid repetitions and a positive simulated median (simulated time: deterministic).
# usage: check_sim_barrier_cost.sh SOURCE_DIR WORK_DIR; exit 77 = skipped.
set -euo pipefail
src=$1 work=$2
source "$src/tests/sim/sim_setup.sh"
bars=linear,tree,butterfly,sync0,dissemination,double_ring,rds
js=$work/sim_barrier_cost.jsonl
rm -f "$js"
set +e
timeout 60 bash "$src/sim/run.sh" -t flat 8 isochron-barrier --experiments cost --barriers "$bars" \
  --min-reps 10 --max-reps 20 --format none --jsonl "$js" --quiet > "$work/sim_barrier_cost.err" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  cat "$work/sim_barrier_cost.err"
  case $rc in
    124) echo "FAIL the cost experiment did not finish within 60 s (a hang)" ;;
    3) echo "FAIL SimGrid found the simulated ranks deadlocked in the cost experiment (sim/run.sh exit 3)" ;;
    *) echo "FAIL the cost experiment exited $rc" ;;
  esac
  exit 1
fi
echo "ok   the cost experiment of $bars ran at 8 simulated ranks"
python3 - "$js" "$bars" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
want = sys.argv[2].split(",")
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
cost = {r.get("barrier"): r for r in recs if r.get("type") == "cost"}
check(sorted(cost) == sorted(want), "a cost record per algorithm (got %s)" % sorted(k for k in cost if k))
for b in want:
    r = cost.get(b, {})
    med = r.get("median_s")
    check(r.get("valid", 0) >= 10 and med is not None and med > 0,
          "%s: %r valid repetitions, median %s" % (b, r.get("valid"), "%.3f us" % (med * 1e6) if med else med))
end = [r for r in recs if r.get("type") == "end"]
check(len(end) == 1 and end[0].get("complete") is True, "the run's end record says complete")
sys.exit(0 if ok else 1)
PY
