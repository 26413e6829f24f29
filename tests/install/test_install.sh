#!/usr/bin/env bash
# isochron installs like an HPC library: `cmake --install` into a fresh prefix,
# then examples/ is built out of tree against it three ways (CMake package with
# the shared library, CMake package with the static one, pkg-config with the
# MPI compiler wrappers) and each build runs on 2 ranks: the C example
# opt_scatter and the C++ one cpp_hello (the public headers are extern "C"),
# and cc_checkpoint over isochron::isochron_cc; then projects that enable only
# C++ (cpp_hello, shared and static) or only Fortran (tests/install/*_only),
# built with the plain compilers. The shared library
# must export the public API and nothing private; every library installed is
# in the CMake package and has its pkg-config file.
#   test_install.sh BUILD_DIR SOURCE_DIR MPICC [MPICXX]
# MPICXX (default: MPICC with mpicc replaced by mpicxx, e.g. mpicxx.mpich) builds cpp_hello
# with pkg-config.
set -euo pipefail
build=$1 src=$2 mpicc=$3
mpicxx=${4:-$(sed 's|mpicc\([^/]*\)$|mpicxx\1|' <<<"$mpicc")}
command -v "$mpicxx" >/dev/null || { echo "test_install: FAIL: no MPI C++ compiler wrapper '$mpicxx' (pass it as 4th argument)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libisochron.so' | head -1)")
[ -n "$libdir" ] || { echo "test_install: FAIL: no libisochron.so installed"; exit 1; }
for f in include/isochron.h include/isochron/bench.h bin/isochron-bench bin/isochron-clock bin/isochron-barrier share/man/man1/isochron-bench.1; do
  [ -e "$prefix/$f" ] || { echo "test_install: FAIL: $f not installed"; exit 1; }
done
[ -e "$libdir/libisochron.a" ] || { echo "test_install: FAIL: no static library"; exit 1; }
[ -e "$libdir/libisochron-cc.so" ] && [ -e "$prefix/include/isochron/cc.h" ] || { echo "test_install: FAIL: libisochron-cc.so or isochron/cc.h not installed"; exit 1; }
# the optional parts: installed, in the CMake package and in pkg-config exactly when the build has them
targets=$(cat "$libdir"/cmake/isochron/isochronTargets*.cmake)
check_part() { # part built-file installed-file target pc
  local part=$1 built=$2 inst=$3 target=$4 pc=$5
  if [ -e "$build/$built" ]; then
    [ -e "$prefix/$inst" ] || { echo "test_install: FAIL: $part built but $inst not installed"; exit 1; }
    grep -q "add_library($target " <<<"$targets" || { echo "test_install: FAIL: $target not in the CMake package"; exit 1; }
    [ -e "$libdir/pkgconfig/$pc.pc" ] || { echo "test_install: FAIL: $pc.pc not installed"; exit 1; }
    echo "  $part: $inst, $target, $pc.pc"
  else
    echo "  $part: not built here"
  fi
}
check_part cc libisochron-cc.so lib/libisochron-cc.so isochron::isochron_cc isochron-cc
check_part tracer libisochron-trace.so lib/libisochron-trace.so isochron::isochron_trace isochron-trace
check_part "OpenSHMEM library" libisochron_shmem.a lib/libisochron_shmem.a isochron::isochron_shmem isochron-shmem
check_part "OpenSHMEM driver" isochron-shmem bin/isochron-shmem isochron::isochron_shmem isochron-shmem
# ABI: public functions exported, private helpers (declared under src/) not
syms=$(nm -D --defined-only "$libdir/libisochron.so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}')
for s in isochron_bench_measure isochron_sync_run isochron_ops_find; do
  grep -qx "$s" <<<"$syms" || { echo "test_install: FAIL: public $s not exported"; exit 1; }
done
for s in isochron_pair_begin isochron_hca3_tree isochron_nap; do
  if grep -qx "$s" <<<"$syms"; then echo "test_install: FAIL: private $s exported"; exit 1; fi
done
other=$(grep -v '^isochron_' <<<"$syms" || true)
[ -z "$other" ] || { echo "test_install: FAIL: exported without the isochron_ prefix: $other"; exit 1; }
# the version script names only functions the library has (ld accepts names it lacks silently)
map=$(grep -o 'isochron_[A-Za-z0-9_]*' "$build/isochron.map" | sort)
missing=$(comm -23 <(echo "$map") <(sort <<<"$syms"))
[ -z "$missing" ] || { echo "test_install: FAIL: isochron.map names functions libisochron.so lacks: $missing"; exit 1; }
echo "  exported: $(wc -l <<<"$syms") symbols, all isochron_*, none of the private ones checked"
run() { "$src/tools/mpirun-local" -np 2 "$@"; }
for link in shared static; do
  cmake -S "$src/examples" -B "$tmp/ex-$link" -DCMAKE_PREFIX_PATH="$prefix" -DISOCHRON_LINK=$link -DCMAKE_C_COMPILER="$mpicc" -DCMAKE_CXX_COMPILER="$mpicxx" >/dev/null
  cmake --build "$tmp/ex-$link" >/dev/null
  out=$(run "$tmp/ex-$link/opt_scatter")
  grep -q "data validated" <<<"$out" || { echo "test_install: FAIL: find_package build ($link) did not run"; echo "$out"; exit 1; }
  out=$(run "$tmp/ex-$link/sweep")
  grep -q "^4 points, 0 skipped" <<<"$out" && grep -q "^allreduce *65536 B  median" <<<"$out" ||
    { echo "test_install: FAIL: find_package build ($link): the library's sweep did not run"; echo "$out"; exit 1; }
  out=$(run "$tmp/ex-$link/cpp_hello")
  grep -q "^clocks synchronized with hca3" <<<"$out" && grep -q ": ENAME: unknown timer 'no_such_timer'" <<<"$out" ||
    { echo "test_install: FAIL: find_package C++ build ($link) did not run"; echo "$out"; exit 1; }
  echo "  find_package(isochron), $link: built and ran opt_scatter and sweep (C) and cpp_hello (C++)"
done
# consumers that enable one language only, built with the plain compilers (every MPI flag from the
# imported targets; isochronConfig.cmake looks MPI up through CXX or Fortran there, as FindMPI refuses C)
for link in shared static; do
  cmake -S "$src/tests/install/cxx_only" -B "$tmp/cxx-$link" -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLES="$src/examples" \
    -DISOCHRON_LINK=$link -DMPI_CXX_COMPILER="$mpicxx" >"$tmp/cxx-$link.log" 2>&1 && cmake --build "$tmp/cxx-$link" >>"$tmp/cxx-$link.log" 2>&1 ||
    { cat "$tmp/cxx-$link.log"; echo "test_install: FAIL: a CXX-only project ($link) cannot build against find_package(isochron)"; exit 1; }
  out=$(run "$tmp/cxx-$link/cpp_hello")
  grep -q "^clocks synchronized with hca3" <<<"$out" || { echo "test_install: FAIL: the CXX-only build ($link) did not run"; echo "$out"; exit 1; }
  echo "  project(... CXX) only, $link: find_package(isochron) built cpp_hello with $(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$tmp/cxx-$link/CMakeCache.txt"), ran"
