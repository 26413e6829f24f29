#!/usr/bin/env bash
# Paper 003 (Xu & Cooperman, "Collective Vector Clocks: Low-Overhead Transparent Checkpointing for
# MPI") reproduced here (issue 28 item 1), each result printed beside the paper's number, with
# libisochron-cc.so's three modes (native, cc = collective clocks, 2pc = MANA's two-phase commit)
# interleaved launch by launch. Parts (PARTS, default all):
#   fig3   Fig. 3: runtime overhead of cc and 2pc on blocking and non-blocking collectives
#          (isochron-bench under LD_PRELOAD: allreduce, bcast, alltoall, allgather, iallreduce,
#          ibcast, ialltoall, iallgather at 4 B, 1 KiB, 1 MiB), ratio to native per round.
#   fig4   Fig. 4: overlap of non-blocking collectives with computation under native and cc (and
#          2pc, which the paper does not run), OSU 7's method (bench/papers/paper003_kernel.c).
#   fig6   Fig. 6 (VASP 128-512 processes): the overhead of cc and 2pc on an application-like
#          kernel of collectives and halo exchanges at F6_NPS real ranks (VASP cannot run here;
#          the layer cannot run under SimGrid's SMPI: docs/papers/paper003.md says why).
#   apps   Fig. 5 / Table 1: the application table of bench/apps (helper "apps"),
#          bench/results/apps-*.txt, included when it exists.
# usage: bench/papers/paper003.sh [--help]
#   env: MODE quick|full (full: 5 rounds, NPS "2 4 8", more repetitions), PARTS, NPS ("2 4": Figs. 3
#        and 4), F6_NPS ("2 4 8": Fig. 6), ROUNDS, BUILD
# Writes bench/results/papers/paper003-<cores>cores-ompi<ver>-<mode>.txt and -.png beside it.
set -euo pipefail
. "$(dirname "$0")/common.sh"
papers_cli "$@"
papers_init paper003 --deferred  # a failed run leaves the previous results file as it was
papers_parts "fig3 fig4 fig6 apps"
if [ "$MODE" = full ]; then NPS=${NPS:-"2 4 8"}; ROUNDS=${ROUNDS:-5}; ITERS=${ITERS:-3000}; OREPS=${OREPS:-200}
else NPS=${NPS:-"2 4"}; ROUNDS=${ROUNDS:-3}; ITERS=${ITERS:-1000}; OREPS=${OREPS:-50}; fi
F6_NPS=${F6_NPS:-"2 4 8"}
for n in $NPS $F6_NPS; do case "$n" in ''|*[!0-9]*|0|1) papers_die "NPS: '$n' is not a rank count >= 2";; esac; done
case "$ROUNDS" in ''|*[!0-9]*|0) papers_die "ROUNDS='$ROUNDS': give a number >= 1";; esac
LIB=$BUILD/libisochron-cc.so
[ -e "$LIB" ] || papers_die "BUILD='$BUILD': no libisochron-cc.so there (cmake --build build --target isochron_cc)"
papers_start
KERNEL=$WORK/paper003_kernel
mpicc -std=c11 -O2 bench/papers/paper003_kernel.c -o "$KERNEL" || papers_die "cannot build bench/papers/paper003_kernel.c with mpicc"
papers_context
echo "# parts: $PARTS; ranks $NPS (Figs. 3-4), $F6_NPS (Fig. 6) on one host ($(nproc) cores: more ranks than cores are oversubscribed); $ROUNDS rounds, modes interleaved and rotated"
echo
modes=(native cc 2pc)
run_mode() { # MODE NP ARGS...: one launch under the layer in that mode
  local m=$1 np=$2; shift 2
  ISOCHRON_CC_MODE=$m LD_PRELOAD=$LIB papers_mpirun -np "$np" "$@"
}
interleave() { # NPS ITEMS FUNC: per round, rank count and item, FUNC MODE NP ROUND ITEM once in each
  local nps=$1 items=$2 fn=$3 r np it k  # mode, the modes' order rotated from round to round
  for r in $(seq 1 "$ROUNDS"); do
    for np in $nps; do
      for it in $items; do
        for k in 0 1 2; do "$fn" "${modes[$(( (k + r) % 3 ))]}" "$np" "$r" "$it"; done
      done
    done
  done
}

