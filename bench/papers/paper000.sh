#!/usr/bin/env bash
# Paper 000 (Hunold & Carpen-Amarie, "Hierarchical Clock Synchronization in MPI", CLUSTER 2018)
# reproduced at the scales this machine has (issue 28 item 1), each result printed beside the
# paper's number. Parts (PARTS, default all):
#   fig7   Fig. 7: MPI_Allreduce 4-16 B under each of Open MPI's barrier algorithms (coll/tuned
#          barrier_algorithm 0 default, 1 linear, 3 recursive doubling, 4 Bruck, 6 tree; double ring
#          omitted as in the paper), measured by OSU (mean, barrier before each call), IMB (t_avg),
#          ReproMPI (MPI_Barrier scheme, median) and isochron in the barrier scheme (OSU's, method
#          max) and in Round-Time (no barrier: the reference). Launches interleaved tool by tool.
#   fig9   Fig. 9: MPI_Allreduce over message sizes, OSU itself, isochron with OSU's method (barrier
#          scheme, method max, mean) and isochron's Round-Time (global clock, mean and median),
#          ReproMPI's roundtime scheme; LAUNCHES launches each (paper: nmpiruns = 3), min/max bars.
#   jk     JK with SKaMPI-Offset against JK with Mean-RTT-Offset (20 ping-pongs, the paper's
#          setting), injected drift (this machine's ranks share one oscillator), true error at
#          0 s and 10 s against CLOCK_MONOTONIC; also in SimGrid at 64 ranks.
#   sweep  HCA3's parameters: fit points (10..200 at 20 ping-pongs) and ping-pongs per fit point
#          (5..100 at 40 fit points), SKaMPI-Offset, injected drift, duration and true error.
#   hier   H2HCA (hca3+prop) against H3HCA (hca3+hca3+prop) and flat HCA3 on tools/cluster's
#          namespace nodes (2 nodes x 2 ranks, kernel clock offsets 0 and 7 s, drift injected per
#          node), and in SimGrid (16 ranks per host) from 64 ranks up (full: up to 16384).
# usage: bench/papers/paper000.sh [--help]
#   env: MODE quick|full (quick: minutes; full: the paper's repetition counts and SimGrid to 16384
#        ranks, an hour or more), PARTS, NP (4), LAUNCHES, BUILD, OSU_DIR|OSU_SRC, IMB|IMB_SRC,
#        REPROMPI|REPROMPI_SRC+MPITS_SRC, PEERS_BUILD (see bench/papers/common.sh), SKEW
#        (offset=1ms,drift=2,seed=SEED: the injected clock error), CLUSTER (1: run the cluster part;
#        needs root), SIM (1: run the SimGrid parts; needs libsimgrid-dev), SPAN (0: a pair's fit points
#        back to back, as in the paper; isochron's default spreads them over 0.02 s)
# Writes bench/results/papers/paper000-<cores>cores-ompi<ver>-<mode>.txt and -fig7.png, -fig9.png,
# -sweep.png, -hier.png beside it.
set -euo pipefail
. "$(dirname "$0")/common.sh"
papers_cli "$@"
papers_init paper000 --deferred
papers_parts "fig7 fig9 jk sweep hier"
papers_np 4
if [ "$MODE" = full ]; then
  LAUNCHES=${LAUNCHES:-10}; REPS=${REPS:-1000}; WAIT=${WAIT:-0,10}; FIG9_SIZES=${FIG9_SIZES:-4,16,64,256,1024,4096,16384}
  SIM_P=${SIM_P:-"64 256 1024 4096 16384"}; SIM_FLAT_MAX=${SIM_FLAT_MAX:-1024}; SWEEP_LAUNCHES=${SWEEP_LAUNCHES:-3}
else
  LAUNCHES=${LAUNCHES:-3}; REPS=${REPS:-300}; WAIT=${WAIT:-0,10}; FIG9_SIZES=${FIG9_SIZES:-4,64,1024,16384}
  SIM_P=${SIM_P:-"64 256"}; SIM_FLAT_MAX=${SIM_FLAT_MAX:-256}; SWEEP_LAUNCHES=${SWEEP_LAUNCHES:-1}
