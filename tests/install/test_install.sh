#!/usr/bin/env bash
# isochron installs like an HPC library: `cmake --install` into a fresh prefix,
# then examples/ is built out of tree against it three ways (CMake package with
# the shared library, CMake package with the static one, pkg-config with the
# MPI compiler wrapper) and each build runs on 2 ranks. The shared library
# must export the public API and nothing private.
#   test_install.sh BUILD_DIR SOURCE_DIR MPICC
set -euo pipefail
build=$1 src=$2 mpicc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libisochron.so' | head -1)")
[ -n "$libdir" ] || { echo "test_install: FAIL: no libisochron.so installed"; exit 1; }
for f in include/isochron.h include/isochron/bench.h bin/isochron-bench bin/isochron-clock bin/isochron-barrier; do
  [ -e "$prefix/$f" ] || { echo "test_install: FAIL: $f not installed"; exit 1; }
done
[ -e "$libdir/libisochron.a" ] || { echo "test_install: FAIL: no static library"; exit 1; }
[ -e "$libdir/libisochron-cc.so" ] && [ -e "$prefix/include/isochron/cc.h" ] || { echo "test_install: FAIL: libisochron-cc.so or isochron/cc.h not installed"; exit 1; }
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
echo "  exported: $(wc -l <<<"$syms") symbols, all isochron_*, none of the private ones checked"
run() { "$src/tools/mpirun-local" -np 2 "$@"; }
for link in shared static; do
  cmake -S "$src/examples" -B "$tmp/ex-$link" -DCMAKE_PREFIX_PATH="$prefix" -DISOCHRON_LINK=$link -DCMAKE_C_COMPILER="$mpicc" >/dev/null
  cmake --build "$tmp/ex-$link" >/dev/null
  out=$(run "$tmp/ex-$link/opt_scatter")
  grep -q "data validated" <<<"$out" || { echo "test_install: FAIL: find_package build ($link) did not run"; echo "$out"; exit 1; }
  echo "  find_package(isochron), $link: built and ran"
done
export PKG_CONFIG_PATH="$libdir/pkgconfig"
"$mpicc" -std=c11 $(pkg-config --cflags isochron) "$src/examples/opt_scatter.c" -o "$tmp/opt_scatter_pc" $(pkg-config --libs isochron) -lm
out=$(LD_LIBRARY_PATH="$libdir" run "$tmp/opt_scatter_pc")
grep -q "data validated" <<<"$out" || { echo "test_install: FAIL: pkg-config build did not run"; echo "$out"; exit 1; }
echo "  pkg-config isochron $(pkg-config --modversion isochron): built and ran"
echo "test_install: PASS"
