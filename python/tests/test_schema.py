"""The output format as a JSON Schema (src/isochron/results-1.schema.json): every stored
driver output satisfies it, and a malformed record is refused with one line naming the file,
the line and the field, never an internal error (issue 17's corpus: a median that is a string,
null fields, a list where a name belongs, a context that is not an object). A seeded random
mutation of real records then checks that nothing else escapes the loader."""
import json
import os
import random

import pytest
from conftest import fx

import isochron
from isochron.load import _validator

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


# The fields of CONTRACT.md (issue 26: resolution, timing method, bound kind, library defects;
# the clock checks' two bounds and truth) are in the schema: a record carrying them with the
# contract's types loads, one with a wrong type is refused naming the field.
CONTRACT_POINT = {"resolution_s": 3.1e-8, "below_resolution": True, "uncertain": False,
                  "timing": "loop", "timing_choice": "auto", "loop_k": 64,
                  "clock_bound_kind": "statistical", "clock_bound_stat_s": 1.2e-7,
                  "clock_bound_hard_s": None, "library_defect": "shmem_long_atomic_fetch_and left the target unchanged"}
CONTRACT_CHECK = {"bound_stat_s": 2e-7, "bound_hard_s": None, "bound_kind": "hard",
                  "true_offset_s": 1e-8, "truth": "host-monotonic (boot_id 1234)"}


def test_contract_fields_validate():
    v = _validator()
    point = dict(_records("bench-roundtime.jsonl")[_first(_records("bench-roundtime.jsonl"), "point")])
    point.update(CONTRACT_POINT)
    assert not list(v.iter_errors(point))
    acc = dict(_records("clock-hca3.jsonl")[_first(_records("clock-hca3.jsonl"), "accuracy")])
    acc.update(CONTRACT_CHECK)
    assert not list(v.iter_errors(acc))


@pytest.mark.parametrize("rtype,field,value", [
    ("point", "resolution_s", "1ns"), ("point", "below_resolution", 1), ("point", "uncertain", "no"),
    ("point", "timing", 3), ("point", "timing_choice", "maybe"), ("point", "loop_k", 0),
    ("point", "loop_k", 2.5), ("point", "clock_bound_kind", "soft"), ("point", "clock_bound_hard_s", "x"),
    ("point", "library_defect", ["x"]), ("accuracy", "bound_kind", "exact"), ("accuracy", "bound_stat_s", []),
    ("accuracy", "truth", 5),
])
def test_contract_fields_wrong_type_is_named(tmp_path, rtype, field, value):
    name = "bench-roundtime.jsonl" if rtype == "point" else "clock-hca3.jsonl"
    recs = _records(name)
    i = _first(recs, rtype)
    recs[i][field] = value
    with pytest.raises(isochron.IsochronError) as err:
        isochron.read(_write(tmp_path, recs))
    assert f"bad.jsonl:{i + 1}:" in str(err.value) and repr(field) in str(err.value), str(err.value)


# The loader checks records with a predicate compiled from the schema (schema_check.py) and
# calls the full validator only on records it refuses: the two must agree on every record, or
# a malformed record would load. Checked on every stored driver record and on seeded mutations
# (values of every JSON type and the edge cases of the keywords: 1.0 as an integer, booleans
# as numbers, NaN against a minimum, items above a maximum, a type that is not a string).
def _all_stored_records():
    import glob
    here = os.path.dirname(__file__)
    out = []
    for f in sorted(glob.glob(os.path.join(here, "fixtures", "*.jsonl"))
                    + glob.glob(os.path.join(here, "data", "*", "*.jsonl"))):
        for line in open(f, encoding="utf-8"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def test_compiled_check_agrees_with_the_full_validator():
    from isochron.load import _fast_check
    fast, full = _fast_check(), _validator()
    assert type(fast).__name__ == "_ShapeChecker"           # the schema compiled, no fallback
    recs = _all_stored_records()
    assert len(recs) > 500
    values = [None, True, False, 0, 1, -1, 1.0, 2.5, -0.0, float("nan"), float("inf"), -1e-300,
              "", "x", "statistical", "auto", [], [0.5], [1.5], [None], ["a"], {}, {"median": "x"},
              {"median": None}, 10 ** 20]
    rng = random.Random(30)
    disagree = []
    cases = list(recs)
    for _ in range(1500):
        rec = dict(rng.choice(recs))
        what = rng.random()
        if what < 0.75:
            key = rng.choice(sorted(rec) + list(CONTRACT_POINT) + ["type", "schema"])
            rec[key] = rng.choice(values)
        elif what < 0.9:
            rec.pop(rng.choice(sorted(rec)))
        else:
            rec["type"] = rng.choice(["point", "cost", "accuracy", "end", "skew", "nosuch", 3])
        cases.append(rec)
    for rec in cases:
        for _ in range(2):                       # the second call runs the remembered plan
            if fast(rec) != full.is_valid(rec):
                disagree.append(f"fast {fast(rec)}, full {full.is_valid(rec)}: {json.dumps(rec)[:300]}")
    assert not disagree, "\n".join(disagree[:5])
    assert sum(not full.is_valid(r) for r in cases) > 300   # the mutations do break records


def test_compiler_refuses_unknown_keywords():
    from isochron.schema_check import Unsupported, compile_schema
    with pytest.raises(Unsupported):
        compile_schema({"type": "object", "properties": {"a": {"pattern": "^x"}}})
    ok = compile_schema({"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}})
    assert ok({"a": 1.0}) and not ok({"a": 0}) and not ok({"a": True}) and ok({"b": "x"})
