#!/usr/bin/env bash
# A checkpoint restores only into the job that wrote it, and damage is answered alike (issue 40):
#   test_ckpt_identity.sh CASES NP TEST_CKPT CC_CHECKPOINT ISOCHRON_BENCH LIBISOCHRON_CC
# Real runs under libisochron-cc.so: test_ckpt (region "state", 2 checkpoints by API) and
# examples/cc_checkpoint (region "committed", 1 checkpoint) make restart directories; each case of
# the comma list CASES restarts from one (a copy, damaged where the case says) and checks the exit
# status and the one line that names the cause. Before issue 40 every case below but "allow" ran to
# the end with exit 0 and nothing said (another program's checkpoint started fresh; a damaged or
# missing marker fell back silently); the "fallback" cases also needed their variable.
#   program     test_ckpt's checkpoint given to cc_checkpoint: exit 2, "belongs to another job: program"
#   bench       isochron-bench's checkpoint (LD_PRELOAD) given to cc_checkpoint: the same
#   region      with ISOCHRON_CC_RESTART_ALLOW=program, cc_checkpoint's checkpoint given to test_ckpt:
#               its region "state" is not in the file: isochron_cc_register says so, the program stops
#   unclaimed   with ISOCHRON_CC_RESTART_ALLOW=program, cc_checkpoint's checkpoint given to isochron-bench,
#               which registers nothing: "committed" is claimed by nobody: exit 2 at MPI_Finalize
#   unclaimed_ckpt  cc_checkpoint's own checkpoint with an extra saved region: stopped (MPI_Abort, 2)
#               before the checkpoint it requests
#   allow       ISOCHRON_CC_RESTART_ALLOW=program,regions: the same run goes on (exit 0), each difference said
#   mode        test_ckpt's cc checkpoint restarted under ISOCHRON_CC_MODE=2pc: exit 2, "mode cc (this run: 2pc)"
#   binary      the program's file changed after its checkpoint (same path): exit 2, "binary ... rebuilt"
#   marker      the newest checkpoint's complete marker overwritten: exit 2, naming the marker and 'magic'
#   marker_fallback   the same with ISOCHRON_CC_RESTART_FALLBACK=1: restarts from checkpoint 1, one line says so
#   region_cut  rank 1's newest file with its region cut short (checksum recomputed): exit 2, 'region 1'
#   file_fallback     a truncated rank file with ISOCHRON_CC_RESTART_FALLBACK=1: checkpoint 1, one line
#   incomplete  the newest checkpoint has no marker (its run ended while writing it): checkpoint 1, one line
set -uo pipefail
cases=$1 np=$2 ckbin=$3 exbin=$4 bench=$5 libcc=$6
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_ckpt_identity $case np $np: $*"; exit 1; }
show() { grep -v '^\s*$' "$1" | grep -v "^--\|^  \|^Primary\|^a non-zero\|^mpirun\|^the job\|^\[\|^\*\|^MPI_ABORT\|^with errorcode\|^NOTE\|^You may" | head -6 | cut -c1-400; }
# one line matching the pattern (extended regex) in the file, exactly once
once() { local n; n=$(grep -Ec -- "$2" "$1"); [ "$n" = 1 ] || { show "$1"; fail "expected one line matching '$2', found $n"; }; }
# at least one such line: where each rank stops with MPI_Abort, the first abort may end the others
# before they print theirs
some() { grep -Eq -- "$2" "$1" || { show "$1"; fail "expected a line matching '$2'"; }; }
bench_run() { "$run" -np "$np" env LD_PRELOAD="$libcc" "$bench" --ops allreduce --sizes 8,1K --max-reps 400 --format none --quiet "$@"; }
case=setup
export TEST_CKPT_SLEEP_US=1000 TEST_CKPT_ITERS=70 ISOCHRON_CC_TIMEOUT=40
need_ck() {   # test_ckpt's restart directory (2 checkpoints) in $tmp/ck
  [ -d "$tmp/ck" ] && return
  ISOCHRON_CC_DIR="$tmp/ck" "$run" -np "$np" "$ckbin" api > "$tmp/ck.out" 2>&1 || { cat "$tmp/ck.out"; fail "the test_ckpt run making the checkpoints failed"; }
  grep -q "ckpts 2 " "$tmp/ck.out" || { cat "$tmp/ck.out"; fail "test_ckpt did not take 2 checkpoints"; }
}
need_ex() {   # cc_checkpoint's restart directory (1 checkpoint) in $tmp/ex
  [ -d "$tmp/ex" ] && return
  ISOCHRON_CC_DIR="$tmp/ex" "$run" -np "$np" "$exbin" 40 1000 20 > "$tmp/ex.out" 2>&1 || { cat "$tmp/ex.out"; fail "the cc_checkpoint run failed"; }
  grep -q "^checkpoint 1 written" "$tmp/ex.out" || { cat "$tmp/ex.out"; fail "cc_checkpoint took no checkpoint"; }
}
fresh() { rm -rf "$tmp/d"; cp -a "$tmp/$1" "$tmp/d"; }
for case in ${cases//,/ }; do
d=$tmp/d
case $case in
  program)
    need_ck; fresh ck
    ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$exbin" 40 1000 > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2 (a refused restart)"
    once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$d: checkpoint 2 belongs to another job: program [^ ]*/test_ckpt \(this run: [^ ]*/cc_checkpoint\) \(ISOCHRON_CC_RESTART_ALLOW=program restarts from it anyway\)$"
    ! grep -q '^residual' "$tmp/out" || fail "the program ran" ;;
  bench)
    rm -rf "$tmp/b"
    # checkpoints every 10 ms over a run of 1200 or more fixed repetitions: several, on any machine
    ISOCHRON_CC_DIR="$tmp/b" ISOCHRON_CC_INTERVAL=0.01 bench_run --sizes 8,1K,64K --min-reps 400 > "$tmp/b.out" 2>&1 ||
      { cat "$tmp/b.out"; fail "the isochron-bench run failed"; }
    ls "$tmp"/b/ckpt.*/complete > /dev/null 2>&1 || { cat "$tmp/b.out"; fail "isochron-bench took no checkpoint"; }
    ISOCHRON_CC_RESTART="$tmp/b" "$run" -np "$np" "$exbin" 40 1000 > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2"
    once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$tmp/b: checkpoint [0-9]+ belongs to another job: program [^ ]*/isochron-bench \(this run: [^ ]*/cc_checkpoint\)"
    ! grep -q '^residual' "$tmp/out" || fail "the program ran" ;;
  region)
    need_ex; fresh ex
    ISOCHRON_CC_RESTART_ALLOW=program ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" != 0 ] || fail "exit 0: the program started fresh"
    some "$tmp/out" "^isochron-cc: rank ([0-9]+): isochron_cc_register: region 'state' is not in the checkpoint file $d/ckpt.1/rank.[0-9]+ \(checkpoint 1, 1 regions\)"
    ! grep -q '^result' "$tmp/out" || fail "the program ran" ;;
  unclaimed)
    need_ex; fresh ex
    ISOCHRON_CC_RESTART_ALLOW=program ISOCHRON_CC_RESTART=$d bench_run > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2 (saved regions nobody registered)"
    once "$tmp/out" "^isochron-cc: the checkpoint file $d/ckpt.1/rank.0 \(checkpoint 1\) holds regions this program did not register: 'committed' \([0-9]+ bytes\)" ;;
  unclaimed_ckpt)
    need_ex; fresh ex
    # cc_checkpoint's own checkpoint with one more region, "extra", in every rank's file (checksum
    # recomputed): the same program restarts, claims "committed", runs on to 200 iterations and
    # requests a checkpoint at 150 (REQUEST_AT): it must stop before writing one without "extra"
    for f in "$d"/ckpt.1/rank.*; do
      python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
