#!/usr/bin/env bash
# Paper 001 (Lastovetsky, Rychkov, O'Flynn, "MPIBlib: Benchmarking MPI Communications for Parallel
# Computing on Homogeneous and Heterogeneous Clusters") reproduced here (issue 28 item 1), each
# result printed beside the paper's number. Parts (PARTS, default all):
#   fig1    Fig. 1: IMB Scatter and Gather, 0-100 KB, a single repetition against many: t_min,
#           t_max, t_avg over the processes (the pipeline effect of repetitions that are not
#           isolated); beside it isochron with the series pipelined (scheme none, method max) and
#           isolated (barrier scheme, method max), launches interleaved. On NP local ranks, and
#           (CLUSTER=1) on tools/cluster's namespace nodes, one rank per node over TCP, the nearest
#           here to the paper's 16 Ethernet nodes.
#   table1  Table 1: the cost (wall time) of one repetition of scatter and gather at every size
#           0-100 KB in 1 KB steps with the global, maximum and root timing methods.
#   opt     Opt_Scatter (Sec. 4): examples/opt_scatter measures every Scatter implementation at
#           start-up and picks the fastest per size; then every implementation is measured
#           independently at the sizes it picked for (and at its measured sizes), in the same launch
#           round, to check that the pick is the fastest (or statistically tied with it).
# usage: bench/papers/paper001.sh [--help]
#   env: MODE quick|full (full: 1 KB stride in Fig. 1, 10 launches), PARTS, NP (4), LAUNCHES, BUILD,
#        IMB|IMB_SRC (see bench/papers/common.sh), CLUSTER (1: also on tools/cluster; needs root),
#        CLUSTER_NODES (4)
# Writes bench/results/papers/paper001-<cores>cores-ompi<ver>-<mode>.txt and -fig1.png beside it.
set -euo pipefail
. "$(dirname "$0")/common.sh"
papers_cli "$@"
papers_init paper001 --deferred
papers_parts "fig1 table1 opt"
papers_np 4
if [ "$MODE" = full ]; then LAUNCHES=${LAUNCHES:-10}; STRIDE=${STRIDE:-1024}; MANY=${MANY:-1000}
else LAUNCHES=${LAUNCHES:-3}; STRIDE=${STRIDE:-10240}; MANY=${MANY:-100}; fi
CLUSTER=${CLUSTER:-1}
CLUSTER_NODES=${CLUSTER_NODES:-4}
[ -x "$BUILD/opt_scatter" ] || papers_die "BUILD='$BUILD': no opt_scatter example there (it is built with the project)"
papers_peers
papers_start
papers_context
echo "# parts: $PARTS; $NP ranks on one host ($( [ "$NP" -gt "$(nproc)" ] && echo oversubscribed || echo 'one core each')), $LAUNCHES launches"
echo
ISO="$BUILD/isochron-bench"
W=$WORK
SIZES=$(seq 0 "$STRIDE" 102400 | paste -sd,)

