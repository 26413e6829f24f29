#!/usr/bin/env bash
# Install what isochron needs from Debian's packages, only if something is missing.
set -euo pipefail
# openmpi-bin + libopenmpi-dev also bring OpenSHMEM (oshmem: oshcc, oshrun, shmem.h, liboshmem) for isochron-shmem
# libotf2-trace-dev + otf2-tools: the tracer's OTF2 writer and its tests (otf2-print); libsimgrid-dev: sim/ (SMPI runs at scale)
# issue 28 (tests/apps, bench/apps): lammps = Debian's LAMMPS (lmp, Open MPI): ~14 MB download, ~70 MB installed, for test
# apps_lammps; quantum-espresso + quantum-espresso-data (pw.x, pseudopotentials in /usr/share/espresso/pseudo) are
# for bench/apps/qe.sh only and not installed here (APPS_BENCH=1 adds them: ~360 MB installed)
apps_pkgs=(lammps)
[ "${APPS_BENCH:-0}" = 1 ] && apps_pkgs+=(quantum-espresso quantum-espresso-data)
pkgs=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhwloc-dev python3 python3-venv python3-pip valgrind libotf2-trace-dev otf2-tools libsimgrid-dev "${apps_pkgs[@]}" ${EXTRA_PKGS:-})
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