fi
SEED=${SEED:-11}
# fit points taken back to back (span=0), as the paper's algorithms take them; isochron's own default
# spreads them over 20 ms (SPAN=0.02)
SPAN=${SPAN:-0}
SKEW=${SKEW:-offset=1ms,drift=2,seed=$SEED}
CLUSTER=${CLUSTER:-1}
SIM=${SIM:-1}
papers_peers
papers_start
papers_context
echo "# parts: $PARTS; $NP ranks on one host ($( [ "$NP" -gt "$(nproc)" ] && echo oversubscribed || echo 'one core each')), $LAUNCHES launches, injected skew $SKEW, fit span $SPAN s"
echo
ISO="$BUILD/isochron-bench"
CLK="$BUILD/isochron-clock"
W=$WORK
BARRIERS="0:default 1:linear 3:recursive_doubling 4:bruck 6:tree"
mca_barrier() { echo "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_barrier_algorithm $1"; }

# ------------------------------------------------------------------------------------------ fig7
if [[ " $PARTS " == *" fig7 "* ]]; then
  echo "## Fig. 7: MPI_Allreduce 4-16 B under each barrier algorithm ($(papers_load))"
  printf "4\n8\n16\n" > "$W/imb-len"
  for i in $(seq 1 "$LAUNCHES"); do
    for b in $BARRIERS; do
      n=${b%%:*} name=${b#*:}
      # shellcheck disable=SC2046
      {
        [ -n "${OSU_DIR:-}" ] && papers_mpirun -np "$NP" $(mca_barrier "$n") "$OSU_DIR/collective/osu_allreduce" -m 4:16 -i "$REPS" -x 20 \
          > "$W/f7-osu-$name-$i.txt" 2>/dev/null || true
        [ -n "${IMB:-}" ] && papers_mpirun -np "$NP" $(mca_barrier "$n") "$IMB" Allreduce -msglen "$W/imb-len" -npmin "$NP" -iter "$REPS" \
          > "$W/f7-imb-$name-$i.txt" 2>/dev/null || true
        [ -n "${REPROMPI:-}" ] && LD_LIBRARY_PATH=${REPROMPI_LIBS:-} papers_mpirun -np "$NP" -x LD_LIBRARY_PATH $(mca_barrier "$n") "$REPROMPI" \
          --calls-list=MPI_Allreduce --msizes-list=4,8,16 --datatype=MPI_INT --nrep="$REPS" --summary=mean,median \
          > "$W/f7-repro-$name-$i.txt" 2>/dev/null || true
        papers_mpirun -np "$NP" $(mca_barrier "$n") "$ISO" --ops allreduce --sizes 4,8,16 --scheme barrier --method max \
          --min-reps 50 --max-reps "$REPS" --budget 0.5 --quiet --format none --jsonl "$W/f7-isobar-$name-$i.jsonl" || true
        papers_mpirun -np "$NP" $(mca_barrier "$n") "$ISO" --ops allreduce --sizes 4,8,16 --scheme roundtime \
          --min-reps 50 --max-reps "$REPS" --budget 0.5 --quiet --format none --jsonl "$W/f7-isort-$name-$i.jsonl" || true
      }
    done
  done
  "$PY" - "$W" "$LAUNCHES" "$FIG_PREFIX-fig7.png" "$BARRIERS" <<'PY'
import glob, json, os, re, statistics as st, sys
W, n, fig, bars = sys.argv[1], int(sys.argv[2]), sys.argv[3], [b.split(":")[1] for b in sys.argv[4].split()]
tools = [("osu", "OSU (barrier, mean)"), ("imb", "IMB (barrier, t_avg)"), ("repro", "ReproMPI (MPI_Barrier, median)"),
         ("isobar", "isochron barrier+max (median)"), ("isort", "isochron Round-Time (median)")]
vals = {}
def add(t, b, s, v):
    if v and v > 0: vals.setdefault((t, b, s), []).append(v)
for b in bars:
    for i in range(1, n + 1):
        p = f"{W}/f7-osu-{b}-{i}.txt"
        if os.path.exists(p):
            for l in open(p):
                f = l.split()
                if len(f) >= 2 and f[0].isdigit(): add("osu", b, int(f[0]), float(f[1]))
        p = f"{W}/f7-imb-{b}-{i}.txt"
        if os.path.exists(p):
            for l in open(p):
                f = l.split()
                if len(f) == 5 and f[0].isdigit(): add("imb", b, int(f[0]), float(f[4]))
        p = f"{W}/f7-repro-{b}-{i}.txt"
        if os.path.exists(p):
            for l in open(p):
                f = l.split()
                if len(f) == 6 and f[0] == "MPI_Allreduce" and int(f[3]) > 0: add("repro", b, int(f[1]) * 4, float(f[5]) * 1e6)
        for t in ("isobar", "isort"):
            p = f"{W}/f7-{t}-{b}-{i}.jsonl"
            if os.path.exists(p):
                for l in open(p):
                    r = json.loads(l)
                    if r.get("type") == "point" and r.get("median_s"): add(t, b, r["bytes"], r["median_s"] * 1e6)
def cell(v): return "-" if not v else f"{st.median(v):.2f} [{min(v):.1f}, {max(v):.1f}]"
print(f"latency in us, median over {n} launches [launch min, max]; barrier = Open MPI coll/tuned barrier_algorithm")
print(f"| barrier | size B | " + " | ".join(t[1] for t in tools) + " |")
print("|---|---|" + "---|" * len(tools))
for b in bars:
    for s in (4, 8, 16):
        print(f"| {b} | {s} | " + " | ".join(cell(vals.get((t, b, s))) for t, _ in tools) + " |")
print("\nPaper (Fig. 7, Jupiter, 32x16 ranks, Open MPI 3.0.0; figure only, values not in the text): the barrier algorithm"
      " changes every suite's Allreduce latency markedly, and 'tree' gives the smallest latency in all cases.")
print("Here, per tool, the barrier algorithm with the smallest 8 B latency, and the largest/smallest ratio over the barriers:")
print("| tool | fastest barrier at 8 B (paper: tree) | max/min over barriers at 8 B |")
print("|---|---|---|")
for t, name in tools:
    m = {b: st.median(vals[(t, b, 8)]) for b in bars if vals.get((t, b, 8))}
    if m: print(f"| {name} | {min(m, key=m.get)} | {max(m.values()) / min(m.values()):.2f} |")
    else: print(f"| {name} | - | - |")
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig_, axs = plt.subplots(1, len(tools), figsize=(3.2 * len(tools), 3.4), sharey=True)
    for ax, (t, name) in zip(axs, tools):
        for b in bars:
            xs = [s for s in (4, 8, 16) if vals.get((t, b, s))]
            ys = [st.median(vals[(t, b, s)]) for s in xs]
            lo = [y - min(vals[(t, b, s)]) for s, y in zip(xs, ys)]; hi = [max(vals[(t, b, s)]) - y for s, y in zip(xs, ys)]
            if xs: ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=2, label=b)
        ax.set_title(name, fontsize=8); ax.set_xscale("log", base=2); ax.set_xticks([4, 8, 16]); ax.set_xticklabels(["4", "8", "16"])
        ax.set_xlabel("message size [B]"); ax.set_yscale("log")
    axs[0].set_ylabel("MPI_Allreduce latency [us]"); axs[-1].legend(fontsize=7, title="barrier")
    fig_.suptitle("paper 000 Fig. 7 here: Allreduce under each Open MPI barrier algorithm", fontsize=9)
    fig_.tight_layout(); fig_.savefig(fig, dpi=110); print("figure:", os.path.basename(fig))
