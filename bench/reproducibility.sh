#!/usr/bin/env bash
# Reproducibility across launches (issue 12). At NP ranks, with `isochron run`:
#  1. false-flag rate: PAIRS A/A sets, each LAUNCHES launches of two identical configurations
#     interleaved (paired launch-level test), plus the A sides of consecutive sets against each
#     other (independent sets run minutes apart: the unpaired test); the share of points flagged
#     REGRESSION/improvement (target <= 5 %);
#  2. detection: PAIRS A/B sets where B is A with --inject-slowdown 0.1 (every rank busy-waits
#     10 % of its operation's own time inside the timed region: a real slowdown of 10 % at every
#     point; its measured size is printed); the share of points flagged REGRESSION (target >= 80 %);
#  3. coverage: the share of launch medians of the next set that fall inside the 95 % CI and the
#     rerun (prediction) interval announced from the previous set (target >= 90 %);
#  4. the between-launch spread (sd of log launch medians ~ CV) per point, and each launch's own
#     95 % CI beside it;
#  5. what detection needs: per point the paired spread of the detection sets, the power that
#     their blocks had for the injected slowdown (predicted detection, beside the observed one),
#     and the blocks / launches per side that would see it with 80 % power.
# A benchmark, not a test: it prints tables. CPU-heavy (PAIRS x 4 x LAUNCHES launches).
# usage: bench/reproducibility.sh ; env NP (2), LAUNCHES (5, at least 2), PAIRS (20), OPS, SIZES,
#        SLOW (the injected slowdown of the detection sets, 0.1), REPS (max-reps, 1000; below 10 also
#        min-reps), BUILD, KEEP (a directory to keep the launch sets in), REUSE=1 (with KEEP: analyse
#        the sets already there, run nothing), PY (python with isochron's dependencies)
# Smallest run: PAIRS=1 LAUNCHES=2 REPS=1 SIZES=8 OPS=allreduce (about 15 s). A set none of whose
# launches of a configuration gave results (a bad OPS, SIZES or SLOW) ends the runs: the pairs
# measured before it are analysed; when it is the first, the script stops with the launch's error.
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick PAIRS=1 LAUNCHES=2 REPS=1 SIZES=8 OPS=allreduce
bench_init NP=2 LAUNCHES=5 PAIRS=20 OPS=allreduce,bcast,alltoall SIZES=8,1K,64K SLOW=0.1 REPS=1000
need_int() { # NAME MIN WHY: the setting NAME an integer >= MIN, else one line and exit 2
  [[ ${!1} =~ ^[0-9]+$ ]] && [ "${!1}" -ge "$2" ] ||
    { echo "reproducibility.sh: $1=${!1}: need an integer >= $2 ($3)" >&2; exit 2; }
}
need_int NP 1 "ranks per launch"
need_int LAUNCHES 2 "launches of each configuration per set: the between-launch spread and the paired launch t need 2"
need_int PAIRS 1 "A/A and A/B sets"
need_int REPS 1 "isochron-bench --max-reps"
common="--quiet --format none --max-reps $REPS"
# isochron-bench's --min-reps is 10 by default (ISOCHRON_BENCH_DEFAULT_MIN_REPS) and may not exceed --max-reps
[ "$REPS" -ge 10 ] || common+=" --min-reps $REPS"
# set_error DIR: empty when every configuration of the launch set DIR has a launch with results,
# else the first error its launches reported (the manifest keeps each launch's error lines)
set_error() {
  $PY - "$1/manifest.json" <<'PY'
import json, os, sys
try:
    man = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(print(f"no launch set written ({e})"))
d = os.path.dirname(sys.argv[1])
for cfg in man.get("configs", {}):
    ls = [e for e in man.get("launches", []) if e.get("config") == cfg]
    if not any(os.path.isfile(f := os.path.join(d, e["file"])) and os.path.getsize(f) > 0 for e in ls):
        errs = [line for e in ls for line in e.get("error") or []]
        sys.exit(print(f"configuration {cfg}: " + (errs[0] if errs else "no launch gave results")))
PY
}
echo "--ops $OPS --sizes $SIZES $common" > "$OUT/a.args"
cp "$OUT/a.args" "$OUT/a2.args"
cp "$OUT/a.args" "$OUT/base.args"
echo "--ops $OPS --sizes $SIZES $common --inject-slowdown $SLOW" > "$OUT/slow.args"
echo "isochron reproducibility: $NP ranks, $(bench_cores)," \
     "$(mpirun --version 2>/dev/null | head -1); LAUNCHES=$LAUNCHES PAIRS=$PAIRS REPS=$REPS"
