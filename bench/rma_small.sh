#!/usr/bin/env bash
# Small one-sided operations against a warm loop (issue 26 target: put, get and fetch_and_op under
# lock_all at 8 B within 1.2x of a warm loop of the access + MPI_Win_flush measured in the same run).
# The warm loop is a small C program written and compiled here (mpicc): it opens one lock_all epoch,
# warms up, then times batches of N back-to-back access + MPI_Win_flush calls with MPI_Wtime, the
# median batch / N per call; "origin" mode: rank 0 accesses rank 1 (as OSU's osu_put_latency -w lockall
# -s flush), the other ranks wait in a barrier; "ring" mode: every rank its right neighbour at once, as
# isochron's put_lockall. Rounds alternate warm loop and isochron-bench (default options: --timing auto)
# so both see the same machine; the table has each round's medians and the ratio isochron / warm loop.
# It prints what it measured: on a shared machine say so when quoting it.
#
#   bash bench/rma_small.sh                 # 2 ranks, 8 B, 3 rounds (about 30 s)
#   NP=2 SIZES=8,64 ROUNDS=5 bash bench/rma_small.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${ROUNDS:=1}" "${OPS:=put}"   # BENCH_QUICK=1: a short smoke run
BUILD=${BUILD:-build}
NP=${NP:-2}
SIZES=${SIZES:-8}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-put,get,fetch_and_op}
MPICC=${MPICC:-mpicc}
OUT=${OUT:-$BUILD/rma_small}
BENCH=$BUILD/isochron-bench
mkdir -p "$OUT"
[ -x "$BENCH" ] || { echo "rma_small: $BENCH not built (cmake --build $BUILD)" >&2; exit 2; }
command -v "$MPICC" >/dev/null || { echo "rma_small: $MPICC not found (MPICC=...)" >&2; exit 2; }