except Exception as e: print("(no figure:", e, ")")
PY
  echo
fi

# ------------------------------------------------------------------------------------------ fig9
if [[ " $PARTS " == *" fig9 "* ]]; then
  echo "## Fig. 9: MPI_Allreduce, OSU's barrier method against Round-Time, with OSU itself ($(papers_load))"
  lo=$(echo "$FIG9_SIZES" | tr , '\n' | sort -n | head -1); hi=$(echo "$FIG9_SIZES" | tr , '\n' | sort -n | tail -1)
  for i in $(seq 1 "$LAUNCHES"); do
    [ -n "${OSU_DIR:-}" ] && { papers_mpirun -np "$NP" "$OSU_DIR/collective/osu_allreduce" -m "$lo:$hi" -i "$REPS" -x 20 > "$W/f9-osu-$i.txt" 2>/dev/null || true; }
    papers_mpirun -np "$NP" "$ISO" --ops allreduce --sizes "$FIG9_SIZES" --scheme barrier --method max --min-reps 50 --max-reps "$REPS" \
      --budget 0.5 --quiet --format none --jsonl "$W/f9-isobar-$i.jsonl" || true
    papers_mpirun -np "$NP" "$ISO" --ops allreduce --sizes "$FIG9_SIZES" --scheme roundtime --min-reps 50 --max-reps "$REPS" \
      --budget 0.5 --quiet --format none --jsonl "$W/f9-isort-$i.jsonl" || true
    [ -n "${REPROMPI:-}" ] && { LD_LIBRARY_PATH=${REPROMPI_LIBS:-} papers_mpirun -np "$NP" -x LD_LIBRARY_PATH "$REPROMPI" --calls-list=MPI_Allreduce \
      --msizes-list="$FIG9_SIZES" --datatype=MPI_INT --nrep="$REPS" --summary=mean,median --clock-sync=HCA --proc-sync=roundtime \
      --rt-bench-time-ms=500 --runtime-type=global > "$W/f9-repro-$i.txt" 2>/dev/null || true; }
  done
  "$PY" - "$W" "$LAUNCHES" "$FIG_PREFIX-fig9.png" "$FIG9_SIZES" <<'PY'
