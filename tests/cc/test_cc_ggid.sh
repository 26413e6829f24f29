#!/usr/bin/env bash
# Driver of test_cc_ggid (tests/cc/tests.cmake): test_cc_ggid.sh dup|rev NP BINARY
# The run must end (ISOCHRON_CC_TIMEOUT=5: a safe state holding a collective
# only some members started hangs in its completion until the watchdog ends the
# job), with two checkpoints, and its state logs must pass check_cc_log.py
# (every group's SEQ equal on its members, no message or collective in flight,
# per-pair counts matching).
set -uo pipefail
kind=$1 np=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_cc_ggid $kind np $np: $*"; exit 1; }
ISOCHRON_CC_MODE=cc ISOCHRON_CC_TIMEOUT=5 ISOCHRON_CC_DIR="$tmp" ISOCHRON_CC_LOG="$tmp/log" \
  timeout -k 5 60 "$here/../../tools/mpirun-local" -np "$np" "$bin" "$kind" > "$tmp/out" 2>&1 \
  || { cat "$tmp/out"; fail "the run failed"; }
cat "$tmp/out"
grep -q "^cc_ggid $kind np $np: checkpoints 2 " "$tmp/out" || fail "rank 0 did not report 2 checkpoints"
python3 "$here/check_cc_log.py" "$tmp/log" --np "$np" --requests 2 || fail "the state logs violate the safe-state invariants"
echo "test_cc_ggid $kind np $np: PASS"
