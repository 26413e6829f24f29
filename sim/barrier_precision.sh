#!/usr/bin/env bash
# Barrier precision without noise: isochron-barrier's skew experiment under
# SimGrid (SMPI) on a simulated cluster of N hosts (1 us links, 10 GB/s),
# with host computation not injected (--cfg=smpi/simulate-computation:no),
# so every run is deterministic. Twice: all ranks start together, and ranks
# arrive after random delays of up to SPREAD (paper 004's delayed nodes).
# A benchmark, not a test. usage: sim/barrier_precision.sh ; env N (16), CALLS (30), SPREAD (30us)
# Needs Debian's libsimgrid-dev (installed here through tools/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-16}
CALLS=${CALLS:-30}
SPREAD=${SPREAD:-30us}
EXTRA_PKGS="libsimgrid-dev" bash tools/install-deps.sh
bash sim/build.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <cluster id="c" prefix="node-" radical="0-$((N - 1))" suffix="" speed="1Gf" bw="10GBps" lat="1us" bb_bw="100GBps" bb_lat="1us"/>
  </zone>
</platform>
XML
for i in $(seq 0 $((N - 1))); do echo "node-$i"; done > "$tmp/hosts"
echo "isochron barrier precision under SimGrid $(smpirun -version 2>/dev/null | head -1 || true): $N simulated hosts, $CALLS calls"
for sp in 0 "$SPREAD"; do
  smpirun -np "$N" -platform "$tmp/platform.xml" -hostfile "$tmp/hosts" --cfg=smpi/simulate-computation:no \
    sim/build/isochron-barrier --experiments skew --calls "$CALLS" --late-tolerance 1ms --skew-spread "$sp" --quiet 2>&1 | grep -v '^\['
done
