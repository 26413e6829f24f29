#!/usr/bin/env bash
# Checkpoint files are validated before use (issue 30):
#   test_ckpt_corrupt.sh CASES NP TEST_CKPT_BINARY
# A run of test_ckpt with two checkpoints makes a restart directory; each
# case of the comma list CASES (on its own copy of the directory) damages rank 1's file of the newest checkpoint (the checksum recomputed
# where the case is a wrong field in an otherwise intact file, as a buggy or
# hostile writer would leave it), and a restart from it must stop in MPI_Init,
# before the program runs, on every rank, with a non-zero exit status and a
# message naming the file and the field; never "out of memory". "intact":
# the undamaged directory restarts. "all": every rank's file is damaged, and
# every rank names its own file. "regsize": a file whose region is larger
# than the program's: the register call names the file and both sizes.
set -uo pipefail
cases=$1 np=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_ckpt_corrupt $case np $np: $*"; exit 1; }
case=setup
export TEST_CKPT_SLEEP_US=1000 TEST_CKPT_ITERS=70 ISOCHRON_CC_TIMEOUT=40
ISOCHRON_CC_DIR="$tmp/d" "$run" -np "$np" "$bin" api > "$tmp/first" 2>&1 || { cat "$tmp/first"; fail "the run making the checkpoints failed"; }
grep -q "ckpts 2 " "$tmp/first" || { cat "$tmp/first"; fail "the first run did not take 2 checkpoints"; }
mv "$tmp/d" "$tmp/made"
# edit FILE PYTHON-EXPRESSION-ON-BODY [keep]: body = the file without its checksum line; the checksum
# is recomputed unless "keep" (then the old one stays: the file no longer matches it)
edit() {
  python3 - "$1" "$2" "${3:-fix}" <<'PY'
import sys
path, expr, mode = sys.argv[1:4]
data = open(path, "rb").read()
body, trailer = data[:-25], data[-25:]
body = eval(expr, {"body": body})
def fnv(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
open(path, "wb").write(body + (trailer if mode == "keep" else b"fnv1a64 %016x\n" % fnv(body)))
PY
}
for case in ${cases//,/ }; do
rm -rf "$tmp/d"; cp -a "$tmp/made" "$tmp/d"
f=$tmp/d/ckpt.2/rank.1
file_re="checkpoint file $tmp/d/ckpt.2/rank.1: field"
case $case in
  intact) ;;
  magic)     edit "$f" 'b"X" + body[1:]' keep; want="rank 1: .*$file_re 'magic': not an isochron-cc checkpoint file" ;;
  version)   edit "$f" 'body.replace(b"isochron-cc-checkpoint 3\n", b"isochron-cc-checkpoint 7\n", 1)'; want="rank 1: .*$file_re 'version': '7', this library reads version 3" ;;
  flipped)   edit "$f" 'body[:-12] + bytes([body[-12] ^ 1]) + body[-11:]' keep; want="rank 1: .*$file_re 'checksum': the file says [0-9a-f]{16}, its contents give [0-9a-f]{16}" ;;
  truncated) python3 -c "import sys; p=sys.argv[1]; d=open(p,'rb').read(); open(p,'wb').write(d[:-40])" "$f"; want="rank 1: .*$file_re 'checksum': no 'fnv1a64' line at the end" ;;
  groups)    edit "$f" '__import__("re").sub(rb"\ngroups [0-9]+\n", b"\ngroups 2000000000\n", body, count=1)'; want="rank 1: .*$file_re 'groups': 2000000000 groups cannot fit in the [0-9]+ bytes that follow" ;;
  members)   edit "$f" '__import__("re").sub(rb"\ngroup ([0-9a-f]{16}) ([0-9]+) ([0-9]+)", rb"\ngroup \1 \2 2000000000", body, count=1)'; want="rank 1: .*$file_re 'group 1': size '2000000000' is not a number in \[1, $np\]" ;;
  member)    edit "$f" '__import__("re").sub(rb"\ngroup ([0-9a-f]{16}) ([0-9]+) 1 1\n", rb"\ngroup \1 \2 1 7\n", body, count=1)'; want="rank 1: .*$file_re 'group 2': member 1 '7' is not a rank in \[0, $((np - 1))\]" ;;
  hash)      edit "$f" '__import__("re").sub(rb"\ngroup [0-9a-f]{16}", b"\ngroup 0123456789abcdef", body, count=1)'; want="rank 1: .*$file_re 'group 1': hash 0123456789abcdef is not the hash of its members" ;;
  region)    edit "$f" 'body.replace(b"\nregion state 80\n", b"\nregion state 99999999999\n", 1)'; want="rank 1: .*$file_re 'region 1': region 'state' of 99999999999 bytes cannot fit in the [0-9]+ bytes that follow" ;;
  rank)      edit "$f" 'body.replace(b"\nrank 1\n", b"\nrank 0\n", 1)'; want="rank 1: .*$file_re 'rank': '0', expected 1" ;;
  all)       for r in $(seq 0 $((np - 1))); do edit "$tmp/d/ckpt.2/rank.$r" 'b"X" + body[1:]' keep; done
             want="(rank [0-9]+: )?ISOCHRON_CC_RESTART=$tmp/d: checkpoint file $tmp/d/ckpt.2/rank.[0-9]+: field 'magic'" ;;
  regsize)   edit "$f" 'body.replace(b"\nregion state 80\n", b"\nregion state 88\n", 1).replace(b"\nend\n", b"01234567\nend\n", 1)'
             want="rank 1: isochron_cc_register: region 'state' has 80 bytes, the checkpoint file $f \(checkpoint 2\) saved 88 for it" ;;
  *) fail "unknown case" ;;
esac
ISOCHRON_CC_RESTART="$tmp/d" ISOCHRON_CC_DIR="$tmp/d" "$run" -np "$np" "$bin" api > "$tmp/out" 2>&1
rc=$?
grep -v '^\s*$' "$tmp/out" | grep -v "^--\|^  \|^Primary\|^a non-zero\|^mpirun\|^the job\|^\[" | head -6 | cut -c1-400
if [ "$case" = intact ]; then
  [ "$rc" -eq 0 ] || fail "the restart from an intact directory failed"
  grep -q "restarted 2" "$tmp/out" || fail "the run did not restart from checkpoint 2"
else
  [ "$rc" -ne 0 ] || fail "the restart from a damaged file ran (exit 0)"
  ! grep -q "^result" "$tmp/out" || fail "the program ran"
  ! grep -qi "out of memory" "$tmp/out" || fail "out of memory: something was allocated from an unchecked count"
  n=$(grep -Ec "^isochron-cc: $want" "$tmp/out")
  if [ "$case" = all ]; then
    [ "$n" = "$np" ] || fail "expected one message from each of the $np ranks naming its file and the field, found $n"
  else
    [ "$n" = 1 ] || fail "expected one message matching '$want', found $n"
  fi
fi
echo "test_ckpt_corrupt $case np $np: ok"
done
echo "test_ckpt_corrupt $cases np $np: PASS"
