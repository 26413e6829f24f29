#!/usr/bin/env bash
# How long `isochron show` takes on a big result file (issue 30: 87 s on 200,000 points,
# against ~20 s three weeks earlier, ~90 % of it the per-record schema check).
# Generates a file of POINTS point records of the real driver's shape (the context and the
# first point of python/tests/data/aa-2ranks/launch-01-a1.jsonl, written by isochron-bench,
# launch tags removed), replicated with varied operation, size, scheme, counts and times
# (seeded), plus the end record; then times `isochron show FILE > /dev/null` of this tree and,
# with BEFORE=REV, of the Python package at git revision REV (git archive, no checkout).
# A benchmark, not a test. usage: bench/python_load.sh ; env POINTS (200000, may be a
# comma list), BEFORE (a git revision, e.g. e1aa451), PY (/work/main/.venv/bin/python or
# python3), KEEP (a directory to keep the files in)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${POINTS:=2000}"   # BENCH_QUICK=1: a short smoke run
POINTS=${POINTS:-200000}
PY=${PY:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}
out=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
if [ -n "${BEFORE:-}" ]; then
    mkdir -p "$out/before"
    git archive "$BEFORE" python/src | tar -x -C "$out/before"
fi
gen() {   # gen N FILE
    "$PY" - "$1" "$2" python/tests/data/aa-2ranks/launch-01-a1.jsonl <<'PY'
import json, random, sys
n, path, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
recs = [json.loads(l) for l in open(src) if l.strip()]
ctx = next(r for r in recs if r["type"] == "context")
pt = next(r for r in recs if r["type"] == "point")
end = next(r for r in recs if r["type"] == "end")
for r in (ctx, pt, end):
    for k in ("launch", "config", "block"):
        r.pop(k, None)
rng = random.Random(1)
ops = ["allreduce", "bcast", "reduce", "allgather", "alltoall", "gather", "scatter", "barrier",
       "pingpong", "put_fence"]
with open(path, "w") as f:
    f.write(json.dumps(ctx, separators=(",", ":")) + "\n")
    for i in range(n):
        p = dict(pt)
        p["op"] = p["family"] = ops[i % len(ops)]
        p["bytes"] = 1 << (i // len(ops) % 23)
        p["scheme"] = ("roundtime", "barrier")[i // 230 % 2]
        s = (1 + p["bytes"] / 2e3) * rng.lognormvariate(0, 0.3)
        for k in ("mean_s", "median_s", "min_s", "max_s", "stddev_s", "ci_lo_s", "ci_hi_s",
                  "median_ci_lo_s", "median_ci_hi_s", "start_spread_s", "clock_bound_s",
                  "clock_true_s"):
            p[k] = pt[k] * s
        p["reps"] = rng.randrange(10, 1000)
        p["valid"] = rng.randrange(1, p["reps"] + 1)
        p["invalid"] = p["reps"] - p["valid"]
        f.write(json.dumps(p, separators=(",", ":")) + "\n")
    end["points"] = n
    f.write(json.dumps(end, separators=(",", ":")) + "\n")
PY
}
timeit() {   # timeit PYTHONPATH FILE -> seconds
    local t0 t1
    t0=$(date +%s.%N)
    PYTHONPATH=$1 "$PY" -m isochron.cli show "$2" > /dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
echo "isochron show on generated files: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $PY"
printf '%10s %12s %12s%s\n' points bytes "show [s]" "${BEFORE:+   show at $BEFORE [s]}"
for n in ${POINTS//,/ }; do
    f="$out/points-$n.jsonl"
    gen "$n" "$f"
    now=$(timeit "$PWD/python/src" "$f")
    line=$(printf '%10s %12s %12.2f' "$n" "$(stat -c %s "$f")" "$now")
    if [ -n "${BEFORE:-}" ]; then
        line+=$(printf '   %12.2f' "$(timeit "$out/before/python/src" "$f")")
    fi
    echo "$line"
done
