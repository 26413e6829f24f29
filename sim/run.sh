#!/usr/bin/env bash
# Run an isochron driver on a simulated cluster (SimGrid SMPI):
#   sim/run.sh [-t fattree|dragonfly|flat] [-r RANKS_PER_HOST] [-p PLATFORM.xml] NP DRIVER [driver options...]
#   e.g. sim/run.sh -r 16 1024 isochron-clock --sync hca3 --skew drift=50,by=host --wait 0,10
# DRIVER is isochron-clock, isochron-bench or isochron-barrier, built by sim/build.sh (run when
# sim/build/ lacks it). The platform is sim/platforms/TOPO-NP-RPH.xml when committed, else made
# by sim/platform.sh in a temporary directory; the hostfile puts rank r on host r / RPH.
# -p takes a platform file whose hosts are named node-0, node-1, ... instead (e.g. the asymmetric
# routes of sim/platforms/asym-*.xml). Defaults: fattree, 1 rank per host. Settings, and why:
#   smpi/simulate-computation:no  host CPU time between MPI calls is not injected: the simulated
#       times depend on the platform only (deterministic), not on the load of this machine.
#   -no-privatize                 SMPI's default privatization dlopens a copy of the binary per
#       rank (1 MB each, 16 GB at 16384 ranks); libisochron keeps its state in handles, and its few
#       statics are lazily built registries and parse caches, identical on every rank.
#   contexts/stack-size:512       KiB per simulated rank (default 8 MiB).
#   smpi/gather:ompi_binomial, smpi/allreduce:rdb, smpi/allgather:rdb   SMPI's default Gather,
#       Allreduce and Allgather post p non-blocking requests and complete them with waitany, whose
#       host cost per completion grows with p (perf at 1024 ranks, skampi: 44% of the host CPU in
#       the context gather's waitany and CommImpl::finish; 25.3 -> 14.2 s CPU with these). The
#       simulated times of these collectives change accordingly (skampi 1024: 1.790519 -> 1.790593 s).
#   smpi/send-is-detached-thresh:0  every MPI_Send is synchronous (rendezvous). SMPI sends smaller
#       than 64 KiB eagerly as detached comms, and each comm that completes is removed from a list
#       of the detached ones by a linear search: ranks that wait (for their turn, or for the leader
#       of their host) leave sends pending, and at 4096 ranks (hca3+prop) 78% of the host CPU was
#       that search (perf). At 1024 ranks hca3+prop: 15.9 -> 11.4 s CPU; simulated duration
#       0.142997 -> 0.142994 s (sends wait for their receive).
#   surf/precision:1e-12          smpirun's default (1e-9 s) rounds simulated event times to about a
#       nanosecond: a pair's fit over 20 ms then sees sub-ns steps, a slope up to ~0.05 ppm off,
#       0.1-1 µs after 10 s whatever the algorithm (hca3 at 64 ranks, ±1 ppm: 1.06 µs at 10 s;
#       with 1e-12: 0.0015 µs), and a shift of a few ns in the protocol moved it (hier 0.020 ->
#       0.166 µs). 1e-12 s is far above a double's resolution at the simulated times used (< 100 s).
# Anything in SIM_CFG is passed to smpirun as well (e.g. SIM_CFG="--cfg=network/model:LV08").
# Time is simulated: a wait of 10 s costs no host time, and the drivers' real-time watchdog is
# off. The truth of isochron-clock's accuracy check is the simulated time (all hosts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
topo=fattree rph=1 pfile=
while getopts "t:r:p:h" o; do
  case $o in
    t) topo=$OPTARG ;;
    r) rph=$OPTARG ;;
    p) pfile=$OPTARG ;;
    *) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: sim/run.sh [-t fattree|dragonfly|flat] [-r RANKS_PER_HOST] NP DRIVER [options...]" >&2; exit 2; }
np=$1 driver=$2
shift 2
case $driver in
  isochron-clock|isochron-bench|isochron-barrier) ;;
  *) echo "sim/run.sh: unknown driver '$driver'; valid: isochron-clock, isochron-bench, isochron-barrier" >&2; exit 2 ;;
esac
command -v smpirun >/dev/null || { echo "sim/run.sh: smpirun not found; install libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh)" >&2; exit 2; }
bin=${SIM_BUILD:-$here/build}/$driver
[ -x "$bin" ] || bash "$here/build.sh" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$topo-$np-$rph
if [ -n "$pfile" ] || [ -f "$here/platforms/$name.xml" ]; then
  plat=${pfile:-$here/platforms/$name.xml}
  [ -f "$plat" ] || { echo "sim/run.sh: -p $plat: no such platform file" >&2; exit 2; }
  awk -v h=$((np / rph)) -v r="$rph" 'BEGIN { for (i = 0; i < h; i++) for (j = 0; j < r; j++) printf "node-%d\n", i }' > "$tmp/hosts"
  hosts=$tmp/hosts
else
  { read -r plat; read -r hosts; } < <(bash "$here/platform.sh" "$topo" "$np" "$rph" "$tmp")
fi
# smpirun exits 0 when SimGrid finds the simulated ranks deadlocked: it ends the simulation with a
# CRITICAL "Deadlock detected" line on stderr, and the run looked finished (isochron-barrier's cost
# experiment did so for every point-to-point barrier). Its stderr is therefore copied to a file as
# it passes, and a deadlock fails the run (exit 3).
set +e
# shellcheck disable=SC2086
{ smpirun -np "$np" -platform "$plat" -hostfile "$hosts" -no-privatize \
  --log=root.thres:warning --log=xbt_cfg.thres:warning --cfg=smpi/simulate-computation:no \
  --cfg=contexts/stack-size:512 --cfg=surf/precision:1e-12 \
  --cfg=smpi/gather:ompi_binomial --cfg=smpi/allreduce:rdb --cfg=smpi/allgather:rdb \
  --cfg=smpi/send-is-detached-thresh:0 ${SIM_CFG:-} "$bin" "$@" 2>&1 1>&3 3>&- | tee "$tmp/stderr" >&2; } 3>&1
rc=$?
set -e
if grep -q "Deadlock detected" "$tmp/stderr"; then
  echo "sim/run.sh: SimGrid found the simulated ranks of $driver deadlocked (its message is above): the run did not finish" >&2
  exit 3
fi
exit "$rc"
