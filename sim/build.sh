#!/usr/bin/env bash
# Build the isochron drivers with SimGrid's smpicc (SMPI) into sim/build/, to run the
# same code on simulated platforms: smpirun -np N -platform P.xml -hostfile H sim/build/isochron-clock ...
# Needs Debian's libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=sim/build
mkdir -p "$out/obj" "$out/apps"
for f in src/*/*.c apps/common.c; do
  smpicc -std=c11 -O2 -D_GNU_SOURCE -DSMPI_ISOCHRON -DISOCHRON_HAVE_HWLOC=0 -Iinclude -Isrc -Iapps \
    -c "$f" -o "$out/obj/$(basename "$(dirname "$f")")_$(basename "${f%.c}").o"
done
for app in isochron-clock isochron-bench isochron-barrier; do
  smpicc -std=c11 -O2 -D_GNU_SOURCE -DSMPI_ISOCHRON -Iinclude -Iapps -c "apps/$app.c" -o "$out/apps/$app.o"
  smpicc "$out"/obj/*.o "$out/apps/$app.o" -o "$out/$app" -lm
  echo "built $out/$app"
done
