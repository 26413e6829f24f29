#!/usr/bin/env bash
# Driver of the checkpoint tests (tests/cc/tests.cmake):
#   test_ckpt.sh api|signal|interval|restart|badrestart|watchdog NP TEST_CKPT_BINARY
# api/signal/interval: one run, requests by that means; the state logs must
# show one safe state per request (check_ckpt_log.py) and the result must be
# the one of a run without checkpoints. restart: a run killed after its first
# checkpoint, restarted from ISOCHRON_CC_DIR, must end with the uninterrupted
# result. badrestart: a restart directory without a complete checkpoint is
# refused with a message naming it. watchdog: a rank stops calling MPI during a
# checkpoint; ISOCHRON_CC_TIMEOUT=1 must end the job with a message naming a
# rank and the MPI call it waits in.
set -uo pipefail
tag=$1 np=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TEST_CKPT_SLEEP_US=${TEST_CKPT_SLEEP_US:-1500} TEST_CKPT_ITERS=${TEST_CKPT_ITERS:-70}
export ISOCHRON_CC_TIMEOUT=${ISOCHRON_CC_TIMEOUT:-40}
fail() { echo "FAIL test_ckpt $tag np $np: $*"; exit 1; }
result() { grep -o '^result [^ ]*' "$1" | head -1; }

[ "$tag" = interval ] && export TEST_CKPT_ITERS=120
mkdir -p "$tmp/ref" "$tmp/d" "$tmp/l"
[ "$tag" = badrestart ] || [ "$tag" = watchdog ] || {
ISOCHRON_CC_DIR="$tmp/ref" "$run" -np "$np" "$bin" none > "$tmp/ref.out" 2>&1 || { cat "$tmp/ref.out"; fail "reference run failed"; }
ref=$(result "$tmp/ref.out"); [ -n "$ref" ] || fail "no result in the reference run"
[ -z "$(ls "$tmp/ref")" ] || fail "a run without requests wrote checkpoints: $(ls "$tmp/ref")"
echo "reference: $ref"
}
case $tag in
  api|signal|interval)
    mode=$tag; want=(--expect 2)
    if [ "$tag" = interval ]; then mode=none; want=(--min 1); export ISOCHRON_CC_INTERVAL=0.1; fi
    ISOCHRON_CC_DIR="$tmp/d" ISOCHRON_CC_LOG="$tmp/l" "$run" -np "$np" "$bin" "$mode" > "$tmp/out" 2>&1 \
      || { cat "$tmp/out"; fail "checkpointed run failed"; }
    cat "$tmp/out"
    [ "$(result "$tmp/out")" = "$ref" ] || fail "result $(result "$tmp/out") differs from $ref"
    python3 "$here/check_ckpt_log.py" "$tmp/l" "$np" "${want[@]}" || fail "state log violates the safe-state invariants"
    n=$(ls -d "$tmp"/d/ckpt.* | wc -l)
    for c in "$tmp"/d/ckpt.*; do [ -e "$c/complete" ] || fail "$c has no completeness marker"; done
    # an interval request may also be served at MPI_Finalize, after the count is printed
    grep -q "ckpts $n " "$tmp/out" || { [ "$tag" = interval ] && grep -q "ckpts $((n - 1)) " "$tmp/out"; } \
      || fail "rank 0 reports a checkpoint count other than the $n directories" ;;
  restart)
    ISOCHRON_CC_DIR="$tmp/d" ISOCHRON_CC_LOG="$tmp/l" "$run" -np "$np" "$bin" api 35 > "$tmp/out1" 2>&1
    cat "$tmp/out1"
    grep -q "killing rank 0 after iteration 35, checkpoints 1" "$tmp/out1" || fail "the first run was not killed after one checkpoint"
    ! grep -q '^result' "$tmp/out1" || fail "the killed run finished"
    ISOCHRON_CC_RESTART="$tmp/d" ISOCHRON_CC_DIR="$tmp/d" "$run" -np "$np" "$bin" api > "$tmp/out2" 2>&1 \
      || { cat "$tmp/out2"; fail "restarted run failed"; }
    cat "$tmp/out2"
    grep -q "restarted 1" "$tmp/out2" || fail "the run did not restart from checkpoint 1"
    [ "$(result "$tmp/out2")" = "$ref" ] || fail "restarted result $(result "$tmp/out2") differs from $ref" ;;
  watchdog)
    t0=$(date +%s)
    ISOCHRON_CC_TIMEOUT=1 ISOCHRON_CC_DIR="$tmp/d" timeout -k 5 50 "$run" -np "$np" "$bin" stuck > "$tmp/out" 2>&1 \
      && fail "a run whose checkpoint cannot be reached finished"
    t=$(( $(date +%s) - t0 ))
    grep -v '^\[' "$tmp/out" | grep isochron-cc | head -3
    grep -Eq "isochron-cc: rank [0-9]+: checkpoint 1 not reached after [0-9]+ s \(ISOCHRON_CC_TIMEOUT=1\); (waiting in|stuck inside) MPI_[A-Za-z_]+" "$tmp/out" \
      || { cat "$tmp/out"; fail "no watchdog message naming the rank and the call"; }
    [ "$t" -lt 40 ] || fail "the watchdog took $t s" ;;
  badrestart)
    mkdir -p "$tmp/bad/ckpt.3"; : > "$tmp/bad/ckpt.3/rank.0"
    ISOCHRON_CC_RESTART="$tmp/bad" "$run" -np "$np" "$bin" none > "$tmp/out" 2>&1 && fail "a restart from a directory without a complete checkpoint ran"
    grep -q "ISOCHRON_CC_RESTART=$tmp/bad: no complete checkpoint in this directory (1 without a complete marker, 0 damaged" "$tmp/out" || { cat "$tmp/out"; fail "no clear message"; }
    ISOCHRON_CC_RESTART="$tmp/missing" "$run" -np "$np" "$bin" none > "$tmp/out" 2>&1 && fail "a restart from a missing directory ran"
    grep -q "ISOCHRON_CC_RESTART=$tmp/missing: No such file or directory" "$tmp/out" || { cat "$tmp/out"; fail "no clear message for a missing directory"; } ;;
  *) fail "unknown case $tag (api, signal, interval, restart, badrestart)" ;;
esac
echo "test_ckpt $tag np $np: PASS"
