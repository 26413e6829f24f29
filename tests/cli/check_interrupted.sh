#!/usr/bin/env bash
# A run ended by SIGTERM (as mpirun forwards Ctrl-C, or a batch system's
# cancel) leaves a JSON Lines file whose every line parses, whose records
# finished before the signal are all there, and whose last record is an "end"
# saying complete: false and which signal; the Python package loads it with a
# warning, not an error.
#   check_interrupted.sh MPIRUN_LOCAL|direct NP SOURCE_DIR OUT DRIVER [ARGS...]
# INTERRUPT_SIGNAL: TERM (default) or INT; "direct" runs DRIVER without a launcher (one rank), so
# the signal reaches it, and its exit status must be 128 + the signal. Every line of the file must be
# a JSON record (no blank line).
# (the Python of SOURCE_DIR/.venv, which `make test` creates, loads the file)
set -uo pipefail
launcher=$1 np=$2 src=$3 out=$4
py=$src/.venv/bin/python
[ -x "$py" ] || py=python3
shift 4
rm -f "$out"
sig=${INTERRUPT_SIGNAL:-TERM}
if [ "$launcher" = direct ]; then "$@" --quiet --format none --jsonl "$out" &   # no launcher: the signal reaches the program itself
else "$launcher" -np "$np" "$@" --quiet --format none --jsonl "$out" &
fi
pid=$!
# wait until at least two records are written (context + one result), or a
# record matching $INTERRUPT_AFTER (the clock writes its context before the
# first wait: interrupt once a wait's summary is in), then interrupt
for _ in $(seq 1 600); do
  if [ -n "${INTERRUPT_AFTER:-}" ]; then grep -q "$INTERRUPT_AFTER" "$out" 2>/dev/null && break
  else [ -f "$out" ] && [ "$(wc -l < "$out")" -ge 2 ] && break; fi
  sleep 0.1
done
kill -"$sig" "$pid"
wait "$pid"
rc=$?
"$py" - "$out" "$sig" "$rc" "$launcher" <<'PY'
import json, signal, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), "the file does not end with a whole line"
lines = text[:-1].split("\n")
assert all(l.strip() for l in lines), "a blank line: not JSON Lines"   # every line is a record
recs = [json.loads(l) for l in lines]   # every line parses
end = recs[-1]
assert recs[0]["type"] == "context", recs[0]["type"]
# the signal the program received: the one sent, or SIGTERM under a launcher (Open MPI's mpirun answers
# SIGINT by sending SIGTERM to the ranks)
sent = "SIG" + sys.argv[2]
want = {sent} if sys.argv[4] == "direct" or sent == "SIGTERM" else {sent, "SIGTERM"}
assert end["type"] == "end" and end["complete"] is False and end["interrupted"] in want, (end, want)
if sys.argv[4] == "direct": assert int(sys.argv[3]) == 128 + getattr(signal, sent), ("exit status", sys.argv[3])
n = sum(r["type"] == "point" for r in recs)
unit = "points" if "points" in end else "checks" if "checks" in end else "steps"
if unit == "points": assert end["points"] == n, (end, n)
if unit == "checks":   # isochron-clock: every wait checked before the signal is in the file
    waits = [r["wait_s"] for r in recs if r["type"] == "summary"]
    ranks = {r["rank"] for r in recs if r["type"] == "model"}
    assert end["checks"] == len(waits) >= 1, (end, waits)
    assert sum(r["type"] == "accuracy" for r in recs) == len(waits) * len(ranks), recs
print(f"check_interrupted: {len(recs)} records, last {end}")
import isochron
ds = isochron.read(sys.argv[1])
assert any("complete: false" in w for w in ds.warnings), ds.warnings
print("check_interrupted: PASS")
PY
