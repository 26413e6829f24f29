"""isochron.load / isochron.read on real driver output, damaged files and foreign input."""
import json
import warnings

import pytest
from conftest import fx

import isochron
from isochron import IsochronError, IsochronWarning


def test_bench_points_with_raw_repetitions():
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a complete file loads without a warning
        df = isochron.load(fx("bench-roundtime.jsonl"))
    assert len(df) == 9
    assert list(df["op"].unique()) == ["allreduce", "bcast", "bcast_linear"]
    assert sorted(df["bytes"].unique()) == [8, 1024, 65536]
    ctx = df.attrs["context"]
    assert ctx["tool"] == "isochron-bench" and ctx["scheme"] == "roundtime"
    assert ctx["run"]["ranks"] == 4
    assert df.attrs["truncated"] is False and df.attrs["warnings"] == []
    for _, p in df.iterrows():                       # raw data agree with the summary fields
        assert len(p["raw_time_s"]) == p["reps"]
        assert sum(p["raw_valid"]) == p["valid"]
        assert all(len(r) == 4 for r in p["raw_start_s"])
        valid = sorted(t for t, v in zip(p["raw_time_s"], p["raw_valid"]) if v)
        assert valid[0] == pytest.approx(p["min_s"]) and valid[-1] == pytest.approx(p["max_s"])


def test_points_without_raw_have_no_raw_columns():
    df = isochron.load(fx("bench-noraw.jsonl"))
    assert len(df) == 6
    assert "raw_time_s" not in df.columns
    assert {"median_s", "ci_lo_s", "ci_hi_s", "valid", "reps"} <= set(df.columns)


def test_clock_accuracy_rows_carry_the_sync_spec():
    df = isochron.load(fx("clock-hca3.jsonl"))
    assert len(df) == 4 * 3                           # ranks x waits
    assert set(df["wait_s"]) == {0, 1, 2}
    assert (df.loc[df["rank"] == 0, "measured_offset_s"] == 0).all()
    assert df["sync_spec"].str.startswith("hca3/").all()
    assert (df["duration_s"] > 0).all()
    summary = isochron.load(fx("clock-hca3.jsonl"), record="summary")
    for _, s in summary.iterrows():                  # the summary is the max over ranks
        sel = df[df["wait_s"] == s["wait_s"]]
        assert s["max_abs_measured_offset_s"] == pytest.approx(sel["measured_offset_s"].abs().max())


def test_concatenated_runs_are_numbered():
    ds = isochron.read(fx("clock-algs.jsonl"))
    assert len(ds.contexts) == 6
    summary = ds.frame("summary")
    assert sorted(summary["run"].unique()) == list(range(6))
    assert len(summary) == 12
    algs = [c["sync_spec"].split("/")[0] for c in ds.contexts]
    assert algs == ["hca3", "jk", "skampi"] * 2


def test_several_files_in_one_dataset():
    ds = isochron.read([fx("bench-roundtime.jsonl"), fx("bench-barrier.jsonl")])
    pts = ds.frame("point")
    assert len(pts) == 18
    assert set(pts["scheme"]) == {"roundtime", "barrier"}
    assert pts.groupby("run")["file"].nunique().eq(1).all()
    assert ds.tools == ["isochron-bench"]


def test_barrier_driver_records():
    df = isochron.load(fx("barrier-4ranks.jsonl"))            # default: cost points
    assert df.attrs["context"]["tool"] == "isochron-barrier"
    assert "rds" in set(df["barrier"]) and len(df) == len(df.attrs["context"]["barriers"])
    skew = isochron.load(fx("barrier-4ranks.jsonl"), record="skew")
    for _, s in skew.iterrows():
        assert len(s["samples_s"]) == s["valid"]


def test_truncated_file_loads_what_is_complete_and_says_so():
    with pytest.warns(IsochronWarning) as rec:
        df = isochron.load(fx("bench-truncated.jsonl"))
    msgs = [str(w.message) for w in rec]
    assert any(":10: the last line is cut mid-record" in m for m in msgs)
    assert any("no 'end' record" in m and "8 complete 'point' records" in m for m in msgs)
    assert len(df) == 8 and df.attrs["truncated"] is True
    assert df.attrs["warnings"] == msgs


