#!/usr/bin/env bash
# MPICH 4.0 applies the JSON selection files `isochron tune --mpi mpich` writes, by message size
# (isochron.tune.write_rules from the library's own built-in trees). Two checks at 4 processes:
#  1. allgather, the file choosing the default below 16000 B (total over the 4 processes) and the
#     ring from there: ucp_sends.so counts the messages each rank hands to UCX in one
#     MPI_Allgather (test_allgather_once); under the file the counts at 100 B per process must
#     equal the default's and at 8000 B the ring's forced by MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM.
#     The forced ring must differ from the default at both sizes, else the check could not fail
#     (it then fails, saying so).
#  2. allreduce, the file choosing reduce_scatter_allgather at every size (and its ch4 file):
#     that algorithm is for built-in operators only (MPICH 4.0.2 aborts on an assertion when a
#     file sends it a user-defined one), so a user-operator allreduce (test_op_calls) must run
#     under the files, give the exact sum and see the operator cut the buffer as under the default.
# Skips (77) under a library other than MPICH, or where MPICH does not send through UCX.
# usage: mpich_json_accept.sh ALLGATHER_ONCE OP_CALLS UCP_SENDS_SO SOURCE_DIR
set -euo pipefail
once=$1 opcalls=$2 sends=$3 src=$4
. "$(dirname "$0")/accept_common.sh"
accept_init "$src" "HYDRA" "MPICH"
run=(env MPIRUN="$mpirun" "$src/tools/mpirun-local")
fp() { # fingerprint: every rank's message counts, sorted
  "${run[@]}" -genv LD_PRELOAD "$sends" "$@" 2>&1 | grep '^ucp_sends:' | sort | paste -sd';' -
}
PYTHONPATH="$src/python/src" "$py" - "$tmp" "$once" <<'PY'
import sys
from isochron.tune import Choice, write_rules
tmp, bench = sys.argv[1], sys.argv[2]
# allgather measured at 100 and 8000 B per process: boundary at the geometric mean of the totals
# (400 and 32000 B), 3578 B; default below, ring (3) from there
ch = [Choice(100, 4, 0, 1.0, 0, 1.0, 1.0, 1.0, None, None, 3), Choice(8000, 4, 3, 1.0, 3, 1.0, 1.0, 1.0, None, None, 3)]
write_rules(f"{tmp}/allgather.json", "allgather", ch, "mpich", "test", bench)
ch = [Choice(b, 4, 2, 1.0, 2, 1.0, 1.0, 1.0, None, None, 3) for b in (400, 32000)]
write_rules(f"{tmp}/allreduce.json", "allreduce", ch, "mpich", "test", bench)
PY
grep -q '"total_msg_size<3578"' "$tmp/allgather.json" || { echo "FAIL: no boundary at 3578 B in the allgather file"; exit 1; }
ring=(-genv MPIR_CVAR_COLLECTIVE_FALLBACK error -genv MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM ring)
file=(-genv MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE "$tmp/allgather.json")
for n in 100 8000; do
  d=$(fp -np 4 "$once" $n); r=$(fp "${ring[@]}" -np 4 "$once" $n); f=$(fp "${file[@]}" -np 4 "$once" $n)
  echo "$n B default: $d"; echo "$n B ring:    $r"; echo "$n B file:    $f"
  [ -n "$d" ] || { echo "SKIP: no messages seen at ucp_tag_send_nbx (MPICH without UCX here?)"; exit 77; }
  [ "$d" != "$r" ] || { echo "FAIL: the default and the ring send the same at $n B: the check cannot tell them apart"; exit 1; }
  want=$d; [ $n = 8000 ] && want=$r
  [ "$f" = "$want" ] || { echo "FAIL: under the file at $n B the messages are '$f', want '$want'"; exit 1; }
done
echo "ok   MPICH applied the allgather file: the default at 100 B, the ring at 8000 B per process"
d=$("${run[@]}" -np 4 "$opcalls" 2>&1 | tail -1)
f=$("${run[@]}" -genv MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE "$tmp/allreduce.json" \
    -genv MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE "$tmp/allreduce.ch4.json" -np 4 "$opcalls" 2>&1 | tail -1) \
  || { echo "FAIL: a user-operator allreduce under the allreduce files failed: $f"; exit 1; }
echo "user op default: $d"; echo "user op file:    $f"
[ "$f" = "$d" ] || { echo "FAIL: under the files the user operator saw '$f', under the default '$d'"; exit 1; }
echo "ok   a user-operator allreduce keeps the library's own selection under a file choosing reduce_scatter_allgather"
