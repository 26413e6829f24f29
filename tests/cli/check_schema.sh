#!/usr/bin/env bash
# The drivers' JSON Lines satisfy the published schema
# (python/src/isochron/results-1.schema.json): a short run of each driver at
# 2 ranks, every record validated (the Python of SOURCE_DIR/.venv, which
# `make test` creates, has jsonschema).
#   check_schema.sh MPIRUN_LOCAL SOURCE_DIR OUTDIR BENCH CLOCK BARRIER
set -euo pipefail
launcher=$1 src=$2 out=$3 bench=$4 clock=$5 barrier=$6
py=$src/.venv/bin/python
mkdir -p "$out"
"$launcher" -np 2 "$bench" --ops allreduce,pingpong,put_fence --sizes 0,8,4K --raw --max-reps 20 --quiet --format none --jsonl "$out/schema-bench.jsonl"
"$launcher" -np 2 "$clock" --wait 0,0.2 --skew offset=1ms,drift=2,seed=3 --quiet --format none --jsonl "$out/schema-clock.jsonl"
"$launcher" -np 2 "$clock" --timer-cost --quiet --format none --jsonl "$out/schema-cost.jsonl"
"$launcher" -np 2 "$barrier" --calls 50 --trials 10 --payoff-trials 5 --payoff-sizes 0,4K --shift-sizes 4K --max-reps 20 --quiet --format none --jsonl "$out/schema-barrier.jsonl"
PYTHONPATH=$src/python/src "$py" - "$out"/schema-*.jsonl <<'PY'
import json, sys
from isochron.load import _validator
v, bad, n = _validator(), 0, 0
for f in sys.argv[1:]:
    for i, line in enumerate(open(f)):
        if not line.strip(): continue
        n += 1
        for e in v.iter_errors(json.loads(line)):
            bad += 1
            print(f"{f}:{i + 1}: {'.'.join(map(str, e.absolute_path))}: {e.message[:200]}")
print(f"check_schema: {n} records of {len(sys.argv) - 1} files, {bad} violations")
print("check_schema: PASS" if n and not bad else "check_schema: FAIL")
PY
