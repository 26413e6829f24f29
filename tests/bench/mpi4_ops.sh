#!/usr/bin/env bash
# isochron-bench on the MPI-4 operations of issue 29 (part_pingpong, part_pready, *_c), on whichever MPI
# this build uses: where --list-ops lists them as available (MPICH 4; Open MPI 5 for the partitioned
# ones) a run at 2 ranks with every repetition validated must succeed and record the partitions; where
# it lists them under '#' (this library lacks them: Open MPI 4.1) the same run must fail at once
# (exit 2, before any clock synchronization) with one line naming the operation and the library.
#   mpi4_ops.sh MPIRUN_LOCAL BENCH OUTDIR
set -u
run=$1 bench=$2 out=$3
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
list=$("$bench" --list-ops) || fail "--list-ops failed"
have=() missing=()
for op in part_pingpong part_pready pingpong_c allreduce_c; do
  if grep -qE "^$op " <<<"$list"; then have+=("$op")
  elif grep -qE "^# $op " <<<"$list"; then missing+=("$op")
  else fail "$op not in --list-ops"; fi
done
# the available ones in one run (one launch and clock synchronization: MPICH busy-polls on 2 cores)
if [ ${#have[@]} -gt 0 ]; then
  j=$out/mpi4.jsonl
  rm -f "$j"
  ops=$(IFS=,; echo "${have[*]}")
  msg=$("$run" -np 2 "$bench" --ops "$ops" --sizes 0,64,4K --partitions 4 --validate 2 --min-reps 5 --max-reps 10 \
        --retries 0 --format none --quiet --jsonl "$j" 2>&1) || fail "$ops available but the run failed: $msg"
  for op in "${have[@]}"; do
    pts=$(grep '"type":"point"' "$j" | grep "\"op\":\"$op\"")
    [ "$(grep -c . <<<"$pts")" = 3 ] || fail "$op: not 3 points"
    if [[ $op == part_* ]]; then
      [ "$(grep -c '"partitions":4' <<<"$pts")" = 3 ] || fail "$op: points do not record 4 partitions"
    fi
    grep -q '"validated":0[,}]' <<<"$pts" && fail "$op: a point with no validated repetition"
    echo "ok   $op ran, 3 points validated"
  done
fi
for op in "${missing[@]}"; do
  j=$out/mpi4-$op.jsonl
  rm -f "$j"
  msg=$("$run" -np 2 "$bench" --ops "$op" --sizes 64 --format none --quiet --jsonl "$j" 2>&1) && fail "$op missing from this library but the run succeeded"
  first=$(grep -m1 "isochron-bench: $op: this MPI library (" <<<"$msg") || fail "$op: no sentence naming the library: $msg"
  [ -s "$j" ] && fail "$op: refused, yet it wrote $j"
  echo "ok   $op refused: $first"
done
# bad values name the valid range, and sizes the partitions do not divide name the multiple (before anything runs)
msg=$("$run" -np 2 "$bench" --ops pingpong --partitions 0 2>&1) && fail "--partitions 0 accepted"
grep -q "\-\-partitions '0': expected an integer in \[1, 65536\]" <<<"$msg" || fail "--partitions 0: $msg"
echo "ok   --partitions 0 refused"
if grep -qE "^part_pingpong " <<<"$list"; then
  msg=$("$run" -np 2 "$bench" --ops part_pingpong --sizes 12 --partitions 8 2>&1) && fail "12 B in 8 partitions accepted"
  grep -q "size 12 B does not split into 8 partitions.*multiples of 8 B" <<<"$msg" || fail "12 B / 8: $msg"
  echo "ok   12 B in 8 partitions refused"
fi
echo "mpi4_ops: PASS"
