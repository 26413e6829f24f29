#!/usr/bin/env bash
# Paper 004 (Seidel & Davis, "Global Synchronization Algorithms for the Intel iPSC/860", 1992)
# reproduced at the scales available here, each result printed beside the paper's number:
#   Table I/II   the cost model (a, b_s, b_l, s) fitted to measured sends, and each Table II row
#                (send, simple exchange, shift; long and forced protocol) measured vs predicted;
#   Table III    the minimum message length for which RDS pays off, from the fitted constants;
#   sec. 3.1-3.3 the single-delayed-node case: cost and precision of gsync (butterfly), sync0 and
#                RDS when one node is delta late, against the paper's formulas;
#   Figs. 4-1..4-3  shift cost after each barrier vs message length (4K-64K), long and forced
#                protocol, rings of 4, 32, 128 nodes; Fig. 4-4: 32 KiB shifts vs cube size;
#   Figs. 4-5..4-7  success rates (concurrent shifts) at 4, 32 and 128 nodes.
# Where (the paper's 4-128 iPSC/860 nodes are not here):
#   sim    SimGrid SMPI, a crossbar of 2-128 hosts calibrated to the paper's Table I (b_s = 75 us,
#          a = 0.36 us/B; a send returns at once, s ~ 0; full-duplex host links, no OS noise): the
#          paper's scale and constants, deterministic, a minute of host time;
#   real   Open MPI ranks on this 2-core machine (4 ranks are oversubscribed; shared with other
#          jobs: the load average is recorded), truth = CLOCK_REALTIME shared by all ranks;
#   cluster  tools/cluster: 2 namespace nodes x 2 ranks over TCP, ranks alternating nodes so
#          every ring hop crosses nodes (CLUSTER=0 skips it; needs root).
# The paper's long and forced protocols are written explicitly (bench/papers/paper004_probe.c):
# long = null PROBE, null REQUEST, then the data; forced = the receive is posted before the
# synchronization and the data is sent at once. The barriers are isochron's (include/isochron/
# barrier.h): butterfly = gsync, sync0, rds.
# A benchmark, not a test. usage: bench/papers/paper004.sh [--help]
#   env: MODE quick|full (quick: ~5 min, 10 simulated / 100 real trials; full: 50 / 300 trials and
#        every size 4-64 KiB), BUILD (build), CLUSTER (1: the namespace cluster; needs root), PY
# Writes bench/results/papers/paper004-<cores>cores-ompi<ver>-<mode>.txt (the tables), .png (the
# figure) and .jsonl (every trial) through bench/papers/common.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"
papers_cli "$@"
papers_init paper004 --deferred  # a failed run leaves the previous results file as it was
CLUSTER=${CLUSTER:-1}
if [ "$MODE" = full ]; then ST=50 RT=300 SIZES=4K,8K,16K,32K,64K RREPS=1000; else ST=10 RT=100 SIZES=4K,16K,64K RREPS=300; fi
"$PY" -c 'import matplotlib' 2>/dev/null || papers_die "PY='$PY' has no matplotlib (set PY to a python with it, e.g. the project's .venv)"
[ -f "$BUILD/libisochron.so" ] || papers_die "BUILD='$BUILD': no libisochron.so there (cmake --build $BUILD)"
command -v smpicc >/dev/null || papers_die "smpicc not found; install libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh)"
mkdir -p "$BUILD/papers"
papers_start
tmp=$WORK
papers_context
echo "# SimGrid $(smpirun -version 2>/dev/null | head -1 | awk '{print $NF}'); each '# load' line below is the load average when that part began"

