#!/usr/bin/env bash
# A restart candidate that is rejected frees what it read (cc_restart.c): a run of test_ckpt makes two
# checkpoints; group 1 of rank 1's file of the newest gets a wrong hash (the checksum recomputed, so
# the group line itself is what is refused, after its members were read); the restart under
# ISOCHRON_CC_RESTART_FALLBACK=1 goes on from checkpoint 1 and ends normally, under valgrind. No
# block read for the rejected candidate may be definitely lost (its member list and the mark array
# were: 8 + 2 bytes on rank 1). No suppression file: the reading runs inside MPI_Init, whose frames
# tools/valgrind-mpi.supp suppresses; what counts is a lost block with a frame in cc_restart.c.
#   test_restart_leak.sh TEST_CKPT_BINARY
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_restart_leak: $*"; exit 1; }
export TEST_CKPT_SLEEP_US=1000 TEST_CKPT_ITERS=70 ISOCHRON_CC_TIMEOUT=60
ISOCHRON_CC_DIR="$tmp/d" "$run" -np 2 "$bin" api > "$tmp/first" 2>&1 || { cat "$tmp/first"; fail "the run making the checkpoints failed"; }
grep -q "ckpts 2 " "$tmp/first" || { cat "$tmp/first"; fail "the first run did not take 2 checkpoints"; }
python3 - "$tmp/d/ckpt.2/rank.1" <<'PY'
import re, sys
p = sys.argv[1]
body = open(p, "rb").read()[:-25]
body = re.sub(rb"\ngroup [0-9a-f]{16}", b"\ngroup 0123456789abcdef", body, count=1)
h = 1469598103934665603
for c in body:
    h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
open(p, "wb").write(body + b"fnv1a64 %016x\n" % h)
PY
ISOCHRON_CC_RESTART_FALLBACK=1 ISOCHRON_CC_RESTART="$tmp/d" ISOCHRON_CC_DIR="$tmp/d" "$run" -np 2 \
  valgrind --leak-check=full --show-leak-kinds=definite --num-callers=30 "$bin" api > "$tmp/out" 2>&1
grep -q "'group 1': hash 0123456789abcdef is not the hash of its members.*trying the checkpoint before it" "$tmp/out" ||
  { head -40 "$tmp/out"; fail "the damaged group line was not refused"; }
grep -q "restarted 1" "$tmp/out" || { head -40 "$tmp/out"; fail "the run did not restart from checkpoint 1"; }
[ "$(grep -c 'LEAK SUMMARY' "$tmp/out")" = 2 ] || { head -40 "$tmp/out"; fail "expected valgrind's leak summary from both ranks"; }
# each loss record: from its "definitely lost in loss record" line to the blank line that ends it
lost=$(awk '/definitely lost in loss record/ {r = $0; on = 1; next} on && /cc_restart\.c/ {print r; print; on = 0} /^==[0-9]+== $/ {on = 0}' "$tmp/out")
[ -z "$lost" ] || { echo "$lost"; fail "blocks read for the rejected candidate are definitely lost"; }
echo "test_restart_leak: PASS"