done
# Fortran only: where this MPI has a Fortran wrapper beside mpicc and a Fortran compiler is on PATH
mpifort=$(dirname "$(command -v "$mpicc")")/$(sed 's|mpicc\([^/]*\)$|mpifort\1|' <<<"$(basename "$mpicc")")
fc=${FC:-$(compgen -c gfortran | sort -V | tail -1)}
if [ -x "$mpifort" ] && [ -n "$fc" ] && command -v "$fc" >/dev/null; then
  cmake -S "$src/tests/install/fortran_only" -B "$tmp/fortran" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_Fortran_COMPILER="$fc" \
    -DMPI_Fortran_COMPILER="$mpifort" >"$tmp/fortran.log" 2>&1 && cmake --build "$tmp/fortran" >>"$tmp/fortran.log" 2>&1 ||
    { cat "$tmp/fortran.log"; echo "test_install: FAIL: a Fortran-only project cannot build against find_package(isochron)"; exit 1; }
  out=$(run "$tmp/fortran/fortran_hello")
  grep -q "^fortran_hello: 2 ranks, sum of 250ms = .500 s, rc 0, rc for 'soon' -[1-9]" <<<"$out" ||
    { echo "test_install: FAIL: the Fortran-only build did not run"; echo "$out"; exit 1; }
  echo "  project(... Fortran) only: find_package(isochron) built fortran_hello with $fc, ran"
else
  echo "  project(... Fortran) only: not tried (Fortran wrapper '$mpifort', compiler '${fc:-none}' on PATH)"
fi
out=$(run "$tmp/ex-shared/cc_checkpoint" 20 1000 2>&1)
grep -q "^residual" <<<"$out" || { echo "test_install: FAIL: cc_checkpoint (isochron::isochron_cc) did not run"; echo "$out"; exit 1; }
echo "  find_package(isochron COMPONENTS cc): cc_checkpoint built and ran"

if ! command -v pkg-config >/dev/null; then
  echo "  pkg-config: not on PATH, its builds not tried (the .pc files: $(cd "$libdir/pkgconfig" && echo *.pc))"
  echo "test_install: PASS"
  exit 0
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
for pc in "$libdir"/pkgconfig/*.pc; do
  pkg-config --cflags --libs "$(basename "$pc" .pc)" >/dev/null || { echo "test_install: FAIL: pkg-config cannot read $pc"; exit 1; }
done
echo "  pkg-config files: $(cd "$libdir/pkgconfig" && echo *.pc)"
"$mpicc" -std=c11 $(pkg-config --cflags isochron) "$src/examples/opt_scatter.c" -o "$tmp/opt_scatter_pc" $(pkg-config --libs isochron) -lm
out=$(LD_LIBRARY_PATH="$libdir" run "$tmp/opt_scatter_pc")
grep -q "data validated" <<<"$out" || { echo "test_install: FAIL: pkg-config build did not run"; echo "$out"; exit 1; }
echo "  pkg-config isochron $(pkg-config --modversion isochron): built and ran"
"$mpicxx" -std=c++11 $(pkg-config --cflags isochron) "$src/examples/cpp_hello.cpp" -o "$tmp/cpp_hello_pc" $(pkg-config --libs isochron)
out=$(LD_LIBRARY_PATH="$libdir" run "$tmp/cpp_hello_pc")
grep -q "^clocks synchronized with hca3" <<<"$out" || { echo "test_install: FAIL: pkg-config C++ build did not run"; echo "$out"; exit 1; }
echo "  pkg-config isochron with $mpicxx: cpp_hello built and ran"
echo "test_install: PASS"
