#!/usr/bin/env bash
# The drivers' JSON Lines satisfy the published schema
# (python/src/isochron/results-1.schema.json): short runs of each driver, in
# every mode that writes a record type of its own (allpairs: pair, matrix; p2t:
# triplet; --startup: startup; isochron-shmem when built), every record
# validated, and the record types cover each other both ways: every type
# written has its definition in the schema, every type the schema defines was
# written here (the Python of SOURCE_DIR/.venv, which `make test` creates, has
# jsonschema).
#   check_schema.sh MPIRUN_LOCAL SOURCE_DIR OUTDIR BENCH CLOCK BARRIER [SHMEM]
set -euo pipefail
launcher=$1 src=$2 out=$3 bench=$4 clock=$5 barrier=$6 shmem=${7:-}
py=$src/.venv/bin/python
mkdir -p "$out"
"$launcher" -np 2 "$bench" --ops allreduce,pingpong,put_fence --sizes 0,8,4K --raw --max-reps 20 --quiet --format none --jsonl "$out/schema-bench.jsonl"
"$launcher" -np 2 "$clock" --wait 0,0.2 --skew offset=1ms,drift=2,seed=3 --quiet --format none --jsonl "$out/schema-clock.jsonl"
"$launcher" -np 2 "$clock" --timer-cost --quiet --format none --jsonl "$out/schema-cost.jsonl"
"$launcher" -np 2 "$barrier" --calls 50 --trials 10 --payoff-trials 5 --payoff-sizes 0,4K --shift-sizes 4K --max-reps 20 --quiet --format none --jsonl "$out/schema-barrier.jsonl"
rm -f "$out/schema-shmem.jsonl"
"$launcher" -np 3 "$bench" --ops allpairs --sizes 0,1K --min-reps 5 --max-reps 5 --quiet --format none --jsonl "$out/schema-allpairs.jsonl"
"$launcher" -np 3 "$bench" --ops p2t --sizes 0 --min-reps 5 --max-reps 5 --quiet --format none --jsonl "$out/schema-p2t.jsonl"
"$launcher" -np 2 "$bench" --startup --quiet --format none --jsonl "$out/schema-startup.jsonl"
if [ -n "$shmem" ]; then
  "$launcher" -np 2 "$shmem" --ops put,get --sizes 8 --min-reps 3 --max-reps 3 --iters 5 --check 0 --quiet --format none --jsonl "$out/schema-shmem.jsonl"
fi
PYTHONPATH=$src/python/src "$py" - "$src/python/src/isochron/results-1.schema.json" "$out"/schema-*.jsonl <<'PY'
import collections, json, sys
from isochron.dataset import _validator
defined = set(json.load(open(sys.argv[1]))["$defs"])
v, bad, n, seen = _validator(), 0, 0, collections.Counter()
for f in sys.argv[2:]:
    for i, line in enumerate(open(f)):
        if not line.strip(): continue
        n += 1
        rec = json.loads(line)
        seen[rec.get("type")] += 1
        for e in v.iter_errors(rec):
            bad += 1
            print(f"{f}:{i + 1}: {'.'.join(map(str, e.absolute_path))}: {e.message[:200]}")
undefined, unwritten = sorted(set(seen) - defined), sorted(defined - set(seen))
for t in undefined:
    bad += 1
    print(f"record type {t!r} ({seen[t]} records) is written but the schema does not define it")
for t in unwritten:
    bad += 1
    print(f"record type {t!r} is defined by the schema but no run here wrote it (add a run that does)")
print(f"check_schema: {n} records of {len(sys.argv) - 2} files, types {dict(sorted(seen.items()))}, {bad} violations")
print("check_schema: PASS" if n and not bad else "check_schema: FAIL")
PY
