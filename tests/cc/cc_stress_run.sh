#!/usr/bin/env bash
# One seed of the checkpoint stress test (issue 14, paper 003): cc_stress run
#   1. natively (ISOCHRON_CC_MODE=native): the reference checksums R;
#   2. under cc with checkpoint requests: checksums == R, and the state logs
#      pass check_cc_log.py (every safe-state invariant, every request served);
#   3. under cc with --kill: a seed-chosen rank ends the job after a checkpoint
#      completed; then restarted from the checkpoint directory: checksums == R,
#      logs of both parts checked;
#   4. under 2pc (unless --no-2pc), with requests: checksums == R and the state
#      logs pass check_cc_log.py; killed after a 2pc checkpoint and restarted
#      under 2pc: checksums == R (the summary counts rank 0's aborted attempts).
# Every launch is bounded by `timeout`; ISOCHRON_CC_TIMEOUT arms the library's
# watchdog, whose message (stuck rank and call) is shown on a timeout.
# Prints one summary line:
#   seed S np N ops O checkpoints C kill-restart ok invariants ok 2pc ok time T s: PASS
# and exits non-zero on any failure (the failing step named with its output).
set -u
usage() {
  echo "usage: cc_stress_run.sh --exe CC_STRESS [--np N] [--seed S] [--ops N] [--timeout SEC]"
  echo "                        [--kill-mode abort|exit] [--no-2pc] [--keep DIR] [--mpirun MPIRUN_LOCAL]"
  echo "                        [--prog-args 'more cc_stress arguments, e.g. --comm-kinds dup,split']"
}
here=$(cd "$(dirname "$0")" && pwd)
pargs=() exe="" np=3 seed=1 ops=300 tmo=60 kmode=abort do2pc=1 keep=""
mpirun_local=${MPIRUN_LOCAL:-$here/../../tools/mpirun-local}
py=${PYTHON:-python3}
while [ $# -gt 0 ]; do
  case "$1" in
    --exe) exe=$2; shift 2;;
    --np) np=$2; shift 2;;
    --seed) seed=$2; shift 2;;
    --ops) ops=$2; shift 2;;
    --timeout) tmo=$2; shift 2;;
    --kill-mode) kmode=$2; shift 2;;
    --no-2pc) do2pc=0; shift;;
    --keep) keep=$2; shift 2;;
    --mpirun) mpirun_local=$2; shift 2;;
    --prog-args) read -r -a pargs <<< "$2"; shift 2;;
    -h|--help) usage; exit 0;;
    *) echo "cc_stress_run.sh: unknown argument '$1'"; usage; exit 2;;
  esac
done
[ -x "$exe" ] || { echo "cc_stress_run.sh: --exe '$exe' is not an executable"; usage; exit 2; }
if [ -n "$keep" ]; then work=$keep; rm -rf "$work"; mkdir -p "$work"
else work=$(mktemp -d "${TMPDIR:-/tmp}/cc_stress.XXXXXX"); trap 'rm -rf "$work"' EXIT; fi
t_start=$(date +%s.%N)
fails=()
# the watchdog: two thirds of the launch timeout, so it fires first and names the stuck rank and call
export ISOCHRON_CC_TIMEOUT=${ISOCHRON_CC_TIMEOUT:-$(( tmo * 2 / 3 > 2 ? tmo * 2 / 3 : 2 ))}
unset ISOCHRON_CC_RESTART ISOCHRON_CC_INTERVAL ISOCHRON_CC_COMMAND

# launch NAME MODE [ENV=VAL ...] -- ARGS: runs one job, output in $work/NAME.out
launch() {
  local name=$1 mode=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env ISOCHRON_CC_MODE="$mode" "${envs[@]}" timeout -k 5 "$tmo" "$mpirun_local" -np "$np" "$exe" \
    --seed "$seed" --ops "$ops" "${pargs[@]}" "$@" > "$work/$name.out" 2>&1
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    fails+=("$name: TIMEOUT after ${tmo}s (deadlock?); watchdog/last output:")
    fails+=("$(grep -i -E 'isochron-cc|watchdog|stuck|timeout' "$work/$name.out" | head -8)")
    fails+=("$(tail -5 "$work/$name.out")")
  fi
  return $rc
}
why() { grep -q 'isochron-cc' "$1" && grep 'isochron-cc' "$1" | head -4 || grep -v '^cc_stress rank' "$1" | tail -5; }
sums() { grep -E '^cc_stress rank [0-9]+ checksum' "$1" | sort; }
same() {  # same NAME: checksums of NAME equal the native ones
  if [ "$(sums "$work/$1.out")" != "$(sums "$work/native.out")" ] || [ "$(sums "$work/$1.out" | wc -l)" -ne "$np" ]; then
    fails+=("$1: checksums differ from native:" "$(diff <(sums "$work/native.out") <(sums "$work/$1.out") | head -10)")
    return 1
  fi
  return 0
}
checklog() {  # checklog NAME DIR [ARGS]: invariants of the state log
  local name=$1 dir=$2; shift 2
  if ! "$py" "$here/check_cc_log.py" "$dir" --np "$np" "$@" > "$work/$name.check" 2>&1; then
    fails+=("$name: state-log invariants:" "$(grep -v PASS "$work/$name.check" | head -12)")
    return 1
  fi
  return 0
}
field() { sed -n "s/.*cc_stress seed .* $1 \([0-9-]*\).*/\1/p" "$2" | head -1; }

# 1. native reference
launch native native -- --requests 0
if ! grep -q ': done$' "$work/native.out"; then fails+=("native: did not finish:" "$(why "$work/native.out")"); fi
nops=$(field ops "$work/native.out")

