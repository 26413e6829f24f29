# shellcheck shell=bash
# Helpers shared by the benchmark scripts bench/*.sh: sourced, not run (bench/papers/common.sh is
# the paper reproductions' own). A benchmark script starts with
#   set -euo pipefail
#   . "$(dirname "$0")/common.sh"
#   bench_init NP=2 LAUNCHES=6 ...
#
#   bench_init NAME=DEFAULT...   each setting NAME from the environment, else (unset or empty) its
#                                DEFAULT, and BUILD (build) and PY (python3) likewise; cd to the
#                                repository; OUT, a scratch directory removed at exit (KEEP, when
#                                given, is used instead and kept); this checkout's isochron package
#                                on PYTHONPATH
#   bench_quick NAME=VALUE...    with BENCH_QUICK=1 (a smoke run: tests/bench_scripts), each NAME the
#                                user did not set becomes VALUE; call it before bench_init
#   bench_load                   "a b c": the 1, 5 and 15 minute load averages
#   bench_cores                  "N cores, load a b c": the machine in a table's title

bench_init() { # NAME=DEFAULT...
  local kv name
  for kv in "$@" BUILD=build PY=python3; do
    name=${kv%%=*}
    [ -n "${!name:-}" ] || printf -v "$name" '%s' "${kv#*=}"
  done
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  OUT=${KEEP:-$(mktemp -d)}
  [ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
  mkdir -p "$OUT"
  export PYTHONPATH="$PWD/python/src${PYTHONPATH:+:$PYTHONPATH}"
}

bench_quick() { # NAME=VALUE...
  local kv name
  [ -n "${BENCH_QUICK:-}" ] || return 0
  for kv in "$@"; do
    name=${kv%%=*}
    [ -n "${!name:-}" ] || printf -v "$name" '%s' "${kv#*=}"
  done
}

bench_load() { cut -d' ' -f1-3 /proc/loadavg; }

bench_cores() { echo "$(nproc) cores, load $(bench_load)"; }