import json, os, statistics as st, sys
W, n, fig, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], [int(x) for x in sys.argv[4].split(",")]
vals, valid = {}, {}
def add(t, s, v):
    if v and v > 0 and s in sizes: vals.setdefault((t, s), []).append(v)
for i in range(1, n + 1):
    p = f"{W}/f9-osu-{i}.txt"
    if os.path.exists(p):
        for l in open(p):
            f = l.split()
            if len(f) >= 2 and f[0].isdigit(): add("osu", int(f[0]), float(f[1]))
    for t in ("isobar", "isort"):
        p = f"{W}/f9-{t}-{i}.jsonl"
        if os.path.exists(p):
            for l in open(p):
                r = json.loads(l)
                if r.get("type") == "point" and r.get("median_s"):
                    add(t + "-mean", r["bytes"], r["mean_s"] * 1e6); add(t + "-median", r["bytes"], r["median_s"] * 1e6)
    p = f"{W}/f9-repro-{i}.txt"
    if os.path.exists(p):
        for l in open(p):
            f = l.split()
            if len(f) == 6 and f[0] == "MPI_Allreduce":
                s = int(f[1]) * 4
                valid.setdefault(s, []).append(int(f[3]))
                if int(f[3]) > 0: add("repro-mean", s, float(f[4]) * 1e6)
cols = [("osu", "OSU 7.4 (barrier, mean)"), ("isobar-mean", "isochron OSU's method (barrier+max, mean)"),
        ("isort-mean", "isochron Round-Time (mean)"), ("isort-median", "isochron Round-Time (median)"), ("repro-mean", "ReproMPI roundtime (mean)")]
