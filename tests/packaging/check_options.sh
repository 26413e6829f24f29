#!/usr/bin/env bash
# check_options: the optional parts' cache options (cmake/optional.cmake, issue 27) behave as documented
# in docs/install.md, on this source tree configured afresh (configure only, no build):
#   - a value outside AUTO/ON/OFF fails configuring with one message naming the option, the value and
#     the valid values;
#   - ISOCHRON_WITH_OTF2/SHMEM/SIMGRID=OFF configure, print one "off" line each, do not look for the
#     part (no OTF2_LIBRARY, SHMEM_LIBRARY, ISOCHRON_SMPICC in the cache), define no isochron-trace or
#     isochron-shmem target, and register exactly the tests of BUILD_DIR (the enclosing build) less
#     those of the parts (trace_*, pmpi_coverage_trace, shmem_*, cli_shmem_*, sim_*).
#   check_options.sh SOURCE_DIR BUILD_DIR C_COMPILER MPI_C_COMPILER
# Prints what it saw and "check_options: PASS", or "check_options: FAIL: ..." first.
set -uo pipefail
src=$1 build=$2 cc=$3 mpicc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_options: FAIL: $*"; exit 1; }
configure() { cmake -S "$src" -B "$1" -DCMAKE_C_COMPILER="$cc" -DMPI_C_COMPILER="$mpicc" "${@:2}" 2>&1; }

out=$(configure "$tmp/bad" -DISOCHRON_WITH_SHMEM=maybe) && fail "ISOCHRON_WITH_SHMEM=maybe was accepted"
flat=$(tr -s ' \n' ' ' <<<"$out")
grep -q "isochron: ISOCHRON_WITH_SHMEM=maybe is not valid; valid values: AUTO, ON, OFF" <<<"$flat" ||
  { echo "$out"; fail "ISOCHRON_WITH_SHMEM=maybe refused without naming the valid values"; }
echo "  ISOCHRON_WITH_SHMEM=maybe: refused, valid values named"

out=$(configure "$tmp/off" -DISOCHRON_WITH_OTF2=OFF -DISOCHRON_WITH_SHMEM=OFF -DISOCHRON_WITH_SIMGRID=OFF) ||
  { echo "$out"; fail "configuring with the three parts OFF failed"; }
for v in OTF2 SHMEM SIMGRID; do
  line=$(grep -- "-- isochron: ISOCHRON_WITH_$v=OFF: off: " <<<"$out") || { echo "$out"; fail "no 'off' line for ISOCHRON_WITH_$v"; }
  echo "  ${line#-- }"
done
for var in OTF2_LIBRARY SHMEM_LIBRARY ISOCHRON_SMPICC; do
  ! grep -q "^$var:" "$tmp/off/CMakeCache.txt" || fail "$var was looked for although its part is OFF"
done
targets=$(cmake --build "$tmp/off" --target help 2>&1)
for t in isochron-trace isochron-shmem isochron_shmem; do
  ! grep -q "\.\.\. $t\$" <<<"$targets" || fail "target $t defined although its part is OFF"
done
names() { (cd "$1" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' | sort; }
parts='^(trace_|pmpi_coverage_trace$|shmem_|cli_shmem_|sim_)'
full=$(names "$build") off=$(names "$tmp/off")
[ -n "$full" ] && [ -n "$off" ] || fail "no tests listed (build: $(wc -l <<<"$full"), off: $(wc -l <<<"$off"))"
expected=$(grep -Ev "$parts" <<<"$full")
if [ "$off" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$off") | head -20
  fail "the OFF build's tests are not the build's tests less the optional parts' (< missing, > extra)"
fi
echo "  all OFF: $(wc -l <<<"$off") tests registered of this build's $(wc -l <<<"$full") ($(grep -Ec "$parts" <<<"$full") of trace, shmem, sim left out)"
echo "check_options: PASS"
