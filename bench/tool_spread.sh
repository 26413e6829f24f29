#!/usr/bin/env bash
# Between-launch spread of isochron beside OSU Micro-Benchmarks and Intel MPI Benchmarks (issue 12),
# run the same way: LAUNCHES rounds, each round one isochron-bench launch (allreduce, bcast,
# alltoall at 8 B, 1 KiB, 64 KiB), one launch of each OSU collective benchmark and one IMB-MPI1
# launch of the three, so that the machine's drift hits every tool alike. Prints per point the sd
# of the log launch values (~CV) per tool: isochron's launch median, OSU's "Avg Latency" (its mean
# over iterations, averaged over ranks), IMB's t_avg (its mean over repetitions, averaged over
# ranks). OSU and IMB are not part of isochron: build them outside the repository and give OSU's
# binaries' directory in OSU_DIR (osu_allreduce, osu_bcast, osu_alltoall; OSU 7 keeps them in
# collective/) and IMB-MPI1's path in IMB. Without them only isochron is run.
# A benchmark, not a test. usage: OSU_DIR=/path IMB=/path/IMB-MPI1 bench/tool_spread.sh ; env NP
# (2), LAUNCHES (8), REPS (isochron max-reps, 200), BUILD, PY, KEEP (a directory to keep the launches' files in)
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick LAUNCHES=2 REPS=20
bench_init NP=2 LAUNCHES=8 REPS=200
echo "between-launch spread per tool: $NP ranks, $(bench_cores)," \
     "$LAUNCHES launches per tool; OSU: ${OSU_DIR:-not given}; IMB: ${IMB:-not given}"
osu() { if [ -x "$OSU_DIR/osu_$1" ]; then echo "$OSU_DIR/osu_$1"; else echo "$OSU_DIR/collective/osu_$1"; fi; }
for i in $(seq 1 "$LAUNCHES"); do
  tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --ops allreduce,bcast,alltoall --sizes 8,1K,64K \
      --max-reps "$REPS" --quiet --format none --jsonl "$OUT/iso-$i.jsonl"
  if [ -n "${OSU_DIR:-}" ]; then
    for op in allreduce bcast alltoall; do
      tools/mpirun-local -np "$NP" "$(osu "$op")" -m 8:65536 > "$OUT/osu-$op-$i.txt"
    done
  fi
  if [ -n "${IMB:-}" ]; then
    tools/mpirun-local -np "$NP" "$IMB" Allreduce Bcast Alltoall -msglog 3:16 -npmin "$NP" > "$OUT/imb-$i.txt"
  fi
done
$PY - "$OUT" "$LAUNCHES" <<'PY'
import json, math, os, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
sizes, ops = [8, 1024, 65536], ["allreduce", "bcast", "alltoall"]
vals = {}
for i in range(1, n + 1):
    for line in open(os.path.join(d, f"iso-{i}.jsonl")):
        r = json.loads(line)
        if r["type"] == "point" and r.get("median_s"):
            vals.setdefault(("isochron", r["op"], r["bytes"]), []).append(r["median_s"] * 1e6)
    for op in ops:
        path = os.path.join(d, f"osu-{op}-{i}.txt")
        if os.path.exists(path):
            for line in open(path):
                f = line.split()
                if len(f) == 2 and f[0].isdigit() and int(f[0]) in sizes:
                    vals.setdefault(("OSU", op, int(f[0])), []).append(float(f[1]))
    path, op = os.path.join(d, f"imb-{i}.txt"), None
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("# Benchmarking"):
                op = line.split()[2].lower()
            f = line.split()
            if op in ops and len(f) == 5 and f[0].isdigit() and int(f[0]) in sizes:
                vals.setdefault(("IMB", op, int(f[0])), []).append(float(f[4]))
def sd_log(v):
    return statistics.stdev([math.log(x) for x in v]) if len(v) > 1 and min(v) > 0 else None
tools = [t for t in ("isochron", "OSU", "IMB") if any(k[0] == t for k in vals)]
print(f"\n{'op':<10} {'size':>6}  " + "".join(f"{t + ' CV':>14}" for t in tools))
per = {t: [] for t in tools}
for op in ops:
    for s in sizes:
        cells = []
        for t in tools:
            v = sd_log(vals.get((t, op, s), []))
            if v is not None:
                per[t].append(v)
            cells.append(f"{'-' if v is None else f'{100 * v:.1f} %':>14}")
        print(f"{op:<10} {s:>6}  " + "".join(cells))
print(f"{'median':<17}  " + "".join(f"{100 * statistics.median(per[t]):>12.1f} %" for t in tools))
PY
echo "load at the end: $(bench_load)"