def cell(v): return "-" if not v else f"{st.mean(v):.2f} [{min(v):.1f}, {max(v):.1f}]"
print(f"latency in us: mean over {n} launches of each launch's figure [min, max of the launches] (the paper's error bars)")
print("| size B | " + " | ".join(c[1] for c in cols) + " | OSU / Round-Time mean | OSU / Round-Time median | ReproMPI valid reps |")
print("|---|" + "---|" * (len(cols) + 3))
ratios, ratios_med = [], []
for s in sizes:
    o, r, rm = vals.get(("osu", s)), vals.get(("isort-mean", s)), vals.get(("isort-median", s))
    ratio = f"{st.mean(o) / st.mean(r):.2f}" if o and r else "-"
    ratio_m = f"{st.mean(o) / st.mean(rm):.2f}" if o and rm else "-"
    if o and r: ratios.append(st.mean(o) / st.mean(r))
    if o and rm: ratios_med.append(st.mean(o) / st.mean(rm))
    print(f"| {s} | " + " | ".join(cell(vals.get((c, s))) for c, _ in cols) + f" | {ratio} | {ratio_m} | {','.join(map(str, valid.get(s, []))) or '-'} |")
print("\nPaper (Fig. 9, Titan, 64x16 ranks, OSU 5.4.2 against ReproMPI Round-Time, nmpiruns = 3; figure only): OSU's latencies"
      " lie above Round-Time's, 'affected by the barrier synchronization'.")
if ratios: print(f"Here: OSU / isochron Round-Time = {min(ratios):.2f}..{max(ratios):.2f} (Round-Time's mean), "
                 f"{min(ratios_med):.2f}..{max(ratios_med):.2f} (its median) over the sizes; OSU above Round-Time's median at "
                 f"{sum(x > 1 for x in ratios_med)} of {len(ratios_med)} sizes.")
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    f_, ax = plt.subplots(figsize=(6, 4))
    for c, name in cols:
        xs = [s for s in sizes if vals.get((c, s))]
        if not xs: continue
        ys = [st.mean(vals[(c, s)]) for s in xs]
        ax.errorbar(xs, ys, yerr=[[y - min(vals[(c, s)]) for s, y in zip(xs, ys)], [max(vals[(c, s)]) - y for s, y in zip(xs, ys)]],
                    marker="o", capsize=2, label=name)
    ax.set_xscale("log", base=2); ax.set_yscale("log"); ax.set_xlabel("message size [B]"); ax.set_ylabel("MPI_Allreduce latency [us]")
    ax.set_title("paper 000 Fig. 9 here (bars: min/max over launches)", fontsize=9); ax.legend(fontsize=7)
    f_.tight_layout(); f_.savefig(fig, dpi=110); print("figure:", os.path.basename(fig))
except Exception as e: print("(no figure:", e, ")")
PY
  echo
fi

# --------------------------------------------------------------------------- clock experiments
# one isochron-clock launch: TAG NP SPEC [launcher args...] -> $W/TAG.jsonl (summary records)
clock_run() {
  local tag=$1 np=$2 spec=$3; shift 3
  papers_mpirun -np "$np" "$@" "$CLK" --sync "$spec" --track off --timer monotonic --wait "$WAIT" --skew "$SKEW" \
    --check-pingpongs 20 --quiet --format none --jsonl "$W/$tag.jsonl" > /dev/null 2> "$W/$tag.err" || echo "($tag: isochron-clock exited $?: $(tail -1 "$W/$tag.err"))"
}
# prints "| label | duration | true@0 | true@last |" rows: median [min, max] over the files of each label
clock_table() { # TITLE label=glob...
  "$PY" - "$W" "$@" <<'PY'
import glob, json, statistics as st, sys
W, title, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = []
for sp in specs:
    label, pat = sp.rsplit("=", 1)
    dur, err = [], {}
    for f in sorted(glob.glob(f"{W}/{pat}")):
        for l in open(f):
            r = json.loads(l)
            if r.get("type") == "summary":
                if r["wait_s"] == 0: dur.append(r["duration_s"])
                if r.get("max_abs_true_offset_s") is not None: err.setdefault(r["wait_s"], []).append(r["max_abs_true_offset_s"] * 1e6)
    rows.append((label, dur, err))
waits = sorted({w for _, _, e in rows for w in e})
def c(v, f="{:.3g}"): return "-" if not v else (f.format(st.median(v)) + (f" [{f.format(min(v))}, {f.format(max(v))}]" if len(v) > 1 else ""))
print(title)
print("| configuration | runs | sync duration s | " + " | ".join(f"max true error after {w:g} s, us" for w in waits) + " |")
print("|---|---|---|" + "---|" * len(waits))
for label, dur, err in rows:
    print(f"| {label} | {len(dur)} | {c(dur)} | " + " | ".join(c(err.get(w)) for w in waits) + " |")
PY
}