# ------------------------------------------------------------------------------------------ fig1
fig1_round() { # TAG LAUNCHER... : one interleaved round of IMB single, IMB many, isochron pipelined, isochron isolated
  local tag=$1; shift
  if [ -n "${IMB:-}" ]; then
    "$@" "$IMB" Scatter Gather -msglen "$W/len" -npmin "$NPR" -iter 1 -iter_policy off > "$W/$tag-imb1.txt" 2>/dev/null || true
    "$@" "$IMB" Scatter Gather -msglen "$W/len" -npmin "$NPR" -iter "$MANY" -iter_policy off > "$W/$tag-imbN.txt" 2>/dev/null || true
  fi
  "$@" "$ISO" --ops scatter,gather --sizes "$SIZES" --scheme none --method max --min-reps "$MANY" --max-reps "$MANY" --rel-ci 0 \
    --quiet --format none --jsonl "$W/$tag-isopipe.jsonl" 2>/dev/null || true
  "$@" "$ISO" --ops scatter,gather --sizes "$SIZES" --scheme barrier --method max --min-reps 20 --max-reps "$MANY" --budget 0.3 \
    --quiet --format none --jsonl "$W/$tag-isoiso.jsonl" 2>/dev/null || true
}
fig1_report() { # TAG TITLE FIG
  "$PY" - "$W" "$1" "$LAUNCHES" "$2" "$3" <<'PY'
import glob, json, os, statistics as st, sys
W, tag, n, title, fig = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
d = {}  # (src, op, stat, bytes) -> [values over launches], us
def add(k, v): d.setdefault(k, []).append(v)
for i in range(1, n + 1):
    for src in ("imb1", "imbN"):
        p = f"{W}/{tag}{i}-{src}.txt"
        if not os.path.exists(p): continue
        op = None
        for l in open(p):
            if l.startswith("# Benchmarking"): op = l.split()[2].lower()
            f = l.split()
            if op and len(f) == 5 and f[0].isdigit():
                for j, s in ((2, "min"), (3, "max"), (4, "avg")): add((src, op, s, int(f[0])), float(f[j]))
    for src in ("isopipe", "isoiso"):
        p = f"{W}/{tag}{i}-{src}.jsonl"
        if not os.path.exists(p): continue
        for l in open(p):
            r = json.loads(l)
            if r.get("type") == "point" and r.get("median_s") is not None:
                add((src, r["op"], "median", r["bytes"]), r["median_s"] * 1e6); add((src, r["op"], "mean", r["bytes"]), r["mean_s"] * 1e6)
sizes = sorted({k[3] for k in d})
med = lambda k: st.median(d[k]) if d.get(k) else None
f = lambda v: "-" if v is None else f"{v:.1f}"
print(title)
print(f"us, median over {n} launches; IMB: t_min / t_max / t_avg over the processes, 1 repetition and many; isochron: max over ranks per repetition, median")
print("| op | bytes | IMB 1 rep min / max / avg | IMB many min / max / avg | isochron pipelined (none+max) | isochron isolated (barrier+max) |")
print("|---|---|---|---|---|---|")
for op in ("scatter", "gather"):
    for s in sizes:
        row = [" / ".join(f(med((src, op, x, s))) for x in ("min", "max", "avg")) for src in ("imb1", "imbN")]
        print(f"| {op} | {s} | {row[0]} | {row[1]} | {f(med(('isopipe', op, 'median', s)))} | {f(med(('isoiso', op, 'median', s)))} |")
def ratio(a, b):
    xs = [med(a + (s,)) / med(b + (s,)) for s in sizes if s > 0 and med(a + (s,)) and med(b + (s,))]
    return (st.median(xs), min(xs), max(xs)) if xs else None
def spread(src, op):
    xs = [(med((src, op, "max", s)) - med((src, op, "min", s))) / med((src, op, "avg", s)) for s in sizes
          if s > 0 and med((src, op, "avg", s))]
    return st.median(xs) if xs else None
print("\nThe paper's observations (Fig. 1, 16-node heterogeneous cluster, Gigabit Ethernet, LAM 7.1.3; figure only, no values in the text) beside the same quantities here (sizes > 0):")
print("| observation in the paper | here |")
print("|---|---|")
r = ratio(("imb1", "scatter", "min"), ("imb1", "scatter", "avg"))
print(f"| scatter, 1 repetition: t_min is small (the root's non-blocking send) | t_min / t_avg = {'-' if not r else f'{r[0]:.3g} (sizes: {r[1]:.3g}..{r[2]:.3g})'} |")
r = ratio(("imb1", "gather", "max"), ("imb1", "gather", "avg"))
print(f"| gather, 1 repetition: t_max (the root) well above the others | t_max / t_avg = {'-' if not r else f'{r[0]:.3g} (sizes: {r[1]:.3g}..{r[2]:.3g})'} |")
for op in ("scatter", "gather"):
    a, b = spread("imb1", op), spread("imbN", op)
    print(f"| {op}: (t_max - t_min) / t_avg shrinks as repetitions increase | 1 rep {f(a) if a is None else f'{a:.2f}'}, many {f(b) if b is None else f'{b:.2f}'} |")
for op in ("scatter", "gather"):
    r = ratio(("isopipe", op, "median"), ("isoiso", op, "median"))
    print(f"| {op}: a pipelined series misstates the isolated time | isochron pipelined / isolated = {'-' if not r else f'{r[0]:.3g} (sizes: {r[1]:.3g}..{r[2]:.3g})'} |")
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    f_, axs = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, op in zip(axs, ("scatter", "gather")):
        for src, lab, ls in (("imb1", "IMB 1 rep", "-"), ("imbN", "IMB many", ":")):
            for x in ("min", "max", "avg"):
                xs = [s for s in sizes if med((src, op, x, s)) is not None]
                if xs: ax.plot([s / 1024 for s in xs], [med((src, op, x, s)) for s in xs], ls=ls, marker=".", label=f"{lab} t_{x}")
        for src, lab in (("isopipe", "isochron pipelined"), ("isoiso", "isochron isolated")):
            xs = [s for s in sizes if med((src, op, "median", s)) is not None]
            if xs: ax.plot([s / 1024 for s in xs], [med((src, op, "median", s)) for s in xs], lw=2, label=lab)
        ax.set_title(op, fontsize=9); ax.set_xlabel("message size [KiB]"); ax.set_ylabel("time [us]"); ax.set_yscale("log")
    axs[1].legend(fontsize=6, ncol=2); f_.suptitle("paper 001 Fig. 1 here: " + title[:90], fontsize=8)
    f_.tight_layout(); f_.savefig(fig, dpi=110); print("figure:", os.path.basename(fig))
except Exception as e: print("(no figure:", e, ")")
PY
}
if [[ " $PARTS " == *" fig1 "* ]]; then
  echo "## Fig. 1: IMB scatter/gather, single against multiple repetitions ($(papers_load))"
  tr , '\n' <<< "$SIZES" > "$W/len"
  NPR=$NP
  for i in $(seq 1 "$LAUNCHES"); do fig1_round "loc$i" papers_mpirun -np "$NP"; done
  fig1_report loc "$NP ranks on one host (shared memory), sizes 0-100 KiB in $STRIDE B steps, many = $MANY" "$FIG_PREFIX-fig1.png"
  if [ "$CLUSTER" = 1 ] && tools/cluster check >/dev/null 2>&1; then
    export ISOCHRON_CLUSTER=${ISOCHRON_CLUSTER:-pap1}
    tools/cluster up "$CLUSTER_NODES" --slots 1 >/dev/null
    trap 'tools/cluster down >/dev/null 2>&1 || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
    echo "($(papers_load) before the cluster rounds)"
    NPR=$CLUSTER_NODES
    for i in $(seq 1 "$LAUNCHES"); do
      fig1_round "cl$i" tools/cluster mpirun-ompi -np "$CLUSTER_NODES" --map-by node --mca mpi_yield_when_idle 1
    done
    tools/cluster down >/dev/null 2>&1 || true
    echo
    fig1_report cl "tools/cluster: $CLUSTER_NODES namespace nodes x 1 rank, Open MPI over TCP (veth), sizes 0-100 KiB in $STRIDE B steps, many = $MANY" "$FIG_PREFIX-fig1-cluster.png"
  else
    echo "(cluster rounds skipped: CLUSTER=$CLUSTER or tools/cluster check failed)"
  fi
  echo
