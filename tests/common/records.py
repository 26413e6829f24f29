"""What the check scripts of the tests share (one module, not a copy in each):
fail() prints "<script>: FAIL: <reason>" (the script's own name: check_output,
check_bind, ...) and exits 1; read() returns the records of a JSON Lines file,
failing with the file and line on a line that is not JSON; load() does the same
and also fails when the first record is not the context (the schema of every
driver's output); context() is the first context record of a file; of_type()
the records of one type.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    from records import fail, load  # noqa: E402
"""
import json
import os
import sys


def _name():
    return os.path.splitext(os.path.basename(sys.argv[0]))[0] or "check"


def fail(msg):
    print(f"{_name()}: FAIL:", msg)
    sys.exit(1)


def read(path):
    recs = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    with fh:
        for i, line in enumerate(fh):
            try:
                recs.append(json.loads(line))
            except ValueError as e:
                fail(f"{path} line {i+1} is not JSON: {e}")
    return recs


def load(path):
    recs = read(path)
    if not recs or recs[0].get("type") != "context":
        fail(f"{path}: first record is not the context")
    return recs


def context(path):
    for r in read(path):
        if r.get("type") == "context":
            return r
    fail(f"{path}: no context record")


def of_type(recs, rtype):
    return [r for r in recs if r.get("type") == rtype]
