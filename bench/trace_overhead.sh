#!/usr/bin/env bash
# Overhead of libisochron-trace.so per MPI call (issue 15: target < 100 ns beyond the call).
# Runs examples/trace_microbench (median of REPEATS blocks of N calls) ROUNDS times in each of
# three configurations, interleaved, and prints the median ns/call of each and the differences:
#   untraced     the program alone
#   traced       LD_PRELOAD=libisochron-trace.so, every call recorded (nothing written: FORMATS=none)
#   notrack      the same with ISOCHRON_TRACE_TRACK=off: the recording alone, no clock refreshes
#   deselected   LD_PRELOAD, but ISOCHRON_TRACE_CALLS=MPI_Sendrecv: the wrappers pass straight to PMPI
#   baseline     only with BASELINE_LIB=path: "traced" with another build of the library (e.g. the
#                previous commit's), in the same rounds, so two versions are compared interleaved
# Usage: bench/trace_overhead.sh [NP (default 2)] [ROUNDS (default 5)]; BUILD=dir overrides build/.
# On a shared machine the numbers carry the others' load: compare the columns, run it twice.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
NP=${1:-2}
ROUNDS=${2:-5}
[ -z "${BENCH_QUICK:-}" ] || ROUNDS=${2:-1}   # BENCH_QUICK=1: a short smoke run
LIB=$B/libisochron-trace.so
APP=$B/trace_microbench
[ -x "$APP" ] && [ -f "$LIB" ] || { echo "trace_overhead: build $APP and $LIB first (cmake --build $B)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$ROUNDS"); do
  tools/mpirun-local -np "$NP" "$APP" 20000 7 > "$tmp/untraced.$r"
  ISOCHRON_TRACE_FORMATS=none ISOCHRON_TRACE_MAX_EVENTS=2000000 LD_PRELOAD=$LIB \
    tools/mpirun-local -np "$NP" "$APP" 20000 7 > "$tmp/traced.$r"
  ISOCHRON_TRACE_FORMATS=none ISOCHRON_TRACE_MAX_EVENTS=2000000 ISOCHRON_TRACE_TRACK=off LD_PRELOAD=$LIB \
    tools/mpirun-local -np "$NP" "$APP" 20000 7 > "$tmp/notrack.$r"
  ISOCHRON_TRACE_FORMATS=none ISOCHRON_TRACE_CALLS=MPI_Sendrecv LD_PRELOAD=$LIB \
    tools/mpirun-local -np "$NP" "$APP" 20000 7 > "$tmp/deselected.$r"
  if [ -n "${BASELINE_LIB:-}" ]; then
    ISOCHRON_TRACE_FORMATS=none ISOCHRON_TRACE_MAX_EVENTS=2000000 LD_PRELOAD=$BASELINE_LIB \
      tools/mpirun-local -np "$NP" "$APP" 20000 7 > "$tmp/baseline.$r"
  fi
done
python3 - "$tmp" "$ROUNDS" "$NP" "${BASELINE_LIB:-}" <<'PY'
import statistics, sys
d, rounds, np_, base = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def load(cfg):
    out = {}
    for r in range(1, rounds + 1):
        for line in open(f"{d}/{cfg}.{r}"):
            k, v = line.rsplit(None, 1)
            out.setdefault(k, []).append(float(v))
    return {k: statistics.median(v) for k, v in out.items()}
u, t, n, s = load("untraced"), load("traced"), load("notrack"), load("deselected")
print(f"libisochron-trace.so overhead, {np_} ranks, median of {rounds} runs (ns per call)")
print(f"{'call':<20}{'untraced':>10}{'traced':>10}{'notrack':>10}{'deselected':>12}{'traced-untr.':>14}{'notrack-untr.':>15}{'desel.-untr.':>14}")
for k in u:
    print(f"{k:<20}{u[k]:>10.1f}{t[k]:>10.1f}{n[k]:>10.1f}{s[k]:>12.1f}{t[k] - u[k]:>14.1f}{n[k] - u[k]:>15.1f}{s[k] - u[k]:>14.1f}")
if base:
    b = load("baseline")
    print(f"\nbaseline {base}, the same rounds (ns per call)")
    print(f"{'call':<20}{'untraced':>10}{'baseline':>10}{'traced':>10}{'base.-untr.':>13}{'traced-untr.':>14}")
    for k in u:
        print(f"{k:<20}{u[k]:>10.1f}{b[k]:>10.1f}{t[k]:>10.1f}{b[k] - u[k]:>13.1f}{t[k] - u[k]:>14.1f}")
PY
