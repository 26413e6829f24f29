#!/usr/bin/env bash
# Build the isochron drivers with SimGrid's smpicc (SMPI) into sim/build/ (or $SIM_BUILD), to run
# the same code on simulated platforms:
#   smpirun -np N -platform sim/platforms/P.xml -hostfile H sim/build/isochron-clock ...
# (sim/run.sh does that for a generated platform). The library modules are those CMake builds
# (CMakeLists.txt's ISOCHRON_MODULES), without OpenSHMEM; -DSMPI_ISOCHRON selects the simulated
# waits (src/core/util.c) and truth clock (src/timer/timer.c). Incremental: a source newer than its
# object is recompiled, two at a time.
# Needs Debian's libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v smpicc >/dev/null || { echo "sim/build.sh: smpicc not found; install libsimgrid-dev (EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh)" >&2; exit 2; }
out=${SIM_BUILD:-sim/build}
mkdir -p "$out/obj" "$out/apps"
modules=$(sed -n 's/^set(ISOCHRON_MODULES \(.*\))$/\1/p' CMakeLists.txt)
[ -n "$modules" ] || { echo "sim/build.sh: cannot read ISOCHRON_MODULES from CMakeLists.txt" >&2; exit 2; }
CFLAGS="-std=c11 -O2 -g -D_GNU_SOURCE -DSMPI_ISOCHRON -DISOCHRON_HAVE_HWLOC=0 -Iinclude -Isrc -Iapps"
newest_header=$(ls -t include/*.h include/isochron/*.h src/*/*.h apps/*.h | head -1)
jobs=()
compile() { # src obj
  if [ ! -f "$2" ] || [ "$1" -nt "$2" ] || [ "$newest_header" -nt "$2" ]; then
    smpicc $CFLAGS -c "$1" -o "$2" &
    jobs+=($!)
    if [ ${#jobs[@]} -ge 2 ]; then wait "${jobs[0]}"; jobs=("${jobs[@]:1}"); fi
  fi
}
objs=()
for m in $modules; do
  for f in src/"$m"/*.c; do
    o="$out/obj/${m}_$(basename "${f%.c}").o"
    compile "$f" "$o"
    objs+=("$o")
  done
done
for f in options run_context clock_setup process sweep_output; do compile "apps/$f.c" "$out/obj/apps_$f.o"; objs+=("$out/obj/apps_$f.o"); done
for app in isochron-clock isochron-bench isochron-barrier; do compile "apps/$app.c" "$out/apps/$app.o"; done
for j in "${jobs[@]}"; do wait "$j"; done
rm -f "$out"/obj/shmem_*.o
for app in isochron-clock isochron-bench isochron-barrier; do
  smpicc "${objs[@]}" "$out/apps/$app.o" -o "$out/$app" -lm
  echo "built $out/$app"
done
