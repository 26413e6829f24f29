#!/usr/bin/env bash
# Randomized stress of libisochron-cc.so's checkpoint protocol (issue 14, paper
# 003 sections 4.2-4.3): for each seed FIRST..LAST, tests/cc/cc_stress_run.sh
# runs tests/cc/cc_stress natively, under cc with checkpoint requests (state-log
# invariants checked by tests/cc/check_cc_log.py), killed after a checkpoint and
# restarted (checksums equal to the native run), and under 2pc.
#   usage: bench/cc_stress.sh FIRST LAST [NP]
#          NP: 2, 3 or 4 ranks; default cycles 2,3,4 with the seed.
#   env:   BUILD (default build), TIMEOUT (s per launch, default 60), OPS (default 300),
#          KILL_MODE (abort|exit, default: alternates with the seed), NO2PC=1,
#          ARGS (more cc_stress arguments, e.g. "--comm-kinds dup,split" or "--ops 600")
# One summary line per seed; exit status 1 if any seed failed (the failing
# seeds listed at the end, their outputs and logs kept under $TMPDIR).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
[ -z "${BENCH_QUICK:-}" ] || : "${OPS:=60}"   # BENCH_QUICK=1: short programs (the seeds are the arguments)
exe=$build/tests/cc_stress
if [ $# -lt 2 ] || ! [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || [ $1 -gt $2 ]; then
  echo "usage: bench/cc_stress.sh FIRST LAST [NP]   (seeds FIRST..LAST, NP 2..4)" >&2; exit 2
fi
if [ $# -ge 3 ] && ! [[ $3 =~ ^[234]$ ]]; then echo "cc_stress: NP must be 2, 3 or 4, got '$3'" >&2; exit 2; fi
[ -x "$exe" ] || { echo "cc_stress: $exe not built (cmake --build $build --target cc_stress)" >&2; exit 2; }
failed=() n=0 t0=$(date +%s)
for seed in $(seq "$1" "$2"); do
  np=${3:-$(( seed % 3 + 2 ))}
  km=${KILL_MODE:-$([ $(( seed % 2 )) -eq 0 ] && echo abort || echo exit)}
  extra=(); [ "${NO2PC:-0}" = 1 ] && extra+=(--no-2pc)
  [ -n "${ARGS:-}" ] && extra+=(--prog-args "$ARGS")
  "$here/tests/cc/cc_stress_run.sh" --exe "$exe" --np "$np" --seed "$seed" --ops "${OPS:-300}" \
    --timeout "${TIMEOUT:-60}" --kill-mode "$km" "${extra[@]}" || failed+=("$seed/np$np")
  n=$((n + 1))
done
echo "cc_stress: $n seeds in $(( $(date +%s) - t0 )) s, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