for i in $(seq 1 "$PAIRS"); do
  [ "${REUSE:-0}" = 1 ] && break
  for set in aa ab; do
    cfgs=("$OUT/a.args" "$OUT/a2.args")
    [ $set = ab ] && cfgs=("$OUT/base.args" "$OUT/slow.args")
    ok=1
    $PY -m isochron.cli run --launches "$LAUNCHES" --configs "${cfgs[@]}" --seed "$i" \
        -o "$OUT/$set-$i" -- tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" 2>/dev/null >/dev/null || ok=0
    err=$(set_error "$OUT/$set-$i")
    if [ -z "$err" ]; then
      [ $ok = 1 ] || echo "  warning: a launch of $set-$i failed (see $OUT/$set-$i/manifest.json; KEEP=DIR keeps it)" >&2
      continue
    fi
    [ "$i" -gt 1 ] || { echo "reproducibility.sh: $set-$i: $err" >&2; exit 1; }
    echo "  $set-$i: $err; analysing the $((i - 1)) pairs before it" >&2
    PAIRS=$((i - 1))
    break 2
  done
  echo "  pair $i of $PAIRS done ($(date +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
$PY - "$OUT" "$PAIRS" "$SLOW" <<'PY'
import math, statistics, sys
import isochron
from isochron import launches
from isochron.compare import compare
from isochron.units import fmt_bytes, parse_bytes

d, pairs, slow = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
pts = lambda s: isochron.read(f"{d}/{s}").records["point"]
flag = lambda c: sum(r["verdict"] in ("REGRESSION", "improvement") for r in c.rows)

paired = [compare(pts(f"aa-{i}:a"), pts(f"aa-{i}:a2")) for i in range(1, pairs + 1)]
unpaired = [compare(pts(f"aa-{i}:a"), pts(f"aa-{i + 1}:a")) for i in range(1, pairs)]
n_p, f_p = sum(len(c.rows) for c in paired), sum(flag(c) for c in paired)
n_u, f_u = sum(len(c.rows) for c in unpaired), sum(flag(c) for c in unpaired)
print("\n1. false flags, A/A (threshold 5 %, alpha 0.05; target <= 5 %)")
print(f"   interleaved sets, paired launch t: {f_p}/{n_p} points flagged = {100 * f_p / max(n_p, 1):.1f} %")
if n_u:
    print(f"   separate sets, unpaired launch t:  {f_u}/{n_u} points flagged = {100 * f_u / max(n_u, 1):.1f} %")
import glob
singles = []
for i in range(1, pairs + 1):                 # single launches: 1 of a against the next of a2
    files = sorted(glob.glob(f"{d}/aa-{i}/launch-*.jsonl"))
    singles += [(isochron.read(files[k]).records["point"], isochron.read(files[k + 1]).records["point"])
                for k in range(0, len(files) - 1, 2)]
for spread in sorted({0.12, 0.2, 0.25, launches.DEFAULT_LAUNCH_SPREAD}):
    one = [compare(a, b, default_spread=spread) for a, b in singles]
    n_o, f_o = sum(len(c.rows) for c in one), sum(flag(c) for c in one)
    mark = " (the default)" if spread == launches.DEFAULT_LAUNCH_SPREAD else ""
    print(f"   one launch per side, spread {100 * spread:g} %{mark}:"
          f" {f_o}/{n_o} points flagged = {100 * f_o / max(n_o, 1):.1f} %")

det, true_ratio = [], {}
for i in range(1, pairs + 1):
    a, b = pts(f"ab-{i}:base"), pts(f"ab-{i}:slow")
    det.append(compare(a, b))
    for r in det[-1].rows:  # no ratio where compare finds the point below the timer's resolution
        true_ratio.setdefault((r["op"], r["bytes"]), []).extend([r["ratio"]] if r["ratio"] is not None else [])
n_d, f_d = sum(len(c.rows) for c in det), sum(len(c.regressions) for c in det)
print(f"\n2. detection of an injected slowdown of {100 * slow:g} %, {det[0].rows[0]['na']} launches per side"
      " (paired launch t; target >= 80 %)")
print(f"   {f_d}/{n_d} points flagged REGRESSION = {100 * f_d / max(n_d, 1):.1f} %")
print("   op         size      measured ratio B/A (median of the sets)")
for (op, size), rs in sorted(true_ratio.items()):
    print(f"   {op:<10} {fmt_bytes(size):>8}  " + (f"{statistics.median(rs):.3f}" if rs else "- (below the timer's resolution)"))