cat > "$OUT/warm.c" <<'C'
/* warm loop: ./warm OP BYTES MODE ITERS BATCHES -> "OP BYTES MODE median_s min_s" on rank 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 6 || size < 2) { if (!rank) fprintf(stderr, "usage: warm put|get|fetch_and_op BYTES origin|ring ITERS BATCHES (2+ ranks)\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    const char *op = argv[1], *mode = argv[3];
    int bytes = atoi(argv[2]), iters = atoi(argv[4]), batches = atoi(argv[5]);
    int n = bytes / (int)sizeof(long) > 0 ? bytes / (int)sizeof(long) : 1;
    long *win_mem, *src = calloc((size_t)n, sizeof(long)), *dst = calloc((size_t)n, sizeof(long));
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    memset(win_mem, 0, (size_t)n * sizeof(long));
    int target = (rank + 1) % size, active = !strcmp(mode, "ring") || rank == 0;
    int kind = !strcmp(op, "put") ? 0 : !strcmp(op, "get") ? 1 : 2;
    double *t = malloc(sizeof(double) * (size_t)batches);
    MPI_Win_lock_all(0, win);
    for (int b = -2; b < batches; b++) { /* two untimed batches warm up */
        MPI_Barrier(MPI_COMM_WORLD);
        if (!active) continue;
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (kind == 0) MPI_Put(src, bytes, MPI_BYTE, target, 0, bytes, MPI_BYTE, win);
            else if (kind == 1) MPI_Get(dst, bytes, MPI_BYTE, target, 0, bytes, MPI_BYTE, win);
            else for (int e = 0; e < n; e++) MPI_Fetch_and_op(&src[e], &dst[e], MPI_LONG, target, e, MPI_SUM, win);
            MPI_Win_flush(target, win);
        }
        if (b >= 0) t[b] = (MPI_Wtime() - t0) / iters;
    }
    MPI_Win_unlock_all(win);
    if (rank == 0) {
        qsort(t, (size_t)batches, sizeof(double), cmp);
        printf("%s %d %s %.6e %.6e\n", op, bytes, mode, t[batches / 2], t[0]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
C
"$MPICC" -O2 -o "$OUT/warm" "$OUT/warm.c"

: > "$OUT/warm.txt"
for r in $(seq 1 "$ROUNDS"); do
  for op in ${OPS//,/ }; do
    for s in ${SIZES//,/ }; do
      for mode in origin ring; do
        echo "$r $(tools/mpirun-local -np "$NP" "$OUT/warm" "$op" "$s" "$mode" 1000 21)" >> "$OUT/warm.txt"
      done
    done
  done
  ops=$(echo "$OPS" | sed 's/\([a-z_]*\)/\1_lockall/g')
  tools/mpirun-local -np "$NP" "$BENCH" --ops "$ops" --sizes "$SIZES" --dtype long --quiet --format none --jsonl "$OUT/bench-$r.jsonl"
  # and as before issue 26: one call per repetition on the global clock
  tools/mpirun-local -np "$NP" "$BENCH" --ops "$ops" --sizes "$SIZES" --dtype long --timing global --quiet --format none --jsonl "$OUT/global-$r.jsonl"
done

python3 - "$OUT" "$ROUNDS" "$NP" <<'PY'
import json, statistics, sys
out, rounds, np_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
warm = {}
for line in open(f"{out}/warm.txt"):
    r, op, b, mode, med, mn = line.split()
    warm[(int(r), op, int(b), mode)] = float(med)
rows, ratios, glob = [], {}, {}
for r in range(1, rounds + 1):
    for line in open(f"{out}/global-{r}.jsonl"):
        p = json.loads(line)
        if p.get("type") == "point": glob[(r, p["op"].replace("_lockall", ""), p["bytes"])] = p
for r in range(1, rounds + 1):
    for line in open(f"{out}/bench-{r}.jsonl"):
        p = json.loads(line)
        if p.get("type") != "point": continue
        op = p["op"].replace("_lockall", "")
        w, wr = warm.get((r, op, p["bytes"], "origin")), warm.get((r, op, p["bytes"], "ring"))
        med = p["median_s"]
        how = p.get("timing", "?") + (f" k={p['loop_k']}" if p.get("loop_k", 1) > 1 else "")
        ratio = med / w if med and w else float("nan")
        ratios.setdefault((op, p["bytes"]), []).append(ratio)
        g = glob.get((r, op, p["bytes"]), {})
        gtxt = f"{g['median_s'] * 1e9:.1f} ns (clock± {g['clock_bound_s'] * 1e9:.0f} ns)" if g.get("median_s") and g.get("clock_bound_s") else "-"
        rows.append((r, op, p["bytes"], med, p.get("resolution_s"), how, w, wr, ratio, med / wr if med and wr else float("nan"), gtxt))
print(f"\n## One-sided under lock_all, {np_} ranks: isochron-bench (default --timing auto) against a warm loop of access + MPI_Win_flush\n")
print("| round | op | bytes | isochron median | resolution | timing | warm loop, origin 0 | warm loop, ring | ratio / origin | ratio / ring | --timing global (before) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
ns = lambda x: "-" if x is None else f"{x * 1e9:.1f} ns"
for r, op, b, med, res, how, w, wr, q, qr, gtxt in rows:
    print(f"| {r} | {op} | {b} | {ns(med)} | {ns(res)} | {how} | {ns(w)} | {ns(wr)} | {q:.2f} | {qr:.2f} | {gtxt} |")
print("\nmedian ratio over the rounds (isochron / warm loop at origin 0; target <= 1.2):")
bad = 0
for (op, b), qs in sorted(ratios.items()):
    m = statistics.median(qs)
    bad += m > 1.2
    print(f"  {op:14s} {b:>7} B  {m:.2f}  {'ok' if m <= 1.2 else 'ABOVE 1.2'}")
print(f"rma_small: {len(ratios) - bad} of {len(ratios)} within 1.2x")
PY
