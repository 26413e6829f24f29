#!/usr/bin/env bash
# Simulated clusters for SimGrid SMPI (sim/run.sh, bench/sim_scale.sh): writes a platform XML and the
# hostfile that places RANKS ranks at RPH ranks per host.
#   usage: sim/platform.sh TOPO RANKS RPH OUTDIR      TOPO: fattree | dragonfly | flat
#   prints: the platform file and the hostfile, one per line
# Hosts (node-0 .. node-H-1, H = RANKS/RPH, a power of two from 4 to 16384) have one core each at
# 1 Gflop/s (computation is not simulated by sim/run.sh, so the speed only matters for codes that
# call smpi_execute). Network, in the spirit of the machines of paper 000 (Titan, a 3-D torus, is
# not a SimGrid topology; a fat tree and a dragonfly are):
#   fattree    two-level fat tree (SimGrid FAT_TREE): 16 hosts per leaf switch up to 256 hosts,
#              then sqrt-sized leaves; every leaf has min(8, #leaves) uplinks. Links 1 us, 12.5 GB/s.
#   dragonfly  SimGrid DRAGONFLY: groups of 4 chassis x 4 routers, 4 hosts per router (the
#              number of groups follows from H); 1 us links, 12.5 GB/s.
#   flat       one crossbar (cluster without topology): every pair 2 hops of 1 us (the platform of
#              sim/barrier_precision.sh); for small checks.
# Loopback (ranks of one host): 0.1 us, 50 GB/s. The committed sim/platforms/*.xml are this
# script's output for 64 .. 16384 ranks; the hostfile (one line per rank: rank r on node-(r/RPH)) is written beside it.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: sim/platform.sh fattree|dragonfly|flat RANKS RPH OUTDIR" >&2; exit 2; }
topo=$1 ranks=$2 rph=$3 out=$4
case "$ranks$rph" in *[!0-9]*|'') echo "sim/platform.sh: RANKS and RPH must be positive integers" >&2; exit 2;; esac
[ "$rph" -ge 1 ] && [ $((ranks % rph)) -eq 0 ] || { echo "sim/platform.sh: RANKS ($ranks) must be a multiple of RPH ($rph)" >&2; exit 2; }
hosts=$((ranks / rph))
pow2() { local n=$1; [ "$n" -ge 1 ] && [ $((n & (n - 1))) -eq 0 ]; }
pow2 "$hosts" && [ "$hosts" -ge 4 ] && [ "$hosts" -le 16384 ] || { echo "sim/platform.sh: RANKS/RPH = $hosts hosts; must be a power of two in [4, 16384]" >&2; exit 2; }
mkdir -p "$out"
common="prefix=\"node-\" radical=\"0-$((hosts - 1))\" suffix=\"\" speed=\"1Gf\" bw=\"12.5GBps\" lat=\"1us\" loopback_bw=\"50GBps\" loopback_lat=\"0.1us\""
case "$topo" in
  fattree)
    if [ "$hosts" -le 256 ]; then down1=$(( hosts < 16 ? hosts : 16 )); else
      down1=1; while [ $((down1 * down1)) -lt "$hosts" ]; do down1=$((down1 * 2)); done
    fi
    leaves=$((hosts / down1)); up=$(( leaves < 8 ? leaves : 8 ))
    attrs="topology=\"FAT_TREE\" topo_parameters=\"2;$down1,$leaves;1,$up;1,1\""
    name="fattree-$ranks-$rph" ;;
  dragonfly)
    [ "$hosts" -ge 64 ] || { echo "sim/platform.sh: dragonfly needs at least 64 hosts (groups of 4x4x4); got $hosts" >&2; exit 2; }
    groups=$((hosts / 64))
    attrs="topology=\"DRAGONFLY\" topo_parameters=\"$groups,1;4,1;4,1;4\""
    name="dragonfly-$ranks-$rph" ;;
  flat)
    attrs="bb_bw=\"100GBps\" bb_lat=\"0us\""
    name="flat-$ranks-$rph" ;;
  *) echo "sim/platform.sh: unknown topology '$topo'; valid: fattree, dragonfly, flat" >&2; exit 2 ;;
esac
cat > "$out/$name.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- isochron sim/platform.sh $topo $ranks $rph: $hosts hosts -->
<platform version="4.1">
  <cluster id="c" $common $attrs/>
</platform>
XML
awk -v h="$hosts" -v r="$rph" 'BEGIN { for (i = 0; i < h; i++) for (j = 0; j < r; j++) printf "node-%d\n", i }' > "$out/$name.hosts"
echo "$out/$name.xml"
echo "$out/$name.hosts"