def test_file_cut_inside_its_first_record(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text(open(fx("clock-hca3.jsonl")).read()[:150])
    with pytest.raises(IsochronError, match="only line is cut mid-record.*nothing to load"):
        isochron.read(str(path))


def test_missing_end_record_is_reported():
    with pytest.warns(IsochronWarning, match="no 'end' record"):
        df = isochron.load(fx("bench-noend.jsonl"))
    assert len(df) == 6


@pytest.mark.parametrize("name, version, age", [("bench-schema2.jsonl", 2, "newer"),
                                                 ("clock-schema0.jsonl", 0, "older")])
def test_other_schema_versions_are_refused_by_number(name, version, age):
    with pytest.raises(IsochronError, match=f"schema version {version} is not supported.*{age}"):
        isochron.load(fx(name))


def test_missing_file():
    with pytest.raises(IsochronError, match=r"nope\.jsonl: no such file"):
        isochron.load("nope.jsonl")


def test_csv_output_is_not_json_lines():
    with pytest.raises(IsochronError, match="not an isochron JSON Lines file.*looks like CSV"):
        isochron.load(fx("bench-allreduce.csv"))


@pytest.mark.parametrize("text, msg", [
    ('{"name": "x", "value": 3}\n', "not an isochron record"),
    ("[1, 2, 3]\n", "not an isochron record"),
    ("", "empty file"),
    ("\x00\x01\x02 binary", "not JSON"),
])
def test_foreign_input(tmp_path, text, msg):
    path = tmp_path / "in.jsonl"
    path.write_text(text)
    with pytest.raises(IsochronError, match=msg):
        isochron.read(str(path))


def test_directory_and_binary(tmp_path):
    with pytest.raises(IsochronError, match="is a directory"):
        isochron.read(str(tmp_path))
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\xff\xfe\x00\x81" * 10)
    with pytest.raises(IsochronError, match="not a text file"):
        isochron.read(str(path))


def test_records_before_any_context(tmp_path):
    lines = open(fx("bench-noraw.jsonl")).read().splitlines()
    path = tmp_path / "headless.jsonl"
    path.write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(IsochronError, match="expected a 'context' record first, found 'point'"):
        isochron.read(str(path))


def test_corrupt_line_in_the_middle_is_an_error_not_a_truncation(tmp_path):
    lines = open(fx("bench-noraw.jsonl")).read().splitlines()
    lines[3] = lines[3][:40]
    path = tmp_path / "corrupt.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(IsochronError, match=r"corrupt\.jsonl:4: not valid JSON"):
        isochron.read(str(path))


def test_unknown_record_type_request():
    with pytest.raises(IsochronError, match=r"no 'skew' records \(it has: end, point\)"):
        isochron.load(fx("bench-noraw.jsonl"), record="skew")


def test_context_without_schema(tmp_path):
    lines = open(fx("clock-hca3.jsonl")).read().splitlines()
    ctx = json.loads(lines[0])
    del ctx["schema"]
    path = tmp_path / "noschema.jsonl"
    path.write_text("\n".join([json.dumps(ctx)] + lines[1:]) + "\n")
    with pytest.raises(IsochronError, match="no 'schema' version"):
        isochron.read(str(path))


def test_shmem_points_load_with_their_loop_timing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a complete isochron-shmem run loads without a warning
        df = isochron.load(fx("shmem-2pes.jsonl"))
    ctx = df.attrs["context"]
    assert ctx["tool"] == "isochron-shmem" and ctx["nprocs"] == 2
    assert ctx["options"]["loop"] == "outside" and ctx["options"]["transport"] == "shmem"
    assert set(df["op"]) == {"put", "get", "put_nbi_overlap", "bcast_barrier", "bcast_ack"}
    assert set(df["family"]) == {"rma", "nbi", "bcast_method"}
    ov = df[df["op"] == "put_nbi_overlap"]
    assert len(ov) == 2 and ov["overlap"].between(0, 1).all()
    assert (df[df["op"] == "get"]["median_s"] > 0).all()


def test_clock_end_record_interrupted_or_absent(tmp_path):
    """isochron-clock writes each wait as it is measured and closes with an 'end' record: one
    saying complete: false (SIGTERM after the first wait) warns; a file from before the clock
    wrote end records (none) loads without a warning."""
    recs = [json.loads(line) for line in open(fx("clock-hca3.jsonl")) if line.strip()]
    first_wait = [r for r in recs if r["type"] not in ("accuracy", "summary") or r["wait_s"] == 0]
    cut = tmp_path / "clock-interrupted.jsonl"
    end = {"schema": 1, "type": "end", "checks": 1, "wall_s": 1.2, "complete": False, "interrupted": "SIGTERM"}
    cut.write_text("".join(json.dumps(r) + "\n" for r in first_wait + [end]))
    with pytest.warns(IsochronWarning, match="ended early"):
        df = isochron.load(str(cut))
    assert set(df["wait_s"]) == {0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        isochron.load(fx("clock-hca3.jsonl"))