fi

# ---------------------------------------------------------------------------------------- table1
if [[ " $PARTS " == *" table1 "* ]]; then
  echo "## Table 1: cost of the scatter and gather benchmarks by timing method ($(papers_load))"
  T1=$(seq 0 1024 102400 | paste -sd,)
  for i in $(seq 1 "$LAUNCHES"); do
    for m in global max root; do
      for op in scatter gather; do
        papers_mpirun -np "$NP" "$ISO" --ops "$op" --sizes "$T1" --scheme barrier --method "$m" --min-reps 1 --max-reps 1 --warmup 0 \
          --validate 0 --quiet --format none --jsonl "$W/t1-$op-$m-$i.jsonl" 2>/dev/null || true
      done
    done
  done
  "$PY" - "$W" "$LAUNCHES" <<'PY'
import glob, json, statistics as st, sys
W, n = sys.argv[1], int(sys.argv[2])
paper = {("scatter", "global"): 28.7, ("scatter", "max"): 0.8, ("scatter", "root"): 0.8,
         ("gather", "global"): 44.7, ("gather", "max"): 15.6, ("gather", "root"): 15.7}
print(f"isochron-bench, {len(range(0, 102401, 1024))} sizes (0-100 KiB, 1 KiB stride), 1 repetition each after a barrier, {n} launches;")
print("time = the sum over the points of each point's elapsed time (its repetition, its timing method's extra messages, the scheme),")
print("without start-up and clock synchronization (done once per launch: the sync spec's duration is listed apart)")
print("| timing method | scatter: paper s | scatter: here s | gather: paper s | gather: here s | here, clock sync once per launch s |")
print("|---|---|---|---|---|---|")
for m in ("global", "max", "root"):
    cells, syncs = [], []
    for op in ("scatter", "gather"):
        tot = []
        for i in range(1, n + 1):
            el, ok = 0.0, False
            for l in open(f"{W}/t1-{op}-{m}-{i}.jsonl") if glob.glob(f"{W}/t1-{op}-{m}-{i}.jsonl") else []:
                r = json.loads(l)
                if r.get("type") == "point" and r.get("elapsed_s") is not None: el += r["elapsed_s"]; ok = True
                if r.get("type") == "context" and isinstance(r.get("clock_sync"), dict) and r["clock_sync"].get("duration_s") is not None:
                    syncs.append(r["clock_sync"]["duration_s"])
            if ok: tot.append(el)
        cells += [f"{paper[(op, m)]}", "-" if not tot else f"{st.median(tot):.3f} [{min(tot):.3f}, {max(tot):.3f}]"]
    print(f"| {m} | " + " | ".join(cells) + f" | {'-' if not syncs else f'{st.median(syncs):.3f}'} |")
