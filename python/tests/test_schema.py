"""The output format as a JSON Schema (src/isochron/results-1.schema.json): every stored
driver output satisfies it, and a malformed record is refused with one line naming the file,
the line and the field, never an internal error (issue 17's corpus: a median that is a string,
null fields, a list where a name belongs, a context that is not an object). A seeded random
mutation of real records then checks that nothing else escapes the loader."""
import json
import os
import random

import pytest

import isochron
from isochron.load import _validator
from conftest import FIXTURES, fx

GOOD = ["bench-roundtime.jsonl", "bench-track.jsonl", "bench-noraw.jsonl", "bench-max.jsonl",
        "barrier-4ranks.jsonl", "clock-hca3.jsonl", "clock-skew.jsonl", "clock-track.jsonl"]


@pytest.mark.parametrize("name", GOOD)
def test_driver_outputs_satisfy_the_schema(name):
    v = _validator()
    for i, line in enumerate(open(fx(name))):
        if line.strip():
            errors = list(v.iter_errors(json.loads(line)))
            assert not errors, f"{name}:{i + 1}: {errors[0].message}"


def _write(tmp_path, lines):
    p = tmp_path / "bad.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return str(p)


def _records(name):
    return [json.loads(l) for l in open(fx(name)) if l.strip()]


def _first(recs, rtype):
    return next(i for i, r in enumerate(recs) if r["type"] == rtype)


@pytest.mark.parametrize("rtype,field,value,expect", [
    ("point", "median_s", "fast", "'median_s'"),
    ("point", "op", ["allreduce"], "'op'"),
    ("point", "bytes", None, "'bytes'"),
    ("point", "reps", -3, "'reps'"),
    ("point", "stop", None, "'stop'"),
    ("end", "complete", "yes", "'complete'"),
    ("context", "tool", 7, "'tool'"),
])
def test_malformed_field_is_named(tmp_path, rtype, field, value, expect):
    recs = _records("bench-roundtime.jsonl")
    i = _first(recs, rtype)
    recs[i][field] = value
    with pytest.raises(isochron.IsochronError) as err:
        isochron.read(_write(tmp_path, recs))
    msg = str(err.value)
    assert f"bad.jsonl:{i + 1}:" in msg and expect in msg, msg


def test_missing_required_field_is_named(tmp_path):
    recs = _records("bench-roundtime.jsonl")
    i = _first(recs, "point")
    del recs[i]["median_s"]
    with pytest.raises(isochron.IsochronError, match=rf"bad.jsonl:{i + 1}: 'point' record: 'median_s' is a required property"):
        isochron.read(_write(tmp_path, recs))


def test_context_that_is_not_an_object(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('[{"schema": 1, "type": "context"}]\n')
    with pytest.raises(isochron.IsochronError, match=r"bad.jsonl:1: not an isochron record"):
        isochron.read(str(p))


def test_random_mutations_never_escape(tmp_path):
    """400 seeded mutations of real records (a field set to a value of another JSON type, a
    field removed, a record replaced by a scalar): each loads or raises IsochronError."""
    rng = random.Random(17)
    values = [None, "", "x", -1, 0, 1.5, 1e308, [], [1, "a"], {}, {"a": None}, True]
    sources = [_records(n) for n in GOOD]
    escaped = []
    for k in range(400):
        recs = [dict(r) for r in rng.choice(sources)]
        i = rng.randrange(len(recs))
        what = rng.random()
        if what < 0.7:
            key = rng.choice(sorted(recs[i]))
            recs[i][key] = rng.choice(values)
        elif what < 0.9:
            recs[i].pop(rng.choice(sorted(recs[i])))
        else:
            recs[i] = rng.choice(values)
        path = tmp_path / f"m{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))
        try:
            ds = isochron.read(str(path))
            isochron.tables(ds)
        except isochron.IsochronError:
            pass
        except Exception as exc:  # noqa: BLE001 - this is what the test hunts
            escaped.append(f"mutation {k}: record {i}: {type(exc).__name__}: {exc}")
    assert not escaped, "\n".join(escaped[:10])
