#!/usr/bin/env bash
# Clock synchronization at scale under SimGrid SMPI (paper 000, Fig. 5-7: JK's duration grows
# linearly in p, HCA3's and H2HCA's with log p). For every algorithm x rank count x injected drift,
# one isochron-clock run on a simulated fat tree (sim/run.sh) with skew injected per simulated host
# (offset ±1 ms, drift ±D ppm, by=host); it prints the simulated sync duration, the true max error
# (against the simulated time) right after sync and 10 s later, the host wall time, the peak
# memory and the host CPU time (user + system) of the simulator. Then plots duration vs p on log axes (python with matplotlib, if found).
# A benchmark, not a test. Host wall times here are contaminated by whatever else runs on the
# machine; simulated times are deterministic (computation is not simulated).
#   usage: bench/sim_scale.sh    env: SIZES ("64 256 1024 4096"), ALGS ("skampi jk hca2 hca3 hier"),
#          DRIFTS ("50 1"), RPH (1; the hierarchical spec always runs at 16 ranks per host),
#          OUT (bench/results/sim_scale), LIMIT (seconds of host wall time per run, 1500),
#          PARTS ("sync barrier bench"), EXTRA_P (1024: ranks of the barrier and bench parts), CALLS (30)
# Part "barrier": isochron-barrier's exit-skew experiment (every barrier algorithm, 30 calls from a
# common start) at EXTRA_P simulated ranks. Part "bench": isochron-bench's default sweep
# (Round-Time, hca3) of allreduce, bcast, alltoall and barrier at 8 B, 1 KiB, 64 KiB, 10-50 reps.
# Both parts run with SimGrid's recursive-doubling Allgather (smpi/allgather:rdb; CALLS sets the
# barrier calls, 30): SMPI's default MPI_Allgather (the clock tracker's, at start-up) is
# non-blocking requests completed by a waitany loop, whose host time grew so fast that a 256-rank
# barrier run was still in it after 25 min (6 min of CPU); with rdb it took 78 s of CPU (with the
# whole Open MPI selector, smpi/coll-selector:ompi, 92 s: every new communicator then runs a
# ring Allgather in SimGrid's init_smp).
# "hier" is hca3+prop: HCA3 between hosts, the model copied to the ranks of a host (16 per host).
# The algorithms run with --track off and their default fit (40 points over 20 ms; skampi: none).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${ALGS:=hca3}" "${DRIFTS:=1}" "${SIZES:=64}" "${PARTS:=sync}" "${EXTRA_P:=0}" "${OUT:=${BUILD:-build}/sim_scale-quick}"   # BENCH_QUICK=1: a short smoke run
SIZES=${SIZES:-"64 256 1024 4096"}
ALGS=${ALGS:-"skampi jk hca2 hca3 hier"}
DRIFTS=${DRIFTS:-"50 1"}
RPH=${RPH:-1}
OUT=${OUT:-bench/results/sim_scale}
LIMIT=${LIMIT:-1500}
PARTS=${PARTS:-"sync barrier bench"}
EXTRA_P=${EXTRA_P:-1024}
mkdir -p "$OUT"
bash sim/build.sh >/dev/null
run_extra() { # name driver args...: one run at EXTRA_P ranks, output and host time/memory into $OUT
  local name=$1; shift
  echo "== $name at $EXTRA_P simulated ranks (fat tree, 1 rank per host): $*"
  if SIM_CFG="--cfg=smpi/allgather:rdb ${SIM_CFG:-}" /usr/bin/time -f "%e %M %U %S" -o "$OUT/$name.time" timeout "$LIMIT" \
      nice -n 19 sim/run.sh "$EXTRA_P" "$@" > "$OUT/$name.txt" 2>&1; then
    cat "$OUT/$name.txt"
  else
    echo "(failed or over $LIMIT s; see $OUT/$name.txt)"; tail -5 "$OUT/$name.txt"
  fi
  read -r w m u s < <(tail -1 "$OUT/$name.time") || true
  echo "host wall ${w:-?} s, host CPU $(python3 -c "print(round(${u:-0} + ${s:-0}, 1))") s, peak memory $(( ${m:-0} / 1024 )) MB (wall time contaminated by other load)"
}
case " $PARTS " in *" barrier "*)
  run_extra barrier_skew isochron-barrier --experiments skew --calls "${CALLS:-30}" --late-tolerance 1ms --quiet ;; esac
case " $PARTS " in *" bench "*)
  # every simulated rank's buffers live in this one process (no privatization, no shared malloc):
  # alltoall at 64 KiB needs 2 x p x 64 KiB per rank, 577 MB in all at 64 ranks, 128 GiB at 1024
  ops=allreduce,bcast,alltoall,barrier
  if [ $(( 2 * EXTRA_P * EXTRA_P * 64 )) -gt $(( 4 * 1024 * 1024 )) ]; then
    ops=allreduce,bcast,barrier
    echo "(alltoall left out: at $EXTRA_P ranks its 64 KiB point needs $(( 2 * EXTRA_P * EXTRA_P * 64 / 1024 / 1024 )) GiB in the simulator)"
  fi
  run_extra bench_sweep isochron-bench --ops "$ops" --sizes 8,1K,64K --min-reps 10 --max-reps 50 --quiet ;; esac