# -------------------------------------------------------------------------------------------- jk
if [[ " $PARTS " == *" jk "* ]]; then
  echo "## JK with SKaMPI-Offset against JK with Mean-RTT-Offset ($(papers_load))"
  for i in $(seq 1 "$LAUNCHES"); do
    clock_run "jk-skampi-$i" "$NP" "jk/40/skampi/20,span=$SPAN"
    clock_run "jk-meanrtt-$i" "$NP" "jk/40/mean-rtt/20,span=$SPAN"
  done
  clock_table "$NP ranks on one host, --skew $SKEW (truth: CLOCK_MONOTONIC); median [min, max] over $LAUNCHES launches" \
    "jk/40/SKaMPI-Offset/20=jk-skampi-*.jsonl" "jk/40/Mean-RTT-Offset/20=jk-meanrtt-*.jsonl"
  if [ "$SIM" = 1 ] && command -v smpirun >/dev/null; then
    for est in skampi mean-rtt; do
      nice -n 10 sim/run.sh 64 isochron-clock --sync "jk/40/$est/20,span=$SPAN" --track off --wait 0,10 --skew "offset=1ms,drift=2,jitter=200ns,by=host,seed=$SEED" \
        --check-pingpongs 1 --quiet --format none --jsonl "$W/simjk-$est.jsonl" > "$W/simjk-$est.log" 2>&1 || echo "(SimGrid jk $est failed: $(grep -m1 "isochron-clock:" "$W/simjk-$est.log" || tail -1 "$W/simjk-$est.log"))"
    done
    clock_table "SimGrid, 64 ranks (fat tree, 1 per host), --skew offset=1ms,drift=2,jitter=200ns,by=host (truth: simulated time)" \
      "jk/40/SKaMPI-Offset/20=simjk-skampi.jsonl" "jk/40/Mean-RTT-Offset/20=simjk-mean-rtt.jsonl"
  fi
  echo
  echo "Paper (Sec. III-C3, Jupiter, 512 ranks): 'it was often better to employ SKaMPI-Offset inside JK instead of the Mean-RTT-Offset"
  echo "algorithm, as this change boosted the global clock precision of JK'; 20 ping-pongs suffice for JK; JK needs almost 60 s at 512 ranks,"
  echo "HCA3 about 2 s (speedup 15; p/log p = 56). No per-estimator number is given in the text (Fig. 3: all algorithms within about 4 us at 0 s)."
  echo
fi

# ----------------------------------------------------------------------------------------- sweep
if [[ " $PARTS " == *" sweep "* ]]; then
  echo "## HCA3 parameter sweeps: fit points and ping-pongs ($(papers_load))"
  FITS=${FITS:-"10 20 40 100 200"}; PPS=${PPS:-"5 10 20 50 100"}
  for i in $(seq 1 "$SWEEP_LAUNCHES"); do
    for f in $FITS; do clock_run "sw-fit$f-$i" "$NP" "hca3/$f/skampi/20,span=$SPAN"; done
    for q in $PPS; do clock_run "sw-pp$q-$i" "$NP" "hca3/40/skampi/$q,span=$SPAN"; done
  done
  args=()
  for f in $FITS; do args+=("hca3/$f/SKaMPI-Offset/20=sw-fit$f-*.jsonl"); done
  for q in $PPS; do args+=("hca3/40/SKaMPI-Offset/$q=sw-pp$q-*.jsonl"); done
  clock_table "$NP ranks, --skew $SKEW, $SWEEP_LAUNCHES launch(es) per setting" "${args[@]}" | tee "$W/sweep.md"
  "$PY" - "$W/sweep.md" "$FIG_PREFIX-sweep.png" "$(echo $FITS | wc -w)" <<'PY'
