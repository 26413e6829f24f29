#!/usr/bin/env bash
# Paper 002 (Coti & Malony, "SKaMPI-OpenSHMEM: Measuring OpenSHMEM Communication Routines")
# reproduced at the scales available here with isochron-shmem, each figure's result printed beside
# what the paper reports (its Figs. 4-9 are plots without numbers in the text: the paper's column
# is the claim its text makes about each figure, and the table says whether it holds here):
#   Fig. 4  loop-timing granularity on put_nbi + quiet: timer outside the loop (Alg. 6), inside
#           (Alg. 7), around quiet (Alg. 8), by subtraction (Alg. 9); single node and two nodes;
#   Fig. 5  the overlap measurement timed outside vs inside (iteration-level timers);
#   Fig. 6  breakdown: blocking get/put vs non-blocking post, quiet, full; intra- and inter-node;
#   Fig. 7  overlap: full non-blocking operation vs post + computation + quiet (overlap fraction);
#   Fig. 8  the broadcast measurement algorithms (Alg. 1 barrier, 2 clock-synchronized, 3 in
#           rounds, 4-5 ack with fetch-inc + wait_until, and the SK variant separated by busy
#           computation, when isochron-shmem has it: bcast_busy) at 2 and 4 PEs; the paper's 1344 and
#           2016 processes are out of reach (SimGrid has no OpenSHMEM), so the nearest at scale is
#           the same four methods on MPI_Bcast in SimGrid (isochron-bench, 64 ranks; full mode adds 256);
#   Fig. 9  locks (the lock family): set + clear uncontended, contended, round-robin turns;
#           test_lock on a free lock and on a held one (test_lock_busy*), vs PEs;
#   and atomics and quiet (measured by the paper, no figure): every atomic at 2 PEs, contended at 4.
# Where: "intra" = 2 PEs on this 2-core machine (Open MPI 4.1.4's oshmem over shared memory);
#   "inter" = tools/cluster, 2 namespace nodes, 1 PE each, oshmem over UCX's TCP transport (the
#   clock's timestamps over MPI: `--transport mpi`, since the shmem transport did not progress
#   across the nodes: the sync timed out after 60 s; 20 operations a repetition, as one takes
#   about a millisecond there); 4 PEs are oversubscribed. CLUSTER=0 skips it.
# The machine is shared with other jobs: the load average is recorded with the results.
# A benchmark, not a test. usage: bench/papers/paper002.sh [--help]
#   env: MODE quick|full (quick ~5 min; full ~20: more sizes, 8 PEs, 256 simulated ranks), BUILD
#        (build), CLUSTER (1: the two-node runs; needs root), SIM (1: the MPI_Bcast analog), PY
# Writes bench/results/papers/paper002-<cores>cores-ompi<ver>-<mode>.txt (the tables), .png (the
# figure) and .jsonl (every point) through bench/papers/common.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"
papers_cli "$@"
papers_init paper002 --deferred  # a failed run leaves the previous results file as it was
CLUSTER=${CLUSTER:-1}
SIM=${SIM:-1}
if [ "$MODE" = full ]; then
  SIZES=8,64,512,4K,32K,256K,1M BSIZES=8,512,4K,64K MAXREPS=100 BUDGET=1 NPS="2 4 8" SIMNP="64 256"
else
  SIZES=8,512,4K,32K,256K BSIZES=8,4K,64K MAXREPS=30 BUDGET=0.5 NPS="2 4" SIMNP="64"