fig3_launch() { # MODE NP ROUND -
  run_mode "$1" "$2" "$BUILD/isochron-bench" --ops allreduce,bcast,alltoall,allgather,iallreduce,ibcast,ialltoall,iallgather \
    --sizes 4,1K,1M --format csv --quiet --budget 0.3 --max-reps 300 --rel-ci 0.02 > "$WORK/f3.$2.$1.$3.csv" \
    || papers_die "isochron-bench failed under mode $1 at $2 ranks"
}
fig4_launch() { # MODE NP ROUND OP:SIZE
  local op=${4%:*} sz=${4#*:} reps=$OREPS
  [ "$sz" -ge 1048576 ] && reps=$(( OREPS / 5 > 4 ? OREPS / 5 : 4 ))
  echo "np $2 mode $1 round $3 $(run_mode "$1" "$2" "$KERNEL" overlap "$op" "$sz" "$reps" 2>/dev/null | grep '^overlap')" >> "$WORK/f4.txt"
}
fig6_launch() { # MODE NP ROUND -
  echo "np $2 mode $1 round $3 $(run_mode "$1" "$2" "$KERNEL" app "$ITERS" 2>/dev/null | grep '^app')" >> "$WORK/f6.txt"
}

if [[ " $PARTS " == *" fig3 "* ]]; then
  echo "## Fig. 3: runtime overhead on collectives ($(papers_load))"
  interleave "$NPS" - fig3_launch
fi

if [[ " $PARTS " == *" fig4 "* ]]; then
  echo "## Fig. 4: overlap of non-blocking collectives ($(papers_load))"
  interleave "$NPS" "$(for op in iallreduce ibcast ialltoall iallgather; do for sz in 4 1024 1048576; do echo "$op:$sz"; done; done)" fig4_launch
fi

if [[ " $PARTS " == *" fig6 "* ]]; then
  echo "## Fig. 6: scaling of the overhead on an application-like kernel ($(papers_load))"
  interleave "$F6_NPS" - fig6_launch
fi

"$PY" - "$WORK" "$FIG_PREFIX" "$PARTS" <<'PY'
import csv, os, re, statistics, sys
work, figp, parts = sys.argv[1], sys.argv[2], sys.argv[3].split()
med = statistics.median
rows_out = []
def row(exp, paper, here, note):
    print(f"| {exp} | {paper} | {here} | {note} |")
def table(*cols):  # a markdown table's header
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
def overheads(byr, mode, t=lambda x: x):
    """per round (byr: round -> mode -> result), 100 (mode / native - 1) where both ran; t: a result's time"""
    return [100 * (t(v[mode]) / t(v["native"]) - 1) for v in byr.values() if mode in v and "native" in v and t(v["native"]) > 0]
def spread(rat):
    return f"{med(rat):+.1f} [{min(rat):+.0f}, {max(rat):+.0f}]" if rat else "-"
f3 = {}
if "fig3" in parts:
    for fn in os.listdir(work):
        m = re.match(r"f3\.(\d+)\.(\w+)\.(\d+)\.csv$", fn)
        if not m:
            continue
        np_, mode, rnd = int(m[1]), m[2], int(m[3])
        with open(os.path.join(work, fn)) as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                if r.get("median_s"):
                    f3.setdefault((np_, r["op"], int(r["bytes"])), {}).setdefault(rnd, {})[mode] = float(r["median_s"])
    print("\n### Fig. 3 table: overhead % = median over rounds of (mode / native - 1) in the same round [min, max]")
    table("ranks", "op", "bytes", "native us", "cc %", "2pc %")
    summ = {}
    for key in sorted(f3):
        byr = f3[key]
        nat = [v["native"] for v in byr.values() if "native" in v]
        cells = []
        for mode in ("cc", "2pc"):
            rat = overheads(byr, mode)
            cells.append(spread(rat))
            if rat:
                cls = ("nb" if key[1].startswith("i") else "b") + ("-1M" if key[2] >= 1 << 20 else "-small")
                summ.setdefault((mode, cls), []).append(med(rat))
        print(f"| {key[0]} | {key[1]} | {key[2]} | {f'{med(nat) * 1e6:.2f}' if nat else '-'} | {cells[0]} | {cells[1]} |")
    print("\n### Fig. 3 beside the paper (median of the per-point medians above)")
    table("experiment", "paper 003", "here", "note")
    def s(mode, cls):
        v = summ.get((mode, cls))
        return f"{med(v):+.1f} % (points {min(v):+.0f}..{max(v):+.0f})" if v else "-"
    row("blocking, 4 B-1 KiB, cc", "nearly 0 %", s("cc", "b-small"), "2-8 ranks on 2 shared cores, not 2048 on Slingshot")
    row("blocking, 4 B-1 KiB, 2pc", "above 100 % (Bcast worst)", s("2pc", "b-small"), "one extra Ibarrier per collective")
    row("non-blocking, 4 B-1 KiB, cc", "0-10 % typically, Ibcast up to 50 %", s("cc", "nb-small"), "two wrappers (start, completion)")
    row("non-blocking, 4 B-1 KiB, 2pc", "not supported by MANA's 2PC", s("2pc", "nb-small"), "here 2pc barriers the start too")
    row("1 MiB, cc", "identical to native", s("cc", "b-1M") + " / nb " + s("cc", "nb-1M"), "")
    row("1 MiB, 2pc", "identical to native", s("2pc", "b-1M") + " / nb " + s("2pc", "nb-1M"), "")
f4 = {}
if "fig4" in parts and os.path.exists(os.path.join(work, "f4.txt")):
    for l in open(os.path.join(work, "f4.txt")):
        m = re.match(r"np (\d+) mode (\S+) round \d+ overlap (\S+) (\d+) pure_us (\S+) total_us \S+ cpu_us \S+ overlap_pct (\S+)", l)
        if m:
            f4.setdefault((int(m[1]), m[3], int(m[4])), {}).setdefault(m[2], []).append((float(m[6]), float(m[5])))
    print("\n### Fig. 4: overlap % (OSU 7's definition), median over rounds; pure = the collective alone, us")
    table("ranks", "op", "bytes", "native overlap %", "cc overlap %", "2pc overlap %", "native pure us", "cc pure us")
    diffs = []
    for key in sorted(f4):
        d = f4[key]
        def ov(m): return f"{med([x[0] for x in d[m]]):.1f}" if m in d else "-"
        def pu(m): return f"{med([x[1] for x in d[m]]):.2f}" if m in d else "-"
        if "native" in d and "cc" in d:
            diffs.append(med([x[0] for x in d["cc"]]) - med([x[0] for x in d["native"]]))
        print(f"| {key[0]} | {key[1]} | {key[2]} | {ov('native')} | {ov('cc')} | {ov('2pc')} | {pu('native')} | {pu('cc')} |")
    print()
    table("experiment", "paper 003", "here", "note")
    row("overlap, cc against native", "comparable to native (Fig. 4, no numbers in the text)",
        f"cc - native: median {med(diffs):+.1f} points, range {min(diffs):+.1f}..{max(diffs):+.1f}" if diffs else "-",
        "Open MPI 4.1 progresses non-blocking collectives only inside MPI calls: little overlap in either mode")
f6 = {}
if "fig6" in parts and os.path.exists(os.path.join(work, "f6.txt")):
    for l in open(os.path.join(work, "f6.txt")):
        m = re.match(r"np (\d+) mode (\S+) round (\d+) app \d+ iter_us (\S+) coll_per_s (\S+) p2p_per_s (\S+)", l)
        if m:
            f6.setdefault(int(m[1]), {}).setdefault(int(m[3]), {})[m[2]] = (float(m[4]), float(m[5]), float(m[6]))
    print("\n### Fig. 6: overhead % on the application-like kernel = median over rounds of (mode / native - 1)")
    table("ranks", "native us/iter", "coll/s", "p2p/s", "cc % [min, max]", "2pc % [min, max]")
    sc = {}
    for np_ in sorted(f6):
        byr = f6[np_]
        nat = [v["native"][0] for v in byr.values() if "native" in v]
        cps = [v["native"][1] for v in byr.values() if "native" in v]
        pps = [v["native"][2] for v in byr.values() if "native" in v]
        cells = []
        for mode in ("cc", "2pc"):
            rat = overheads(byr, mode, lambda x: x[0])
            if rat:
                sc.setdefault(mode, []).append((np_, med(rat)))
            cells.append(spread(rat))
        if not nat:
            continue
        print(f"| {np_} | {med(nat):.1f} | {med(cps):.0f} | {med(pps):.0f} | {cells[0]} | {cells[1]} |")
    print()
    table("experiment", "paper 003", "here", "note")
    fmt = lambda v: ", ".join(f"{n} ranks {x:+.1f} %" for n, x in v) if v else "-"
    row("scaling, cc", "VASP 128-512 ranks: 5.2 % at 512, typically <= 5 %", fmt(sc.get("cc")), "kernel, not VASP; 2-8 ranks")
    row("scaling, 2pc", "VASP: up to 10.6 % at 512, grows with ranks", fmt(sc.get("2pc")), "")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    if f3:
        keys = sorted(f3)
        lab = [f"{k[1]}\n{k[2]}B\nnp{k[0]}" for k in keys]
        for i, mode in enumerate(("cc", "2pc")):
            vals = []
            for k in keys:
                rat = overheads(f3[k], mode)
                vals.append(med(rat) if rat else 0)
            ax[0].bar([j + 0.4 * i for j in range(len(keys))], vals, 0.4, label=mode)
        ax[0].set_xticks([j + 0.2 for j in range(len(keys))])
        ax[0].set_xticklabels(lab, fontsize=4)
        ax[0].set_ylim(-100, 500)   # a loaded machine's 1 MiB points reach thousands of percent: see the table
        ax[0].set_ylabel("runtime overhead vs native (%, clipped to -100..500)")
        ax[0].set_title("Fig. 3: overhead, cc and 2pc")
        ax[0].legend()
    if f4:
        keys = sorted(f4)
        for i, mode in enumerate(("native", "cc", "2pc")):
            vals = [med([x[0] for x in f4[k][mode]]) if mode in f4[k] else 0 for k in keys]
            ax[1].bar([j + 0.27 * i for j in range(len(keys))], vals, 0.27, label=mode)
        ax[1].set_xticks([j + 0.27 for j in range(len(keys))])
        ax[1].set_xticklabels([f"{k[1]}\n{k[2]}B\nnp{k[0]}" for k in keys], fontsize=4)
        ax[1].set_ylabel("overlap (%)")
        ax[1].set_title("Fig. 4: overlap of non-blocking collectives")
        ax[1].legend()
    if f6:
        for mode in ("cc", "2pc"):
            pts = []
            for np_ in sorted(f6):
                rat = overheads(f6[np_], mode, lambda x: x[0])
                if rat:
                    pts.append((np_, med(rat)))
            if pts:
                ax[2].plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=mode)
        ax[2].set_xscale("log", base=2)
        ax[2].set_xlabel("ranks")
        ax[2].set_ylabel("runtime overhead vs native (%)")
        ax[2].set_title("Fig. 6: scaling (kernel in place of VASP)")
        ax[2].legend()
    fig.tight_layout()
    fig.savefig(figp + ".png", dpi=130)
    print(f"\nfigure: {figp.rsplit('/', 1)[-1]}.png (beside the results)")
except ImportError:
    print("\nno figure: matplotlib not importable by this python")
PY

if [[ " $PARTS " == *" apps "* ]]; then
  echo
  echo "## Fig. 5 / Table 1: real applications (bench/apps, helper 'apps')"
  shopt -s nullglob
  apps=("$ROOT"/bench/results/apps-*.txt)
  if [ ${#apps[@]} -eq 0 ]; then
    echo "no bench/results/apps-*.txt yet: the applications' table is not available in this checkout"
  else
    for f in "${apps[@]}"; do echo "### $(basename "$f")"; cat "$f"; echo; done
  fi
fi
echo
papers_finish
