#!/usr/bin/env bash
# Fuzz the parsers of everything a user types (fuzz/fuzz_specs.c) with
# clang's libFuzzer, ASan and UBSan, for a bounded time, starting from the
# committed corpus (fuzz/corpus; new inputs found go to a scratch copy, not
# into the repository). Installs clang from Debian if missing.
#   bash tools/fuzz.sh            # 30 s
#   SECONDS_PER_RUN=600 bash tools/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
T=${SECONDS_PER_RUN:-30}
EXTRA_PKGS="clang libclang-rt-14-dev" bash tools/install-deps.sh
out=build-fuzz
mkdir -p "$out"
# the library (its modules as CMakeLists.txt lists them: not the tracer, the PMPI layers or
# OpenSHMEM, which are libraries of their own) and the drivers' parsers, all instrumented
mods=$(sed -n 's/^set(ISOCHRON_MODULES \(.*\))$/\1/p' CMakeLists.txt)
[ -n "$mods" ] || { echo "fuzz: FAIL: no ISOCHRON_MODULES in CMakeLists.txt"; exit 1; }
srcs=()
for m in $mods; do srcs+=(src/"$m"/*.c); done
OMPI_CC=clang mpicc -std=c11 -g -O1 -D_GNU_SOURCE -DISOCHRON_HAVE_HWLOC=0 -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -Iinclude -Isrc -Iapps "${srcs[@]}" apps/options.c apps/run_context.c apps/clock_setup.c apps/process.c fuzz/fuzz_specs.c -lm -o "$out/fuzz_specs"
rm -rf "$out/corpus" && cp -r fuzz/corpus "$out/corpus"
"$out/fuzz_specs" -max_total_time="$T" -max_len=256 -timeout=10 -print_final_stats=1 -artifact_prefix="$out/" "$out/corpus" 2>"$out/fuzz.log" || {
  tail -40 "$out/fuzz.log"; echo "fuzz: FAIL (crash or broken invariant; the input is in $out)"; exit 1; }
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$')
echo "fuzz: PASS: $execs executions in $T s, corpus $(ls fuzz/corpus | wc -l) seeds -> $(ls "$out/corpus" | wc -l) inputs"