# ---- build the probe: real (mpicc + libisochron) and simulated (smpicc + sim/build's objects) ----
mpicc -std=c11 -O2 -Iinclude bench/papers/paper004_probe.c -o "$BUILD/papers/paper004_probe" -L"$BUILD" -lisochron -Wl,-rpath,"$BUILD" -lm
bash sim/build.sh >/dev/null
smpicc -std=c11 -O2 -DSMPI_ISOCHRON -Iinclude -Isrc bench/papers/paper004_probe.c sim/build/obj/*.o -o "$tmp/probe-sim" -lm 2>/dev/null
REAL=$BUILD/papers/paper004_probe

# ---- SimGrid: an iPSC/860-like crossbar of full-duplex links, calibrated here with the probe at
# 2 and 8 hosts: a null message takes 2 x lat + 5.8 us, so lat = 34.62 us gives b_s = 75.0 us; 2.7778 MB/s
# gives a = 0.36 us/B (Table I). SMPI's size-dependent latency/bandwidth factors are set to 1 and
# cross traffic off (the iPSC sends and receives on independent channels). A send returns at once
# (s ~ 0, not the paper's 44 us): SMPI's send overhead (smpi/os) delays blocking sends only, which made
# a 0-byte MPI_Sendrecv step (butterfly, sync0) cost a third of a null send; without it every
# message costs b_s + am, the paper's model.
sim() { # N args...
  local n=$1; shift
  local d=$tmp/plat-$n
  if [ ! -f "$d.xml" ]; then
    cat > "$d.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <cluster id="ipsc" prefix="node-" radical="0-$((n - 1))" suffix="" speed="1Gf" bw="2.7778MBps" lat="34.62us"
             sharing_policy="SPLITDUPLEX" bb_bw="100GBps" bb_lat="0us" bb_sharing_policy="FATPIPE"/>
  </zone>
</platform>
XML
    for i in $(seq 0 $((n - 1))); do echo "node-$i"; done > "$d.hosts"
  fi
  smpirun -np "$n" -platform "$d.xml" -hostfile "$d.hosts" --log=root.thres:warning --log=xbt_cfg.thres:warning \
    --cfg=smpi/simulate-computation:no --cfg=contexts/stack-size:512 --cfg=surf/precision:1e-12 \
    --cfg=network/crosstraffic:0 --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    "$tmp/probe-sim" "$@" | sed "s/^{/{\"where\":\"sim\",/"
}
real() { # NP args...
  local np=$1; shift
  # unbound and yielding when idle: other jobs' processes share these 2 cores (a busy-polling rank
  # bound to a busy core made a 4 KiB exchange of 2 ranks take 30-50 ms at load 20)
  tools/mpirun-local -np "$np" --bind-to none --mca mpi_yield_when_idle 1 "$REAL" "$@" | sed "s/^{/{\"where\":\"real\",/"
}
BARS=clock,none,butterfly,sync0,rds
S=$tmp/results.jsonl
: > "$S"
t0=$(date +%s)
echo "# sim: $(papers_load)"
echo "[sim] cost model, Table II" >&2
sim 2 costs 0,1K,2K,4K,8K,16K,32K,64K 5 >> "$S"
BS=75e-6
for p in 2 4; do
  for dl in 0.5 2; do
    sim "$p" shift clock,none,butterfly long,forced 4K,32K 2 "-$(awk -v d=$dl -v b=$BS 'BEGIN{print d*b}')" 1 | sed "s/^{/{\"delta_bs\":$dl,/" >> "$S"
  done
done
echo "[sim] single delayed node" >&2
for p in 8 32 128; do
  d=$(awk -v p=$p 'BEGIN{d=0; while (2^d < p) d++; print d}')
  sim "$p" delayed butterfly,sync0,rds "0,0.5,1,2,$d,$((2 * d))" 3 >> "$S"
done
echo "[sim] Figs. 4-1..4-3, 4-5..4-7 (p = 4, 32, 128; $ST trials, arrivals spread over 3 ms)" >&2
for p in 4 32 128; do sim "$p" shift "$BARS" long,forced "$SIZES" "$ST" 3e-3 7 | sed 's/^{/{"fig":"4-1",/' >> "$S"; done
echo "[sim] Fig. 4-4 (32 KiB, d = 1..7)" >&2
for p in 2 4 8 16 32 64 128; do sim "$p" shift "$BARS" long,forced 32K 5 3e-3 11 | sed 's/^{/{"fig":"4-4",/' >> "$S"; done
echo "# real, after $(($(date +%s) - t0)) s: $(papers_load)"

echo "[real] cost model (2 ranks), shifts and delayed node (4 ranks, oversubscribed)" >&2
real 2 costs 0,1K,2K,4K,8K,16K,32K,64K "$RREPS" >> "$S"
real 2 shift clock,none,butterfly long,forced 4K,64K "$RT" 20e-6 3 | sed 's/^{/{"fig":"4-1",/' >> "$S"
real 4 shift "$BARS" long,forced 4K,64K "$RT" 50e-6 5 | sed 's/^{/{"fig":"4-1",/' >> "$S"
real 4 delayed butterfly,sync0,rds 0,1,2,6 "$RT" >> "$S"

if [ "$CLUSTER" = 1 ]; then
  if ISOCHRON_CLUSTER=p004 tools/cluster check >/dev/null 2>&1; then
    echo "# cluster, after $(($(date +%s) - t0)) s: $(papers_load)"
    echo "[cluster] 2 nodes x 2 ranks over TCP" >&2
    papers_cluster_up p004 2
    cl() { ISOCHRON_CLUSTER=p004 tools/cluster mpirun-ompi -np 4 --map-by node --mca mpi_yield_when_idle 1 "$REAL" "$@" 2> >(grep -v setpgid >&2) |
             sed "s/^{/{\"where\":\"cluster\",/"; }
    cl costs 0,4K,16K,64K "$((RREPS / 3))" >> "$S"
    cl shift "$BARS" long,forced 4K,64K "$((RT / 2))" 200e-6 13 | sed 's/^{/{"fig":"4-1",/' >> "$S"
    cl delayed butterfly,sync0,rds 0,1,2,6 "$((RT / 2))" >> "$S"
    papers_cluster_down
  else
    echo "# cluster runs skipped: $(ISOCHRON_CLUSTER=p004 tools/cluster check 2>&1 | tail -1)"
  fi
fi
echo "# done after $(($(date +%s) - t0)) s: $(papers_load)"
"$PY" bench/papers/paper004_report.py "$S" "$tmp/figure.png" "paper004.sh mode $MODE, $(date -u +%FT%TZ), $(papers_load)"
# only now, the run complete: the data, the figure and (papers_finish) the tables replace the saved ones
cp "$S" "$FIG_PREFIX.jsonl"
cp "$tmp/figure.png" "$FIG_PREFIX.png"
echo "wrote $FIG_PREFIX.png, $FIG_PREFIX.jsonl" >&2
papers_finish