body = open(p, "rb").read()[:-25]
assert body.count(b"\nregions 1\n") == 1 and body.endswith(b"\nend\n")
body = body.replace(b"\nregions 1\n", b"\nregions 2\n").replace(b"\nend\n", b"\nregion extra 8\n01234567\nend\n")
h = 1469598103934665603
for c in body:
    h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
open(p, "wb").write(body + b"fnv1a64 %016x\n" % h)
PY
    done
    ISOCHRON_CC_RESTART=$d ISOCHRON_CC_DIR="$tmp/u" "$run" -np "$np" "$exbin" 200 1000 150 > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2 (MPI_Abort before a checkpoint that would lose a saved region)"
    some "$tmp/out" "^isochron-cc: rank [0-9]+: the checkpoint file $d/ckpt.1/rank.[0-9]+ \(checkpoint 1\) holds regions this program did not register: 'extra' \(8 bytes\) .*; stopped before a checkpoint that would lose them$"
    ! grep -q '^checkpoint 2 written' "$tmp/out" || fail "a checkpoint without the saved region was written"
    ! ls "$tmp"/u/ckpt.2/complete > /dev/null 2>&1 || fail "a checkpoint without the saved region was completed" ;;
  allow)
    need_ex; fresh ex
    ISOCHRON_CC_RESTART_ALLOW=program,regions ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 0 ] || fail "exit status $rc: the allowed restart did not run"
    grep -q "restarted 1" "$tmp/out" || fail "the run did not restart from checkpoint 1"
    once "$tmp/out" "^isochron-cc: rank 0: isochron_cc_register: region 'state' is not in the checkpoint file .*; it starts fresh \(ISOCHRON_CC_RESTART_ALLOW=regions\)$"
    once "$tmp/out" "^isochron-cc: rank 0: the checkpoint file $d/ckpt.1/rank.0 \(checkpoint 1\) holds regions this program did not register: 'committed' \([0-9]+ bytes\); dropped" ;;
  mode)
    need_ck; fresh ck
    ISOCHRON_CC_MODE=2pc ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2"
    once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$d: checkpoint 2 belongs to another job: mode cc \(this run: 2pc\) \(ISOCHRON_CC_RESTART_ALLOW=mode restarts from it anyway\)$" ;;
  binary)
    cp "$ckbin" "$tmp/prog"
    rm -rf "$tmp/bin"
    ISOCHRON_CC_DIR="$tmp/bin" "$run" -np "$np" "$tmp/prog" api > "$tmp/b.out" 2>&1 || { cat "$tmp/b.out"; fail "the run of the copy failed"; }
    printf 'rebuilt' >> "$tmp/prog"   # the same path, other bytes (an ELF file runs with bytes appended)
    ISOCHRON_CC_RESTART="$tmp/bin" "$run" -np "$np" "$tmp/prog" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2"
    once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$tmp/bin: checkpoint 2 belongs to another job: binary [0-9a-f]{16} of $tmp/prog \(this run: [0-9a-f]{16}: the program was rebuilt\) \(ISOCHRON_CC_RESTART_ALLOW=binary restarts from it anyway\)$"
    ISOCHRON_CC_RESTART_ALLOW=binary ISOCHRON_CC_RESTART="$tmp/bin" "$run" -np "$np" "$tmp/prog" api > "$tmp/out" 2>&1 || { show "$tmp/out"; fail "the allowed restart of the rebuilt program failed"; }
    grep -q "restarted 2" "$tmp/out" || fail "the allowed restart did not restart from checkpoint 2" ;;
  marker|marker_fallback)
    need_ck; fresh ck
    printf 'garbage\x01\x02\n' > "$d/ckpt.2/complete"
    if [ "$case" = marker ]; then
      ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
      [ "$rc" = 2 ] || fail "exit status $rc, expected 2 (a damaged marker stops the restart)"
      once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$d: complete marker $d/ckpt.2/complete: field 'magic': expected 'isochron-cc-complete 1', found 'garbage.*' \(damaged or overwritten\) \(ISOCHRON_CC_RESTART_FALLBACK=1 tries the checkpoint before it\)$"
      ! grep -q '^result' "$tmp/out" || fail "the program ran"
    else
      ISOCHRON_CC_RESTART_FALLBACK=1 ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
      [ "$rc" = 0 ] || fail "exit status $rc: the fallback asked for did not run"
      grep -q "restarted 1" "$tmp/out" || fail "the run did not restart from checkpoint 1"
      once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$d: complete marker $d/ckpt.2/complete: field 'magic': .*; ISOCHRON_CC_RESTART_FALLBACK=1: trying the checkpoint before it$"
    fi ;;
  region_cut)
    need_ck; fresh ck
    # rank 1's region 'state' loses its last 8 bytes; the checksum is recomputed (a writer that lost them)
    python3 - "$d/ckpt.2/rank.1" <<'PY'
