#!/usr/bin/env bash
# Bad settings of libisochron-cc.so (issue 30), one case a run:
#   test_cc_settings.sh CASE NP TEST_CC_SEQ TEST_CKPT
# A refused case must end the job in MPI_Init, before the application runs
# (test_cc_seq never prints its PASS line), with exit status non-zero and one
# message naming the variable and the value (and what is valid). Case
# "log_lost": the state log cannot be written (this rank's log file is a link
# to /dev/full: every line fails with ENOSPC): the program runs and
# checkpoints, and the job says so at MPI_Finalize, naming the file and the
# OS error, and exits non-zero.
set -uo pipefail
case=$1 np=$2 seq=$3 ckpt=$4
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_cc_settings $case: $*"; exit 1; }
: > "$tmp/file"
envs=()
case $case in
  poll_nan)      envs=(ISOCHRON_CC_POLL_MS=nan); want="ISOCHRON_CC_POLL_MS=nan: expected milliseconds in \[0.01, 1000\]" ;;
  poll_days)     envs=(ISOCHRON_CC_POLL_MS=1e9); want="ISOCHRON_CC_POLL_MS=1e9: expected milliseconds in \[0.01, 1000\]" ;;
  timeout_inf)   envs=(ISOCHRON_CC_TIMEOUT=inf); want="ISOCHRON_CC_TIMEOUT=inf: expected seconds in \[0.001, 86400\]" ;;
  interval_nan)  envs=(ISOCHRON_CC_INTERVAL=nan); want="ISOCHRON_CC_INTERVAL=nan: expected 0 \(off\) or seconds in \[0.01, 86400\]" ;;
  interval_neg)  envs=(ISOCHRON_CC_INTERVAL=-1); want="ISOCHRON_CC_INTERVAL=-1: expected 0 \(off\) or seconds" ;;
  native_poll)   envs=(ISOCHRON_CC_MODE=native ISOCHRON_CC_POLL_MS=inf); want="ISOCHRON_CC_POLL_MS=inf: expected milliseconds" ;;
  twopc_timeout) envs=(ISOCHRON_CC_MODE=2pc ISOCHRON_CC_TIMEOUT=0); want="ISOCHRON_CC_TIMEOUT=0: expected seconds" ;;
  collide_bad)   envs=(ISOCHRON_CC_TEST_COLLIDE=yes); want="ISOCHRON_CC_TEST_COLLIDE=yes: not a switch; valid: 0, 1" ;;
  allow_bad)     envs=(ISOCHRON_CC_RESTART_ALLOW=program,everything); want="ISOCHRON_CC_RESTART_ALLOW=program,everything: unknown 'everything'; valid \(comma-separated\): program .*binary .*mode .*regions" ;;
  fallback_bad)  envs=(ISOCHRON_CC_RESTART_FALLBACK=yes); want="ISOCHRON_CC_RESTART_FALLBACK=yes: not a switch; valid: 0, 1" ;;
  command_escape) envs=("ISOCHRON_CC_COMMAND=cp -r %d /x/%q"); want="ISOCHRON_CC_COMMAND=cp -r %d /x/%q: '%q' is not an escape; valid: %r .*%n .*%d .*%%" ;;
  command_percent) envs=("ISOCHRON_CC_COMMAND=echo 100%"); want="ISOCHRON_CC_COMMAND=echo 100%: '%' is not an escape" ;;
  dir_file)      envs=(ISOCHRON_CC_DIR=$tmp/file); want="ISOCHRON_CC_DIR=$tmp/file: names a regular file, not a directory" ;;
  log_file)      envs=(ISOCHRON_CC_LOG=$tmp/file); want="ISOCHRON_CC_LOG=$tmp/file: names a regular file, not a directory" ;;
  restart_file)  envs=(ISOCHRON_CC_RESTART=$tmp/file); want="ISOCHRON_CC_RESTART=$tmp/file: names a regular file, not a directory" ;;
  misspelt)      envs=(ISOCHRON_CC_INTERVALL=1); want="ISOCHRON_CC_INTERVALL: not a setting of this layer .*valid: .*ISOCHRON_CC_INTERVAL," ;;
  log_lost) ;;
  *) fail "unknown case" ;;
esac
if [ "$case" = log_lost ]; then
  mkdir -p "$tmp/l" "$tmp/d"; ln -s /dev/full "$tmp/l/cc-log.0.jsonl"
  TEST_CKPT_ITERS=30 TEST_CKPT_SLEEP_US=1000 ISOCHRON_CC_TIMEOUT=40 ISOCHRON_CC_DIR="$tmp/d" ISOCHRON_CC_LOG="$tmp/l" \
    "$run" -np "$np" "$ckpt" api > "$tmp/log" 2>&1
  rc=$?
  grep -v '^\s*$' "$tmp/log" | head -20
  [ "$rc" -ne 0 ] || fail "the state log was lost and the job exited 0"
  grep -q '^result' "$tmp/log" || fail "the program did not run to its end"
  ls -d "$tmp"/d/ckpt.*/complete > /dev/null 2>&1 || fail "no checkpoint was taken"
  grep -Eq "isochron-cc: rank 0: writing the state log $tmp/l/cc-log.0.jsonl failed: No space left on device; the job's exit status will be 4" "$tmp/log" \
    || fail "no message naming the file and the OS error"
  ! grep -q "isochron-cc: rank 1: writing the state log" "$tmp/log" || fail "rank 1's log was good"
else
  env "${envs[@]}" "$run" -np "$np" "$seq" > "$tmp/log" 2>&1
  rc=$?
  grep -v '^\s*$' "$tmp/log" | head -5 | cut -c1-400
  [ "$rc" -ne 0 ] || fail "exit status 0"
  ! grep -q "PASS" "$tmp/log" || fail "the application ran"
  n=$(grep -Ec "^isochron-cc: (rank [0-9]+: )?$want" "$tmp/log")
  [ "$n" = 1 ] || fail "expected one message matching '$want', found $n"
fi
echo "test_cc_settings $case np $np: PASS"