inside_ci = inside_rr = total = 0
for i in range(1, pairs):
    prev = {launches.point_key(s.point, launches.POINT_KEYS[1:]): s
            for s in launches.launch_stats(pts(f"aa-{i}:a"))}
    for s in launches.launch_stats(pts(f"aa-{i + 1}:a")):
        ref = prev.get(launches.point_key(s.point, launches.POINT_KEYS[1:]))
        if ref is None or ref.ci[0] is None:
            continue
        for m in s.medians:
            total += 1
            inside_ci += ref.ci[0] <= m <= ref.ci[1]
            inside_rr += ref.rerun[0] <= m <= ref.rerun[1]
print("\n3. coverage: launch medians of the next set inside the intervals of the previous set"
      " (target >= 90 %)")
if total:
    print(f"   95 % CI of the launch-level median: {inside_ci}/{total} = {100 * inside_ci / total:.1f} %")
    print(f"   rerun (prediction) interval:       {inside_rr}/{total} = {100 * inside_rr / total:.1f} %")

print("\n4. between-launch spread per point (all A/A sets pooled as one set per pair)")
print("   op         size   launch CV (median over sets)  range        one launch's 95 % CI half-width")
rows = {}
for i in range(1, pairs + 1):
    for cfg in ("a", "a2"):
        ps = pts(f"aa-{i}:{cfg}")
        for s in launches.launch_stats(ps):
            k = (s.point["op"], s.point["bytes"])
            rows.setdefault(k, {"cv": [], "ci": []})["cv"].append(s.sd_log)
        for p in ps:
            if p.get("ci_hi_s") and p.get("mean_s"):
                rows[(p["op"], p["bytes"])]["ci"].append((p["ci_hi_s"] - p["ci_lo_s"]) / 2 / p["mean_s"])
allcv = []
pct = lambda xs, f: f"{100 * statistics.median(xs):{f}} %" if xs else "-"  # a point with fewer than 2 launches has no CV
for (op, size), v in sorted(rows.items()):
    cv = [x for x in v["cv"] if x is not None]
    allcv += cv
    rng = f"{100 * min(cv):4.1f}-{100 * max(cv):5.1f} %" if cv else "-"
    print(f"   {op:<10} {fmt_bytes(size):>6}  {pct(cv, '5.1f'):>7}"
          f"                      {rng:>12}"
          f"   {pct(v['ci'], '4.1f'):>6}")
if allcv:
    q3 = statistics.quantiles(allcv, n=4, method="inclusive")[2] if len(allcv) > 1 else allcv[0]
    print(f"   all points: median launch CV {100 * statistics.median(allcv):.1f} %,"
          f" 75th percentile {100 * q3:.1f} %"
          f" (launches.DEFAULT_LAUNCH_SPREAD = {100 * launches.DEFAULT_LAUNCH_SPREAD:g} %)")

print(f"\n5. what detection needs (launches.power / launches_needed, noncentral t; alpha 0.05, 80 % power)")
print("   op         size   paired spread  power of these blocks  blocks needed  launches/side needed (unpaired)")
pred, sp_all = [], []
for (op, size), v in sorted(rows.items()):
    sp = [r["spread"] for c in det for r in c.rows if (r["op"], r["bytes"]) == (op, size) and r.get("spread")]
    cvs = [x for x in v["cv"] if x is not None]
    if not sp or not cvs:
        continue
    cv = statistics.median(cvs)
    s_p = statistics.median(sp)
    sp_all.append(s_p)
    n_b = det[0].rows[0]["na"]
    pw = launches.power(s_p, math.log(1 + slow), n_b, paired=True)
    pred.append(pw)
    need_p = launches.launches_needed(s_p, math.log(1 + slow), paired=True)
    need_u = launches.launches_needed(cv, math.log(1 + slow))
    print(f"   {op:<10} {fmt_bytes(size):>6}  {100 * s_p:8.1f} %     {100 * pw:12.1f} %        {need_p!s:>6}         {need_u!s:>6}")
if pred:
    print(f"   predicted detection over points: {100 * statistics.mean(pred):.1f} % (observed above: {100 * f_d / max(n_d, 1):.1f} %)")
    print(f"   5 launches per side see a {100 * slow:g} % change with 80 % power only below a spread of"
          f" {100 * next(x / 1000 for x in range(1, 1000) if launches.launches_needed(x / 1000, math.log(1 + slow)) > 5):.1f} % (unpaired)")
PY
echo "load at the end: $(bench_load)"
