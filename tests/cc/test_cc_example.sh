#!/usr/bin/env bash
# examples/cc_checkpoint under libisochron-cc.so: an uninterrupted run, a run
# that requests a checkpoint at its middle iteration, and a run restarted from
# that checkpoint must print the same residual.   usage: test_cc_example.sh NP BINARY ITERS N
set -uo pipefail
np=$1 bin=$2 iters=$3 n=$4
run="$(cd "$(dirname "$0")/../.." && pwd)/tools/mpirun-local"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL cc_checkpoint example: $*"; exit 1; }
"$run" -np "$np" "$bin" "$iters" "$n" > "$d/a" 2>&1 || { cat "$d/a"; fail "plain run failed"; }
# rank 0 requests a checkpoint at the middle iteration (isochron_cc_request)
ISOCHRON_CC_DIR=$d "$run" -np "$np" "$bin" "$iters" "$n" $((iters / 2)) > "$d/b" 2>&1 || { cat "$d/b"; fail "checkpointed run failed"; }
ISOCHRON_CC_RESTART=$d ISOCHRON_CC_DIR=$d "$run" -np "$np" "$bin" "$iters" "$n" > "$d/c" 2>&1 || { cat "$d/c"; fail "restarted run failed"; }
cat "$d/a" "$d/b" "$d/c"
grep -q '^checkpoint 1 written' "$d/b" || fail "no checkpoint was written"
grep -q '^restarted from checkpoint' "$d/c" || fail "the run did not restart"
r=$(grep '^residual' "$d/a")
[ "$r" = "$(grep '^residual' "$d/b")" ] || fail "checkpointed run: $(grep '^residual' "$d/b"), plain: $r"
[ "$r" = "$(grep '^residual' "$d/c")" ] || fail "restarted run: $(grep '^residual' "$d/c"), plain: $r"
echo "cc_checkpoint example: PASS"
