#!/usr/bin/env bash
# Issue 14, fault 4: a rank blocked in a long MPI_Recv entered before the
# checkpoint request must still take part. tests/cc/cc_latency --scenario recv:
# rank 0 sits in MPI_Recv from rank 1 while the others loop on their own
# communicator and rank 1 requests a checkpoint; the message is sent only once
# the checkpoint is done, so it completes only if rank 0 joins the protocol
# from inside its Recv. The state log must pass check_cc_log.py.
# CALL (default recv) is rank 0's blocking call (cc_latency --call): recv,
# probe, mprobe (then Mrecv), sendrecv_replace (dest MPI_PROC_NULL).
#   usage: test_cc_long_recv.sh NP CC_LATENCY [CALL]   (MPIRUN picks the launcher)
set -u
np=$1 exe=$2 call=${3:-recv}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/log" "$work/ckpt"
ISOCHRON_CC_MODE=cc ISOCHRON_CC_LOG="$work/log" ISOCHRON_CC_DIR="$work/ckpt" ISOCHRON_CC_TIMEOUT=6 \
  timeout -k 5 25 "$here/../../tools/mpirun-local" -np "$np" "$exe" --scenario recv --call "$call" --requests 2 --delay 0.1 \
  > "$work/out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "scenario recv call $call np $np checkpoints 2: done" "$work/out" || grep -q FAIL "$work/out"; then
  echo "test_cc_long_recv $call np $np: FAIL (exit $rc): the rank blocked in $call did not take part"
  grep -m3 -E 'isochron-cc|FAIL' "$work/out" || tail -5 "$work/out"
  exit 1
fi
if ! python3 "$here/check_cc_log.py" "$work/log" --np "$np" > "$work/check" 2>&1; then
  echo "test_cc_long_recv $call np $np: FAIL: state-log invariants"; head -12 "$work/check"; exit 1
fi
echo "test_cc_long_recv $call np $np: PASS"