fi
"$PY" -c 'import matplotlib' 2>/dev/null || papers_die "PY='$PY' has no matplotlib (set PY to a python with it, e.g. the project's .venv)"
[ -x "$BUILD/isochron-shmem" ] || papers_die "BUILD='$BUILD': no isochron-shmem there (no OpenSHMEM found by CMake?)"
# $WORK is under /var/tmp: every tools/cluster node has a /tmp of its own, and the PEs there write their files in it
papers_start
tmp=$WORK
papers_context
echo "# $("$BUILD/isochron-shmem" --version 2>/dev/null | head -1); each '# load' line below is the load average when that part began"
: > "$tmp/defects"
S=$tmp/results.jsonl
: > "$S"
t0=$(date +%s)
# tag every point record with where it ran and what it reproduces
keep() { # where fig jsonl
  grep '"type":"point"' "$3" | sed "s/^{/{\"where\":\"$1\",\"fig\":\"$2\",/" >> "$S" || true
}
shm() { # where np fig [isochron-shmem options...]
  local w=$1 np=$2 fig=$3; shift 3
  local f=$tmp/$w-$np-$fig-$RANDOM.jsonl rc=0
  if [ "$w" = intra ]; then
    tools/mpirun-local -np "$np" "$BUILD/isochron-shmem" --quiet --format none --max-reps "$MAXREPS" --budget "$BUDGET" --jsonl "$f" "$@" 2> "$f.err" || rc=$?
  else
    ISOCHRON_CLUSTER=p002 tools/cluster mpirun-ompi -np "$np" --map-by node --mca mpi_yield_when_idle 1 -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0 \
      "$BUILD/isochron-shmem" --transport mpi --iters 20 --quiet --format none --max-reps "$MAXREPS" --budget "$BUDGET" --jsonl "$f" "$@" 2> "$f.err" || rc=$?
  fi
  # 4: the library delivered wrong data in some point (recorded without a time); anything else is a failure
  if [ $rc != 0 ] && [ $rc != 4 ]; then echo "paper002.sh: isochron-shmem ($w, $np PEs, $fig) exit $rc:" >&2; grep -v setpgid "$f.err" | tail -5 >&2; fi
  [ -f "$f" ] && keep "$w" "$fig" "$f"
  grep -h "library defect:" "$f.err" | sed "s/^/[$w $np PEs] /" >> "$tmp/defects" || true
}
P2P=get,put,quiet,quiet_empty,put_nbi_post,put_nbi_quiet,put_nbi_full,put_nbi_overlap,get_nbi_post,get_nbi_quiet,get_nbi_full,get_nbi_overlap
LOOPS=loop_outside,loop_inside,loop_quiet,loop_subtract
run_p2p() { # where
  echo "[$1] Figs. 4-7: loop granularity, breakdown, overlap ($SIZES)" >&2
  shm "$1" 2 4 --ops "$LOOPS" --sizes "$SIZES"
  shm "$1" 2 5in --ops put_nbi_overlap,get_nbi_overlap --sizes "$SIZES" --loop inside
  shm "$1" 2 6 --ops "$P2P" --sizes "$SIZES"
}
echo "# single node: $(papers_load)"
run_p2p intra
for np in $NPS; do
  echo "[intra] Fig. 8 broadcast methods, Fig. 9 locks, atomics at $np PEs" >&2
  shm intra "$np" 8 --ops bcast_method --sizes "$BSIZES"
  shm intra "$np" 9 --ops lock
  if [ "$np" = 2 ]; then shm intra 2 amo --ops atomic --sizes 8; else shm intra "$np" amo --ops amo_fetch_add_all,amo_fetch_inc_all,amo_swap_all,amo_cswap_hit_all,amo_add_all,amo_inc_all --sizes 8; fi
done

if [ "$CLUSTER" = 1 ]; then
  if ISOCHRON_CLUSTER=p002 tools/cluster check >/dev/null 2>&1; then
    echo "# two nodes, after $(($(date +%s) - t0)) s: $(papers_load)"
    papers_cluster_up p002 2
    run_p2p inter
    # not "lock": it names the whole family, whose lock_roundrobin hung between these nodes (oshmem's
    # shmem_long_atomic_fetch reported "Internal error", the 120 s watchdog ended it) in the saved run
    shm inter 2 9 --ops lock_contended,test_lock,test_lock_busy
    papers_cluster_down
  else
    echo "# two-node runs skipped: $(ISOCHRON_CLUSTER=p002 tools/cluster check 2>&1 | tail -1)"
  fi
fi

if [ "$SIM" = 1 ]; then
  if command -v smpirun >/dev/null; then
    echo "# SimGrid, after $(($(date +%s) - t0)) s: $(papers_load)"
    for np in $SIMNP; do
      echo "[sim] Fig. 8 at scale: the four methods on MPI_Bcast, $np simulated ranks (fattree)" >&2
      for cfg in "alg1:--scheme barrier --method max" "alg2:--scheme roundtime --method global" \
                 "alg3:--scheme none --timing loop --root rotate" "alg45:--scheme barrier --method ack"; do
        f=$tmp/sim-$np-${cfg%%:*}.jsonl
        # shellcheck disable=SC2086
        sim/run.sh -t fattree "$np" isochron-bench --ops bcast --sizes "$BSIZES" --max-reps 20 --budget 0.3 --quiet --format none --jsonl "$f" ${cfg#*:} \
          > "$f.out" 2>&1 || echo "paper002.sh: sim $np ${cfg%%:*} failed: $(tail -2 "$f.out")" >&2
        [ -f "$f" ] && keep sim "8-${cfg%%:*}" "$f"
      done
    done
  else
    echo "# SimGrid runs skipped: smpirun not found (libsimgrid-dev)"
  fi
fi
echo "# done after $(($(date +%s) - t0)) s: $(papers_load)"
[ -s "$tmp/defects" ] && sort -u "$tmp/defects" | sed 's/^/# /'
"$PY" bench/papers/paper002_report.py "$S" "$tmp/figure.png" "paper002.sh mode $MODE, $(date -u +%FT%TZ), $(papers_load)"
# only now, the run complete: the data, the figure and (papers_finish) the tables replace the saved ones
cp "$S" "$FIG_PREFIX.jsonl"
cp "$tmp/figure.png" "$FIG_PREFIX.png"
echo "wrote $FIG_PREFIX.png, $FIG_PREFIX.jsonl" >&2
papers_finish
