"""Reading what a driver wrote with --jsonl, for the check_output scripts of the
tests: fail() prints "check_output: FAIL: <reason>" and exits 1; load() returns
the records of a JSON Lines file, failing on a line that is not JSON or when the
first record is not the context (the schema of every driver's output)."""
import json, sys


def fail(msg):
    print("check_output: FAIL:", msg)
    sys.exit(1)


def load(path):
    recs = []
    for i, line in enumerate(open(path)):
        try:
            recs.append(json.loads(line))
        except ValueError as e:
            fail(f"{path} line {i+1} is not JSON: {e}")
    if not recs or recs[0].get("type") != "context":
        fail("first record is not the context")
    return recs