print("\nPaper (Table 1, 16 heterogeneous nodes, Gigabit Ethernet, LAM 7.1.3, 0-100 KB, 1 KB stride, 1 repetition): global timing costs 28.7 s"
      " (scatter) and 44.7 s (gather), max and root 0.8 s and 15.6/15.7 s: MPIBlib's global timing synchronizes clocks for the measurement;"
      " isochron synchronizes once per launch and keeps the model, so its global method costs about as much as max here.")
PY
  echo
fi

# ------------------------------------------------------------------------------------------- opt
if [[ " $PARTS " == *" opt "* ]]; then
  echo "## Opt_Scatter: is the pick the fastest? ($(papers_load))"
  # opt_scatter measures at 64, 1K, 16K, 128K and then scatters 4096 B and 100000 B through its pick
  for i in $(seq 1 "$LAUNCHES"); do
    papers_mpirun -np "$NP" "$BUILD/opt_scatter" > "$W/opt-$i.txt" 2>&1 || echo "(opt_scatter launch $i exited $?)"
    papers_mpirun -np "$NP" "$ISO" --ops scatter,scatter_linear,scatter_binomial --sizes 64,1K,4K,16K,100000,128K --min-reps 30 --budget 0.5 \
      --quiet --format none --jsonl "$W/optm-$i.jsonl" 2>/dev/null || true
  done
  "$PY" - "$W" "$LAUNCHES" <<'PY'
import json, os, re, statistics as st, sys
W, n = sys.argv[1], int(sys.argv[2])
impls = ["scatter", "scatter_linear", "scatter_binomial"]
rows, agree, total = [], 0, 0
print("| launch | app size B | Opt_Scatter's pick | independent medians us: scatter / linear / binomial | fastest | pick's median / fastest's | pick within the fastest's 95% CI | verdict |")
print("|---|---|---|---|---|---|---|---|")
for i in range(1, n + 1):
    p = f"{W}/opt-{i}.txt"
    if not os.path.exists(p): continue
    txt = open(p).read()
    picks = {int(m.group(1)): m.group(2) for m in re.finditer(r"Opt_Scatter of (\d+) B x3 used (\S+):", txt)}
    tab = {}
    for l in txt.splitlines():
        f = l.split()
        if len(f) == 8 and f[0].isdigit() and f[2] == "us": tab[int(f[0])] = f[-1]
    meas = {}
    for l in open(f"{W}/optm-{i}.jsonl") if os.path.exists(f"{W}/optm-{i}.jsonl") else []:
        r = json.loads(l)
        if r.get("type") == "point" and r.get("median_s"): meas[(r["op"], r["bytes"])] = r
    for size, pick in sorted(picks.items()):
        ms = {k: meas.get((k, size)) for k in impls}
        if not all(ms.values()):
            print(f"| {i} | {size} | {pick} | (not all measured) | - | - | - | - |"); continue
        fast = min(impls, key=lambda k: ms[k]["median_s"])
        ratio = ms[pick]["median_s"] / ms[fast]["median_s"]
        lo, hi = ms[fast].get("median_ci_lo_s"), ms[fast].get("median_ci_hi_s")
        # tied: the pick's median lies within the fastest's median CI, or their CIs overlap
        plo = ms[pick].get("median_ci_lo_s")
        tied = pick == fast or (hi is not None and plo is not None and plo <= hi)
        ok = pick == fast or tied
        total += 1; agree += ok
        meds = " / ".join(f"{ms[k]['median_s'] * 1e6:.1f}" for k in impls)
        print(f"| {i} | {size} | {pick} | {meds} | {fast} | {ratio:.2f} | {'yes' if tied else 'no'} | {'fastest' if pick == fast else ('tied' if tied else 'NOT the fastest')} |")
print(f"\nOpt_Scatter's pick was the fastest or statistically tied with it in {agree} of {total} (launch, size) cases.")
print("Paper (Sec. 4): Opt_Scatter 'compares the estimated execution times of all implementations for this message size and invokes the fastest"
      " implementation'; no measured numbers are published for it.")
PY
  echo
fi
papers_finish
