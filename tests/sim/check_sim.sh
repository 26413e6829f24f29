#!/usr/bin/env bash
# One simulated case (issue 15): isochron-clock's hca3 sync at 64 ranks on SimGrid's fat tree
# (sim/run.sh), one skew per simulated host (offset ±1 ms, drift ±50 ppm). Asserts that the
# accuracy check takes its truth from the simulated time across hosts, that the drift is kept
# (true max error below 1 µs right after sync and 10 s later; an offset-only model is hundreds
# of µs off at 10 s), and that the simulated sync takes under 1 s (waits cost simulated time at
# the platform's speed, not SMPI's injected per-call times).
# usage: check_sim.sh SOURCE_DIR WORK_DIR [extra isochron-clock options]; exit 77 = skipped.
set -euo pipefail
src=$1 work=$2
shift 2
source "$src/tests/sim/sim_setup.sh"
js=$work/sim_hca3_64.jsonl
bash "$src/sim/run.sh" 64 isochron-clock --sync hca3 --track off --wait 0,10 --skew offset=1ms,drift=50,by=host,seed=3 \
  --check-pingpongs 1 --format none --jsonl "$js" --quiet "$@"
python3 - "$js" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ctx = next(r for r in recs if r["type"] == "context")
summ = {r["wait_s"]: r for r in recs if r["type"] == "summary"}
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
check(ctx.get("truth") == "simulated_time", "truth is the simulated time (got %r)" % ctx.get("truth"))
check(set(summ) == {0, 10}, "summaries at 0 and 10 s")
for w in sorted(summ):
    e = summ[w]["max_abs_true_offset_s"]
    check(e is not None and e < 1e-6, "true max error at %g s below 1 us: %.3f us" % (w, (e or float("nan")) * 1e6))
d = summ[0]["duration_s"]
check(0 < d < 1.0, "simulated sync duration below 1 s: %.3f s" % d)
sys.exit(0 if ok else 1)
PY
