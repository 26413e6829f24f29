"""Fields a file may lack or hold as text are answered, never a crash or a nan (issue 40.4).

Before: ``isochron models`` on an allpairs file without ``nprocs`` (in the context and the pair
records: both optional in the schema) ended ``internal error in 'models': KeyError: 'nprocs'``
(exit 3); ``isochron gantt`` on a trace whose ``check_max_abs_measured_offset_s`` is ``"n/a"``
printed ``check nan us`` (exit 0). Now: a missing field is the one-line error of any malformed
record (exit 2, naming the file, the line and the field), a run whose context has the count lends
it to its records, and metadata that is not a time is named in the table, not printed as nan.
"""
import json

import pytest
from conftest import fx

AP = fx("allpairs-4ranks.jsonl")
TRACE = fx("trace-skew-4ranks.json")


def _allpairs(tmp_path, drop_context, drop_pairs, name="ap.jsonl"):
    recs = [json.loads(line) for line in open(AP)]
    for r in recs:
        if (r["type"] == "context" and drop_context) or (r["type"] == "pair" and drop_pairs):
            r.pop("nprocs", None)
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return p, recs


def test_models_without_nprocs_anywhere_is_a_malformed_file(cli, tmp_path):
    p, recs = _allpairs(tmp_path, True, True)
    line = next(i for i, r in enumerate(recs) if r["type"] == "pair") + 1
    rc, _, err = cli("models", p)
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("isochron: error:"), err
    assert "internal error" not in err and "KeyError" not in err
    assert f"{p}:{line}: 'pair' record, field 'nprocs': missing" in err, err
    assert "context record has no process count ('nprocs' absent)" in err, err


def test_models_pairs_take_nprocs_from_their_context(cli, tmp_path):
    ref = tmp_path / "ref.json"
    rc, so_ref, err = cli("models", AP, "--json", ref)
    assert rc == 0, err
    p, _ = _allpairs(tmp_path, False, True)
    out = tmp_path / "m.json"
    rc, so, err = cli("models", p, "--json", out)
    assert rc == 0, err
    assert json.load(open(out))["nprocs"] == json.load(open(ref))["nprocs"] == 4


def test_models_without_nprocs_in_the_context_only(cli, tmp_path):
    p, _ = _allpairs(tmp_path, True, False)
    rc, _, err = cli("models", p)
    assert rc == 0, err


def _trace_with(tmp_path, value, name):
    d = json.load(open(TRACE))
    if value is None:
        d["isochron"].pop("check_max_abs_measured_offset_s")
    else:
        d["isochron"]["check_max_abs_measured_offset_s"] = value
    p = tmp_path / name
    p.write_text(json.dumps(d))
    return p


@pytest.mark.parametrize("value, words", [
    ("n/a", "check unknown (check_max_abs_measured_offset_s is 'n/a', not a number)"),
    ("nan", "check not measured (check_max_abs_measured_offset_s is 'nan')"),
    ("inf", "check unknown (check_max_abs_measured_offset_s is 'inf', not a finite number)"),
    (None, "check not recorded (check_max_abs_measured_offset_s absent)"),
    ("2.5e-07", "check 0.250 us"),
])
def test_gantt_names_metadata_that_is_not_a_time(cli, tmp_path, value, words):
    p = _trace_with(tmp_path, value, "t.json")
    rc, so, err = cli("gantt", p, "--instance", "1", "-o", tmp_path / "g.png")
    assert rc == 0, err
    head = so.splitlines()[0]
    assert words in head, head
    assert "nan us" not in so