import sys
p = sys.argv[1]
data = open(p, "rb").read()
body = data[:-25]
i = body.index(b"\nregion state ") + 1
j = body.index(b"\n", i) + 1
n = int(body[i:j].split()[2])
body = body[:j + n - 8] + body[j + n:]
h = 1469598103934665603
for c in body:
    h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
open(p, "wb").write(body + b"fnv1a64 %016x\n" % h)
PY
    ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 2 ] || fail "exit status $rc, expected 2"
    once "$tmp/out" "^isochron-cc: rank 1: ISOCHRON_CC_RESTART=$d: checkpoint file $d/ckpt.2/rank.1: field 'region 1': " ;;
  file_fallback)
    need_ck; fresh ck
    python3 -c "import sys; p=sys.argv[1]; d=open(p,'rb').read(); open(p,'wb').write(d[:-40])" "$d/ckpt.2/rank.1"
    ISOCHRON_CC_RESTART_FALLBACK=1 ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 0 ] || fail "exit status $rc: the fallback asked for did not run"
    grep -q "restarted 1" "$tmp/out" || fail "the run did not restart from checkpoint 1"
    once "$tmp/out" "^isochron-cc: rank 1: ISOCHRON_CC_RESTART=$d: checkpoint file $d/ckpt.2/rank.1: field 'checksum': .*; ISOCHRON_CC_RESTART_FALLBACK=1: trying the checkpoint before it$" ;;
  incomplete)
    need_ck; fresh ck
    rm "$d/ckpt.2/complete"
    ISOCHRON_CC_RESTART=$d "$run" -np "$np" "$ckbin" api > "$tmp/out" 2>&1; rc=$?; show "$tmp/out"
    [ "$rc" = 0 ] || fail "exit status $rc"
    grep -q "restarted 1" "$tmp/out" || fail "the run did not restart from checkpoint 1"
    once "$tmp/out" "^isochron-cc: ISOCHRON_CC_RESTART=$d: restarting from checkpoint 1, not the newest \(2\): 1 newer without a complete marker \(their run ended while writing them\)$" ;;
  *) fail "unknown case" ;;
esac
echo "test_ckpt_identity $case np $np: ok"
done
echo "test_ckpt_identity $cases np $np: PASS"
