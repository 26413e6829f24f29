#!/usr/bin/env bash
# Read jitter in the stated bounds: injected jitter moves every ping-pong midpoint, while the tightest
# interval kept looks narrower for it; the statistical bound must count it. On one host
# (shared memory, symmetric paths) with 1 us of jitter and ClockPropSync followers, the statistical
# bound used to leave it out: a true 0.61 us beside a statistical 0.043 us (the hard bound, stated,
# covered). Checks at every check that the stated and hard bounds cover the true error (and the
# statistical one where it is stated), that the statistical bound counts the jitter, and that
# isochron-clock's measured interval (Alg. 6) is not narrower than the jitter allows (it read +-0.000 us).
# Usage: check_jitter_bound.sh MPIRUN_LOCAL ISOCHRON_CLOCK OUTDIR
set -u
mpirun=$1 clock=$2 out=$3
j=$out/jitter_bound.jsonl
rm -f "$j"
"$mpirun" -np 4 "$clock" --sync hca3+prop --node-size 2 --timer monotonic --skew jitter=1us,seed=8117 --wait 0,1 \
  --format none --jsonl "$j" --quiet || { echo "check_jitter_bound: FAIL isochron-clock exited $?"; exit 1; }
python3 - "$j" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
acc = [r for r in recs if r.get("type") == "accuracy" and r.get("rank", 0) > 0 and r.get("true_offset_s") is not None]
bad = []
if not acc: bad.append("no accuracy record with a true offset (truth is one host's kernel clock here)")
for r in acc:
    t, kind = abs(r["true_offset_s"]), r.get("bound_kind")
    # the stated bound always covers; the statistical one too unless the record says its premises failed (it then
    # states the hard one: under load, scheduling makes the two directions of an exchange unequal)
    for k in ("bound_s", "bound_hard_s") + (("bound_stat_s",) if kind == "statistical" else ()):
        if not (r.get(k) is not None and t <= r[k] + 5e-8):  # 50 ns of slack: the truth's own read brackets
            bad.append(f"rank {r['rank']} @{r['wait_s']}s: true {t*1e6:.3f} us beyond {k} {r.get(k)} (stated: {kind})")
    # ranks 2 and 3 (the second node: rank 2 measured against rank 0, rank 3 its follower) count the jitter of the
    # reads, 2 per side: 4 sigma of sqrt(2) us (rank 1 follows rank 0 and reads its clock: 0 is exact)
    if r["rank"] >= 2 and not (r.get("bound_stat_s") is not None and r["bound_stat_s"] >= 0.999 * 4 * 2 ** 0.5 * 1e-6):
        bad.append(f"rank {r['rank']} @{r['wait_s']}s: statistical bound {r.get('bound_stat_s')} s leaves out 1 us of read jitter")
    if not (r.get("measured_uncertainty_s") is not None and r["measured_uncertainty_s"] >= 1e-6):
        bad.append(f"rank {r['rank']} @{r['wait_s']}s: measured interval +-{r.get('measured_uncertainty_s')} s with 1 us of read jitter")
print("\n".join(bad) if bad else f"check_jitter_bound: PASS ({len(acc)} checks)")
sys.exit(1 if bad else 0)
PY
