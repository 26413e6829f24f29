#!/usr/bin/env bash
# Open MPI accepts the dynamic rules file `isochron tune` writes, and applies it by size: the file
# (isochron.tune.rules_text) chooses algorithm A below 16000 bytes and B from there (allreduce, 4
# processes); test_rules_order's fingerprints of an 800 B and a 32000 B double-sum allreduce under
# the file must equal those of A and of B forced with coll_tuned_allreduce_algorithm. The forced
# algorithms must differ in at least one fingerprint, else the check could not fail (it then fails,
# saying so). Skips (77) under a library other than Open MPI.
# usage: rules_accept.sh TEST_PROGRAM SOURCE_DIR
set -euo pipefail
prog=$1 src=$2
. "$(dirname "$0")/accept_common.sh"
accept_init "$src" "Open MPI|OpenRTE" "Open MPI"
run=(env MPIRUN="$mpirun" "$src/tools/mpirun-local" -np 4)
fp() { "${run[@]}" "$@" "$prog" | grep '^small '; }
a=1 b=4   # basic linear below 16000 B, ring from there
PYTHONPATH="$src/python/src" "$py" - "$tmp/rules" "$a" "$b" <<'PY'
import sys
from isochron.tune import Choice, rules_text
path, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# measured at 8000 and 32000 B: the boundary is their geometric mean, 16000 B
ch = [Choice(8000, 4, a, 1.0, a, 1.0, 1.0, 1.0, None, None, 3), Choice(32000, 4, b, 1.0, b, 1.0, 1.0, 1.0, None, None, 3)]
open(path, "w").write(rules_text("allreduce", ch, "test"))
PY
grep -q "^16000 $b 0 0" "$tmp/rules" || { echo "FAIL: the rules file has no rule at 16000 B for algorithm $b:"; cat "$tmp/rules"; exit 1; }
fa=$(fp --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm $a)
fb=$(fp --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm $b)
fr=$(fp --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$tmp/rules")
echo "forced $a: $fa"; echo "forced $b: $fb"; echo "rules:    $fr"
[ "$fa" != "$fb" ] || { echo "FAIL: algorithms $a and $b give the same sums: the check cannot tell them apart"; exit 1; }
want="$(echo "$fa" | awk '{print $1, $2}') $(echo "$fb" | awk '{print $3, $4}')"
[ "$fr" = "$want" ] || { echo "FAIL: under the rules file the fingerprints are '$fr', want '$want' ($a small, $b large)"; exit 1; }
echo "ok   Open MPI applied the rules file: algorithm $a at 800 B, $b at 32000 B"
