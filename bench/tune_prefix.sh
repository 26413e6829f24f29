#!/usr/bin/env bash
# A collective-heavy program where a guideline is violated (docs/tuning.md): tune_prefix_app
# (tests/tune/prefix_app.c: the prefix-sum step of a stream compaction, MPI_Scan of N ints ITERS
# times) at NP ranks, without and with libisochron-tune.so and the profile isochron guidelines wrote
# (PROFILE: MPI_Scan redirected to MPI_Exscan + the local op where the guideline was violated), in
# ROUNDS rotated rounds. Time = the program's own loop timer (slowest rank); the checksum of every
# prefix must be the same in every run. Prints per mode median [min max], the per-round ratio and its
# median with a t interval on the log ratios across rounds, and the program's per-rank time of its local
# pass and of the call (medians over rounds), which place a difference (docs/tuning.md).
# APP=histogram runs tests/tune/histogram_app.c instead (MPI_Reduce_scatter_block of N-int blocks,
# default N=65536 = 256 KiB, ITERS=300): the same comparison for that guideline.
#   PROFILE=FILE (required)  APP=prefix|histogram NP=2 N=16384 ITERS=2000 ROUNDS=5
#   PASS=write|none (none: back-to-back calls)  LAYER=FILE (default: BUILD/libisochron-tune.so)
#   LAUNCH_ARGS="..." extra mpirun arguments for both modes (e.g. --mca btl_vader_single_copy_mechanism none)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
APP=${APP:-prefix}
case $APP in
  prefix) dn=16384 di=2000 what=MPI_Scan ;;
  histogram) dn=65536 di=300 what=MPI_Reduce_scatter_block ;;
  *) echo "tune_prefix.sh: APP must be prefix or histogram (got $APP)" >&2; exit 2 ;;
esac
NP=${NP:-2} N=${N:-$dn} ITERS=${ITERS:-$di} ROUNDS=${ROUNDS:-5} BUILD=${BUILD:-$here/build} PASS=${PASS:-write}
read -ra largs <<< "${LAUNCH_ARGS:-}"
PROFILE=$(readlink -f "${PROFILE:?set PROFILE to a profile written by isochron guidelines --profile}")
prog=$BUILD/tests/tune_${APP}_app layer=${LAYER:-$BUILD/libisochron-tune.so}
[ -x "$prog" ] && [ -e "$layer" ] || { echo "tune_prefix.sh: build tune_${APP}_app and isochron_tune first" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# tune_prefix: $APP, $what of $N ints x $ITERS at $NP ranks, pass $PASS, launch args '${LAUNCH_ARGS:-}', $ROUNDS rounds; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  order=(default layer); [ $((r % 2)) = 0 ] && order=(layer default)
  for m in "${order[@]}"; do
    if [ "$m" = layer ]; then
      env LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$PROFILE" ISOCHRON_TUNE_VERBOSE=1 "$here/tools/mpirun-local" "${largs[@]}" -np "$NP" "$prog" "$N" "$ITERS" "$PASS" > "$tmp/$m.$r" 2> "$tmp/$m.$r.err"
    else
      "$here/tools/mpirun-local" "${largs[@]}" -np "$NP" "$prog" "$N" "$ITERS" "$PASS" > "$tmp/$m.$r" 2> "$tmp/$m.$r.err"
    fi || { echo "tune_prefix.sh: $m run $r failed: $(tail -3 "$tmp/$m.$r.err")" >&2; exit 1; }
  done
done
python3 - "$tmp" "$ROUNDS" "$here/bench" <<'PY'
import re, statistics, sys
tmp, rounds, bench = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rd(m, r):
    t = open(f"{tmp}/{m}.{r}").read()
    g = re.search(r"loop ([0-9.]+) s checksum (\w+)", t)
    ph = [tuple(map(float, x)) for x in re.findall(r"rank \d+ pass ([0-9.]+) call ([0-9.]+)", t)]
    return float(g.group(1)), g.group(2), ph
d = [rd("default", r) for r in range(1, rounds + 1)]
l = [rd("layer", r) for r in range(1, rounds + 1)]
sums = {x[1] for x in d + l}
for name, v in (("default", d), ("layer", l)):
    ts = [x[0] for x in v]
    print(f"{name:8} loop {statistics.median(ts):.3f} s [{min(ts):.3f} {max(ts):.3f}]")
for name, v in (("default", d), ("layer", l)):
    print(f"{name:8} per iteration (us), median over rounds of the run medians: " + "; ".join(
        f"rank {k} pass {statistics.median(x[2][k][0] for x in v):.1f} call {statistics.median(x[2][k][1] for x in v):.1f}"
        for k in range(len(v[0][2]))))
sys.path.insert(0, bench)
from tune_ratio import ratio_line
print("layer/default per round: " + ratio_line([(a[0], b[0]) for a, b in zip(l, d)]))
print("checksums: " + ("identical (" + sums.pop() + ")" if len(sums) == 1 else "DIFFER: " + ", ".join(sorted(sums))))
err = open(f"{tmp}/layer.1.err").read()
m = re.search(r"isochron-tune: .*", err)
print("layer: " + (m.group(0) if m else "no report"))
sys.exit(0 if len({x[1] for x in d + l}) == 1 else 1)
PY
rc=$?
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
