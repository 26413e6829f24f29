#!/usr/bin/env bash
# Build isochron-clock with SimGrid's smpicc (SMPI) into sim/build/, to run the
# same code on simulated platforms: smpirun -np N -platform P.xml -hostfile H sim/build/isochron-clock ...
# Needs Debian's libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=sim/build
mkdir -p "$out/obj"
for f in src/*/*.c apps/*.c; do
  smpicc -std=c11 -O2 -D_GNU_SOURCE -DSMPI_ISOCHRON -DISOCHRON_HAVE_HWLOC=0 -Iinclude -Isrc -Iapps \
    -c "$f" -o "$out/obj/$(basename "${f%.c}").o"
done
smpicc "$out"/obj/*.o -o "$out/isochron-clock" -lm
echo "built $out/isochron-clock"
