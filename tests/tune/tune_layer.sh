#!/usr/bin/env bash
# The tuning layer (libisochron-tune.so, isochron/tune.h) under a real mpirun at NP ranks:
#  1. a profile matching this run (library, process count, host set) that covers every size:
#     every redirected call's result equals the library's (test_tune_layer compares each with
#     PMPI's), and each of the five functions was redirected;
#  2. the same profile at another process count: one line on stderr naming the difference, and
#     nothing redirected (every call passes through); likewise an unknown ISOCHRON_TUNE_* setting
#     (a typo) and ISOCHRON_TUNE_VERBOSE other than 0 or 1;
#  3. isochron-bench itself under the layer with the matching profile: allreduce, allgather,
#     bcast, scan and reduce_scatter_block validated at 8 B, 1 KiB and 64 KiB (exit 0), and the layer redirected its calls.
# usage: tune_layer.sh NP TEST_PROGRAM LAYER BENCH
# The layer and its settings reach the ranks through the launcher's environment (as bench/apps/apps.sh
# does), so the script runs under Open MPI's and MPICH's mpirun alike.
set -euo pipefail
np=$1 prog=$2 layer=$3 bench=$4
run=(env MPIRUN="${MPIRUN:-mpirun}" "$(dirname "$0")/../../tools/mpirun-local" -np "$np")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"${run[@]}" "$prog" id > "$tmp/id"
grep -q '^mpi_library ' "$tmp/id" || fail "no id from $prog: $(cat "$tmp/id")"
{ echo "isochron_tune_profile 1"; cat "$tmp/id"
  for f in MPI_Allreduce MPI_Allgather MPI_Bcast MPI_Scan MPI_Reduce_scatter_block; do echo "redirect $f $np 0 1000000000"; done; } > "$tmp/match"
sed "s/^nprocs .*/nprocs $((np + 1))/" "$tmp/match" > "$tmp/other"
# 1
env LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$tmp/match" "${run[@]}" "$prog" check redirect > "$tmp/1.out" 2> "$tmp/1.err" \
  || fail "matching profile: $(grep FAIL "$tmp/1.out" | head -3) $(head -3 "$tmp/1.err")"
grep -q "^PASS" "$tmp/1.out" || fail "matching profile: no PASS: $(cat "$tmp/1.out")"
! grep -q "isochron-tune:" "$tmp/1.err" || fail "matching profile refused: $(grep isochron-tune: "$tmp/1.err")"
echo "ok   np $np: matching profile: every redirected result equals the library's; $(grep 'redirected:' "$tmp/1.out")"
# 2
env LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$tmp/other" "${run[@]}" "$prog" check none > "$tmp/2.out" 2> "$tmp/2.err" \
  || fail "other profile: $(grep FAIL "$tmp/2.out" | head -3)"
n=$(grep -c "^isochron-tune:" "$tmp/2.err" || true)
[ "$n" = 1 ] || fail "other profile: want one isochron-tune line on stderr, got $n: $(cat "$tmp/2.err")"
grep -q "measured at $((np + 1)) processes, this run has $np; passing every call through" "$tmp/2.err" \
  || fail "other profile: the line does not name the difference: $(cat "$tmp/2.err")"
echo "ok   np $np: profile of $((np + 1)) processes refused in one line, nothing redirected"
# 2b. a setting the layer does not know (a typo) or a bad value refuses even a matching profile
for bad in ISOCHRON_TUNE_PROFLE=x ISOCHRON_TUNE_VERBOSE=yes; do
  env LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$tmp/match" "$bad" "${run[@]}" "$prog" check none > "$tmp/2b.out" 2> "$tmp/2b.err" \
    || fail "$bad: $(grep FAIL "$tmp/2b.out" | head -3)"
  n=$(grep -c "^isochron-tune:" "$tmp/2b.err" || true)
  [ "$n" = 1 ] && grep -q "${bad%%=*}.*passing every call through" "$tmp/2b.err" \
    || fail "$bad: want one isochron-tune line naming ${bad%%=*}, got: $(cat "$tmp/2b.err")"
done
echo "ok   np $np: an unknown ISOCHRON_TUNE_ setting and a bad VERBOSE value refused in one line each, nothing redirected"
# 3
env LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$tmp/match" ISOCHRON_TUNE_VERBOSE=1 "${run[@]}" \
  "$bench" --ops allreduce,allgather,bcast,scan,reduce_scatter_block --sizes 8,1K,64K --budget 0.1 --min-reps 3 > "$tmp/3.out" 2> "$tmp/3.err" \
  || fail "isochron-bench under the layer: $(grep -v '^\[' "$tmp/3.err" | head -5)"
line=$(grep "^isochron-tune: rank 0 redirected" "$tmp/3.err") || fail "isochron-bench: no report of the layer: $(tail -3 "$tmp/3.err")"
case "$line" in *"redirected 0 calls"*) fail "isochron-bench: the layer redirected nothing: $line";; esac
echo "ok   np $np: isochron-bench validated allreduce, allgather, bcast, scan, reduce_scatter_block under the layer ($line)"
