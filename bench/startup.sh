#!/usr/bin/env bash
# Start-up cost (issue 18; osu_init / osu_hello): the time each rank spends in MPI_Init, and in its
# first MPI_Barrier and MPI_Allreduce, at 1..NPMAX ranks, LAUNCHES launches each, interleaved with
# OSU's osu_init when OSU_DIR (OSU 7.x's libexec/osu-micro-benchmarks/mpi, built outside the
# repository) is given. Per rank count: the median over launches of isochron's mean over ranks and
# of OSU's avg (both: each rank's own clock around MPI_Init), and the launch range.
# A benchmark, not a test. usage: [OSU_DIR=...] bench/startup.sh ; env NPMAX (4), LAUNCHES (5), BUILD, PY,
# KEEP (a directory to keep the launches' files in)
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick NPMAX=2 LAUNCHES=1
bench_init NPMAX=4 LAUNCHES=5
echo "start-up: 1..$NPMAX ranks, $(bench_cores), $LAUNCHES launches; OSU: ${OSU_DIR:-not given}"
for i in $(seq 1 "$LAUNCHES"); do
  for np in $(seq 1 "$NPMAX"); do
    tools/mpirun-local -np "$np" "$BUILD/isochron-bench" --startup --format none --jsonl "$OUT/iso-$np-$i.jsonl"
    if [ -n "${OSU_DIR:-}" ] && [ -x "$OSU_DIR/startup/osu_init" ]; then
      tools/mpirun-local -np "$np" "$OSU_DIR/startup/osu_init" > "$OUT/osu-$np-$i.txt" 2>/dev/null || true
    fi
  done
done
$PY - "$OUT" "$NPMAX" "$LAUNCHES" <<'PY'
import json, os, re, statistics, sys
d, npmax, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def cell(v):
    return f"{statistics.median(v):8.1f} [{min(v):.1f}, {max(v):.1f}]" if v else "-"
print(f"{'ranks':>5}  {'isochron MPI_Init ms':<26} {'OSU osu_init avg ms':<26} {'first barrier ms':<22} {'first allreduce ms'}")
for np in range(1, npmax + 1):
    iso, osu, bar, red = [], [], [], []
    for i in range(1, n + 1):
        p = os.path.join(d, f"iso-{np}-{i}.jsonl")
        if os.path.exists(p):
            r = json.loads(open(p).readline())
            iso.append(r["init_s"]["mean"] * 1e3)
            bar.append(r["first_barrier_s"]["mean"] * 1e3)
            red.append(r["first_allreduce_s"]["mean"] * 1e3)
        p = os.path.join(d, f"osu-{np}-{i}.txt")
        if os.path.exists(p):
            m = re.search(r"avg:\s*([0-9.]+)\s*ms", open(p).read())
            if m:
                osu.append(float(m.group(1)))
    print(f"{np:>5}  {cell(iso):<26} {cell(osu):<26} {cell(bar):<22} {cell(red)}")
PY