import re, sys
rows = [l.strip("|\n").split("|") for l in open(sys.argv[1]) if l.startswith("| hca3")]
nfit = int(sys.argv[3])  # the fit-point rows come first, then the ping-pong rows
def num(s):
    m = re.match(r"\s*([0-9][0-9.eE+-]*)", s); return float(m.group(1)) if m else float("nan")
fit = [(int(r[0].split("/")[1]), num(r[2]), num(r[3]), num(r[-1])) for r in rows[:nfit]]
pp = [(int(r[0].strip().split("/")[3].split(",")[0]), num(r[2]), num(r[3]), num(r[-1])) for r in rows[nfit:]]
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    f_, axs = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, d, xl in ((axs[0], sorted(fit), "fit points (20 ping-pongs each)"), (axs[1], sorted(pp), "ping-pongs per fit point (40 fit points)")):
        ax.plot([x[0] for x in d], [x[2] for x in d], "o-", label="true error after 0 s")
        ax.plot([x[0] for x in d], [x[3] for x in d], "s-", label="true error at the last check")
        ax2 = ax.twinx(); ax2.plot([x[0] for x in d], [x[1] for x in d], "k^--", label="sync duration"); ax2.set_ylabel("sync duration [s]")
        ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel(xl); ax.set_ylabel("max true offset [us]"); ax.legend(fontsize=7, loc="upper left")
    f_.suptitle("paper 000 sweeps here: HCA3/SKaMPI-Offset, injected drift", fontsize=9); f_.tight_layout(); f_.savefig(sys.argv[2], dpi=110)
    print("figure:", sys.argv[2].rsplit("/", 1)[-1])
except Exception as e: print("(no figure:", e, ")")
PY
  echo "Paper (Sec. III-C3): three parameters (fit points, offset algorithm, ping-pongs per offset); labels such as hca/1000/SKaMPI-Offset/100;"
  echo "only the best setting per algorithm is plotted (Fig. 3), and the text gives no sweep numbers. A clock model is trusted for 0-20 s."
  echo
fi

# ------------------------------------------------------------------------------------------ hier
if [[ " $PARTS " == *" hier "* ]]; then
  echo "## H2HCA against H3HCA (and flat HCA3) ($(papers_load))"
  H2=${H2:-hca3/40/skampi/20,span=$SPAN+prop}; H3=${H3:-hca3/40/skampi/20,span=$SPAN+hca3/40/skampi/20,span=$SPAN+prop}; FLAT=${FLAT:-hca3/40/skampi/20,span=$SPAN}
  if [ "$CLUSTER" = 1 ] && tools/cluster check >/dev/null 2>&1; then
    export ISOCHRON_CLUSTER=${ISOCHRON_CLUSTER:-pap0}
    tools/cluster up 2 --offsets 0,7 >/dev/null
    trap 'tools/cluster down >/dev/null 2>&1 || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
    cl_clock() { # tag spec
      tools/cluster mpirun-ompi -np 4 --mca mpi_yield_when_idle 1 "$CLK" --sync "$2" --track off --timer monotonic --wait "$WAIT" \
        --skew "offset=1ms,drift=2,by=host,seed=$SEED" --check-pingpongs 20 --quiet --format none --jsonl "$W/$1.jsonl" > /dev/null 2> "$W/$1.err" \
        || echo "($1: exited $?: $(grep -v setpgid "$W/$1.err" | tail -1))"
    }
    for i in $(seq 1 "$LAUNCHES"); do cl_clock "clh2-$i" "$H2"; cl_clock "clh3-$i" "$H3"; cl_clock "clflat-$i" "$FLAT"; done
    tools/cluster down >/dev/null 2>&1 || true
    clock_table "tools/cluster: 2 namespace nodes x 2 ranks (kernel offsets 0 and 7 s), Open MPI over TCP, drift 2 ppm injected per node; one socket per node, so H3HCA's socket level has one rank; truth: CLOCK_MONOTONIC less the namespace offsets" \
      "H2HCA $H2=clh2-*.jsonl" "H3HCA $H3=clh3-*.jsonl" "HCA3 $FLAT=clflat-*.jsonl"
  else
    echo "(cluster part skipped: CLUSTER=$CLUSTER or tools/cluster check failed: $(tools/cluster check 2>&1 | tail -1))"
  fi
  if [ "$SIM" = 1 ] && command -v smpirun >/dev/null; then
    echo
    for p in $SIM_P; do
      for a in h2 h3 flat; do
        case $a in h2) spec=$H2 ;; h3) spec=$H3 ;; flat) spec=$FLAT; [ "$p" -le "$SIM_FLAT_MAX" ] || continue ;; esac
        /usr/bin/time -f "%e" -o "$W/sim-$a-$p.time" nice -n 10 sim/run.sh -r 16 "$p" isochron-clock --sync "$spec" --track off --wait 0,10 \
          --skew "offset=1ms,drift=2,by=host,seed=$SEED" --check-pingpongs 1 --quiet --format none \
          --jsonl "$W/sim-$a-$p.jsonl" > "$W/sim-$a-$p.log" 2>&1 || echo "(SimGrid $a at $p ranks failed: $(grep -m1 "isochron-clock:" "$W/sim-$a-$p.log" || tail -1 "$W/sim-$a-$p.log"))"
      done
    done
    args=()
    for p in $SIM_P; do args+=("H2HCA $p ranks=sim-h2-$p.jsonl" "H3HCA $p ranks=sim-h3-$p.jsonl"); [ "$p" -le "$SIM_FLAT_MAX" ] && args+=("HCA3 $p ranks=sim-flat-$p.jsonl"); done
    clock_table "SimGrid fat tree, 16 ranks per host, drift 2 ppm injected per host, no jitter (per-process jitter breaks ClockPropSync's one-source premise; SMPI's network is deterministic, so the errors are near 0 and the durations are the result; truth: simulated time)" "${args[@]}" | tee "$W/hier.md"
    "$PY" - "$W/hier.md" "$FIG_PREFIX-hier.png" <<'PY'