# 2. cc with requests, no kill
inv=ok ckpts=0
mkdir -p "$work/cc/ckpt" "$work/cc/log"
launch cc cc ISOCHRON_CC_DIR="$work/cc/ckpt" ISOCHRON_CC_LOG="$work/cc/log" --
if grep -q ': done$' "$work/cc.out"; then
  same cc || true
  nreq=$(field requests "$work/cc.out"); ckpts=$(field checkpoints "$work/cc.out")
  minck=$([ "${nreq:-0}" -gt 0 ] && echo 1 || echo 0)
  checklog cc "$work/cc/log" --requests "${nreq:-0}" --min-checkpoints "$minck" || inv=FAIL
else
  fails+=("cc: did not finish:" "$(why "$work/cc.out")"); inv=FAIL
fi
grep -q '^FAIL' "$work/cc.out" && fails+=("cc: $(grep -m3 '^FAIL' "$work/cc.out")")

# 3. kill after the first checkpoint, restart
kr=ok
mkdir -p "$work/kill/ckpt" "$work/kill/log" "$work/kill/ckpt2" "$work/kill/log2"
launch kill cc ISOCHRON_CC_DIR="$work/kill/ckpt" ISOCHRON_CC_LOG="$work/kill/log" -- --kill --kill-mode "$kmode"
if ! grep -q 'killed at op' "$work/kill.out"; then
  kr=FAIL; fails+=("kill: no rank was killed after a checkpoint:" "$(grep -E 'FAIL|done' "$work/kill.out" | head -3)" "$(why "$work/kill.out")")
else
  checklog kill "$work/kill/log" --partial || inv=FAIL
  launch restart cc ISOCHRON_CC_RESTART="$work/kill/ckpt" ISOCHRON_CC_DIR="$work/kill/ckpt2" ISOCHRON_CC_LOG="$work/kill/log2" -- --kill-mode "$kmode"
  from=$(field restarted "$work/restart.out")
  if ! grep -q ': done$' "$work/restart.out" || [ "${from:-0}" -lt 1 ]; then
    kr=FAIL; fails+=("restart: did not finish restarted:" "$(why "$work/restart.out")")
  else
    same restart || kr=FAIL
    checklog restart "$work/kill/log2" --restarted "$from" || inv=FAIL
  fi
  grep -q '^FAIL' "$work/restart.out" && { kr=FAIL; fails+=("restart: $(grep -m3 '^FAIL' "$work/restart.out")"); }
fi

# 4. 2pc
p2=skip
if [ $do2pc -eq 1 ]; then
  mkdir -p "$work/2pc/log" "$work/2pc/ckpt"
  launch 2pc 2pc ISOCHRON_CC_DIR="$work/2pc/ckpt" ISOCHRON_CC_LOG="$work/2pc/log" --
  if grep -q ': done$' "$work/2pc.out" && same 2pc; then p2=ok; else p2=FAIL; fails+=("2pc:" "$(why "$work/2pc.out")"); fi
  if [ $p2 = ok ]; then   # its checkpoints (commit after aborts): the same invariants, all requests served
    nreq=$(field requests "$work/2pc.out")
    checklog 2pc "$work/2pc/log" --requests "${nreq:-0}" --min-checkpoints "$([ "${nreq:-0}" -gt 0 ] && echo 1 || echo 0)" || p2=FAIL
  fi
  # killed after a 2pc checkpoint, restarted from it under 2pc
  mkdir -p "$work/2pck/ckpt" "$work/2pck/log" "$work/2pck/ckpt2" "$work/2pck/log2"
  launch 2pckill 2pc ISOCHRON_CC_DIR="$work/2pck/ckpt" ISOCHRON_CC_LOG="$work/2pck/log" -- --kill --kill-mode "$kmode"
  if ! grep -q 'killed at op' "$work/2pckill.out"; then
    p2=FAIL; fails+=("2pc kill: no rank was killed after a checkpoint:" "$(why "$work/2pckill.out")")
  else
    checklog 2pckill "$work/2pck/log" --partial || p2=FAIL
    launch 2pcrestart 2pc ISOCHRON_CC_RESTART="$work/2pck/ckpt" ISOCHRON_CC_DIR="$work/2pck/ckpt2" ISOCHRON_CC_LOG="$work/2pck/log2" -- --kill-mode "$kmode"
    from=$(field restarted "$work/2pcrestart.out")
    if ! grep -q ': done$' "$work/2pcrestart.out" || [ "${from:-0}" -lt 1 ]; then
      p2=FAIL; fails+=("2pc restart: did not finish restarted:" "$(why "$work/2pcrestart.out")")
    else
      same 2pcrestart || p2=FAIL
      checklog 2pcrestart "$work/2pck/log2" --restarted "$from" || p2=FAIL
    fi
  fi
  aborts=$(cat "$work"/2pc/log/cc-log.0.jsonl "$work"/2pck/log/cc-log.0.jsonl 2>/dev/null | grep -c '"ev":"abort"')
  p2="$p2 2pc-aborts $aborts"
fi

t=$(awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
verdict=PASS; [ ${#fails[@]} -eq 0 ] || verdict=FAIL
printf 'seed %s np %s ops %s checkpoints %s kill-restart %s invariants %s 2pc %s time %.1f s: %s\n' \
  "$seed" "$np" "${nops:-?}" "${ckpts:-?}" "$kr" "$inv" "$p2" "$t" "$verdict"
if [ $verdict = FAIL ]; then
  for f in "${fails[@]}"; do [ -n "$f" ] && echo "$f" | sed 's/^/  /'; done
  [ -z "$keep" ] && { keep=${TMPDIR:-/tmp}/cc_stress.fail.$seed.np$np; rm -rf "$keep"; cp -r "$work" "$keep"; }
  echo "  outputs and logs kept in $keep"
  exit 1
fi
exit 0