case " $PARTS " in *" sync "*) ;; *) exit 0 ;; esac
table=$OUT/table.txt
# Rows already in the table for other (alg, ranks, drift) are kept: a run at 4096 adds to 64-1024.
kept=$(mktemp)
[ -f "$table" ] && tail -n +2 "$table" > "$kept" || true
rows=$(mktemp)
trap 'rm -f "$kept" "$rows"' EXIT
printf "%-7s %6s %4s %6s %12s %14s %14s %10s %10s %10s\n" alg ranks rph drift sync_sim_s true_max_0s_us true_max_10s_us host_wall_s host_mem_MB host_cpu_s
for drift in $DRIFTS; do
  for p in $SIZES; do
    for alg in $ALGS; do
      spec=$alg rph=$RPH
      [ "$alg" = hier ] && spec="hca3+prop" rph=16
      js=$OUT/$alg-$p-$drift.jsonl
      tm=$OUT/$alg-$p-$drift.time
      st=0
      /usr/bin/time -f "%e %M %U %S" -o "$tm" timeout "$LIMIT" nice -n 19 sim/run.sh -r "$rph" "$p" isochron-clock --sync "$spec" \
          --track off --wait 0,10 --skew "offset=1ms,drift=$drift,by=host,seed=3" --check-pingpongs 1 --format none --jsonl "$js" --quiet \
          > "$OUT/$alg-$p-$drift.log" 2>&1 || st=$?
      if [ "$st" != 0 ]; then
        # killed runs: time(1) sees neither the simulator's memory nor its CPU time
        read -r w _ < <(tail -1 "$tm" 2>/dev/null) || true
        what=failed; [ "$st" = 124 ] && what=timeout
        printf "%-7s %6s %4s %6s %12s %14s %14s %10s %10s %10s\n" "$alg" "$p" "$rph" "$drift" "$what" "-" "-" "${w:->$LIMIT}" "-" "-" | tee -a "$rows"
        continue
      fi
      python3 - "$js" "$tm" "$alg" "$p" "$rph" "$drift" <<'PY' | tee -a "$rows"
import json, sys
js, tm, alg, p, rph, drift = sys.argv[1:]
dur, err = None, {}
for line in open(js):
    r = json.loads(line)
    if r.get("type") == "summary":
        dur = r["duration_s"]; err[r["wait_s"]] = r["max_abs_true_offset_s"]
wall, mem, usr, sys_ = open(tm).read().split()[-4:]
print("%-7s %6s %4s %6s %12.6f %14.3f %14.3f %10s %10.0f %10.1f" % (alg, p, rph, drift, dur, err.get(0, float("nan")) * 1e6,
      err.get(10, float("nan")) * 1e6, wall, int(mem) / 1024, float(usr) + float(sys_)))
PY
    done
  done
done
python3 - "$kept" "$rows" "$table" <<'PY'
import sys
kept, new, table = sys.argv[1:]
key = lambda r: (r.split()[0], int(r.split()[1]), int(r.split()[3]))
rows = {key(r): r for f in (kept, new) for r in open(f).read().splitlines() if r.strip()}
order = lambda k: (-k[2], k[1], ["skampi", "jk", "hca2", "hca3", "hier"].index(k[0]) if k[0] in ["skampi", "jk", "hca2", "hca3", "hier"] else 9)
with open(table, "w") as t:
    t.write("%-7s %6s %4s %6s %12s %14s %14s %10s %10s %10s\n" % ("alg", "ranks", "rph", "drift", "sync_sim_s", "true_max_0s_us",
            "true_max_10s_us", "host_wall_s", "host_mem_MB", "host_cpu_s"))
    # rows of runs before the CPU column was added show "-" there
    t.writelines((r if len(r.split()) >= 10 else "%s %10s" % (r, "-")) + "\n" for r in (rows[k] for k in sorted(rows, key=order)))
PY
PY=python3
[ -x /work/main/.venv/bin/python ] && ! python3 -c 'import matplotlib' 2>/dev/null && PY=/work/main/.venv/bin/python
"$PY" - "$table" "$OUT/duration_vs_p.png" <<'PY' || echo "(no plot: matplotlib not found)"
# One colour per algorithm, filled markers ±50 ppm, open markers ±1 ppm (durations barely depend on
# the drift), and two guides through the 64-rank points: jk x p/64 and hca3 x log2(p)/log2(64).
import math, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
ok = lambda r: r[4] not in ("failed", "timeout")
fig, ax = plt.subplots(figsize=(6.5, 4.5))
colors = {}
for alg in dict.fromkeys(r[0] for r in rows):
    for drift in sorted(dict.fromkeys(r[3] for r in rows), key=lambda d: -float(d)):
        pts = sorted((int(r[1]), float(r[4])) for r in rows if r[0] == alg and r[3] == drift and ok(r))
        if not pts:
            continue
        kw = {"color": colors[alg]} if alg in colors else {}
        filled = float(drift) >= 10
        line, = ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", ms=7 if filled else 10,
                        mfc=None if filled else "none", ls="-" if filled else ":", label=f"{alg} ±{drift} ppm", **kw)
        colors.setdefault(alg, line.get_color())
ps = sorted({int(r[1]) for r in rows})
for alg, f, name in (("jk", lambda p: p / 64, "∝ p"), ("hca3", lambda p: math.log2(p) / 6, "∝ log p")):
    base = [float(r[4]) for r in rows if r[0] == alg and r[1] == "64" and ok(r)]
    if base:
        ax.plot(ps, [base[0] * f(p) for p in ps], color="grey", lw=0.8, ls="--")
        ax.annotate(name, (ps[-1], base[0] * f(ps[-1])), fontsize=7, color="grey", xytext=(3, -3), textcoords="offset points")
ax.set_xscale("log", base=2); ax.set_yscale("log"); ax.set_xlim(right=ps[-1] * 1.7)
ax.set_xlabel("simulated ranks p"); ax.set_ylabel("simulated sync duration [s]")
ax.set_title("isochron clock sync under SimGrid (fat tree)"); ax.legend(fontsize=7, ncol=2)
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=120)
print("plot:", sys.argv[2])
PY
echo "table: $table"