import re, sys
rows = [l.strip("|\n").split("|") for l in open(sys.argv[1]) if re.match(r"\| (H2HCA|H3HCA|HCA3) \d+", l)]
def num(s):
    m = re.match(r"\s*([0-9][0-9.eE+-]*)", s); return float(m.group(1)) if m else float("nan")
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    f_, axs = plt.subplots(1, 2, figsize=(9, 3.6))
    for alg in ("H2HCA", "H3HCA", "HCA3"):
        d = sorted((int(r[0].split()[1]), num(r[2]), num(r[-1])) for r in rows if r[0].split()[0] == alg)
        if not d: continue
        axs[0].plot([x[0] for x in d], [x[1] for x in d], "o-", label=alg); axs[1].plot([x[0] for x in d], [x[2] for x in d], "o-", label=alg)
    for ax, yl in ((axs[0], "sync duration [s] (simulated)"), (axs[1], "max true offset after 10 s [us]")):
        ax.set_xscale("log", base=2); ax.set_yscale("log"); ax.set_xlabel("simulated ranks"); ax.set_ylabel(yl); ax.legend(fontsize=7)
    f_.suptitle("paper 000 Sec. IV here: hierarchical sync in SimGrid", fontsize=9); f_.tight_layout(); f_.savefig(sys.argv[2], dpi=110)
    print("figure:", sys.argv[2].rsplit("/", 1)[-1])
except Exception as e: print("(no figure:", e, ")")
PY
  fi
  echo
  echo "Paper (Sec. IV-E): H3HCA results 'almost identical' to H2HCA (not shown). H2HCA (HCA3 + ClockPropSync) at 32x16 on Jupiter:"
  echo "about 1 s, max offset < 1.5 us after 10 s (Fig. 4); Hydra 36x32: < 0.2 us on average at 0 s, about 1 us after 10 s (Fig. 5);"
  echo "Titan 1024x16: < 4 us at 0 s, roughly 15 us after 10 s, one run 27 us (Fig. 6). Flat HCA3 at 512 ranks: about 2 s (Sec. III-C3)."
  echo
fi
papers_finish
