#!/usr/bin/env bash
# hca3+prop under SimGrid SMPI (sim/run.sh, 8 ranks on 4 simulated hosts, 2 per host), two cases:
#  1. read jitter injected (--skew jitter=1us): each read of one time source gets its own noise,
#     so prop (ClockPropSync, paper 000 Alg. 3) must run: every follower's model is its host
#     leader's, and the true error stays within the stated bound. It used to be refused (the
#     shared-time-source test counted the jitter as a second source, src/sync/pair.c) and, under
#     SimGrid, reported another rank's "clock flatten: buffer of 0 bytes" instead.
#  2. one host refuses prop (r7:drift=20 gives its two ranks different injected clocks) while the
#     others go on: the failure must carry the refusing rank's sentence. SMPI runs every rank on
#     one host thread, so a thread-local error buffer was shared and the others' messages
#     overwrote it (src/core/error.c). The sentence names the ranks as launched and their host
#     (world ranks 6 and 7, node-3), not as numbered in the refusing level (its ranks 0 and 1).
# Simulated time is deterministic (sim/run.sh: smpi/simulate-computation:no), not this machine's.
# usage: check_sim_prop_jitter.sh SOURCE_DIR WORK_DIR; exit 77 = skipped.
set -euo pipefail
src=$1 work=$2
source "$src/tests/sim/sim_setup.sh"
js=$work/sim_prop_jitter.jsonl
rm -f "$js"
bash "$src/sim/run.sh" -r 2 8 isochron-clock --sync hca3+prop --skew jitter=1us,seed=5 --wait 0 \
  --check-pingpongs 1 --format none --jsonl "$js" --quiet 2> "$work/sim_prop_jitter.err" \
  || { cat "$work/sim_prop_jitter.err"; echo "FAIL hca3+prop with jitter=1us did not run"; exit 1; }
echo "ok   hca3+prop with jitter=1us ran"
python3 - "$js" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
ctx = next(r for r in recs if r["type"] == "context")
check(ctx.get("truth") == "simulated_time" and ctx.get("nodes") == 4, "simulated truth, 4 hosts (got %r, %r)" % (ctx.get("truth"), ctx.get("nodes")))
model = {r["rank"]: r for r in recs if r["type"] == "model"}
check(sorted(model) == list(range(8)), "a model per rank")
for f in range(1, 8, 2):  # rank f follows its host leader f-1: prop copied the leader's model
    same = model[f]["slope"] == model[f - 1]["slope"] and model[f]["intercept_s"] == model[f - 1]["intercept_s"]
    check(same, "rank %d's model is its leader %d's (intercept %r vs %r)" % (f, f - 1, model[f]["intercept_s"], model[f - 1]["intercept_s"]))
summ = [r for r in recs if r["type"] == "summary"]
check(len(summ) == 1, "one summary")
if summ:
    e, b = summ[0]["max_abs_true_offset_s"], summ[0]["max_bound_s"]
    check(e is not None and b is not None and e <= b, "true max error %.3f us within the stated bound %.3f us" % ((e or 0) * 1e6, (b or 0) * 1e6))
# the platform's routes are symmetric, so the statistical bound must cover too: read jitter is in every timestamp
# (before, it was left out: a true 0.61 us beside a statistical 0.043 us on real MPI, the hard bound stated)
acc = [r for r in recs if r["type"] == "accuracy" and r["rank"] > 0 and r.get("true_offset_s") is not None]
check(len(acc) > 0, "accuracy records with a true offset")
for r in acc:
    st = r.get("bound_stat_s")
    check(st is not None and abs(r["true_offset_s"]) <= st,
          "rank %d: true %.3f us within the statistical bound %s us" % (r["rank"], r["true_offset_s"] * 1e6, "%.3f" % (st * 1e6) if st is not None else None))
sys.exit(0 if ok else 1)
PY

set +e
bash "$src/sim/run.sh" -r 2 8 isochron-clock --sync hca3+prop --skew r7:drift=20 --wait 0 --format none --quiet > /dev/null 2> "$work/sim_prop_refused.err"
rc=$?
set -e
msg=$(grep '^isochron-clock:' "$work/sim_prop_refused.err" || true)
if [ "$rc" -eq 0 ] || ! grep -q 'prop (ClockPropSync) refused: skew injection gave world ranks 6 and 7 (both on host node-3) different clocks' <<< "$msg"; then
  cat "$work/sim_prop_refused.err"
  echo "FAIL one host refusing prop (r7:drift=20): exit $rc, message: ${msg:-none}"
  exit 1
fi
echo "ok   one host refusing prop reports its refusal: $msg"
