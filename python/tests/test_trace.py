"""``isochron gantt`` and the report's trace section, on a real trace of libisochron-trace.so
(fixtures/trace-skew-4ranks.json: examples/trace_stencil at 4 ranks, 1 ms and 50 ppm of skew
injected, corrected by the default sync and tracking)."""
import json
import os

from conftest import fx

from isochron.trace import instance_table, load_trace

TRACE = fx("trace-skew-4ranks.json")


def test_instance_across_ranks():
    tr = load_trace(TRACE)
    assert tr.nranks == 4
    assert tr.instances("MPI_Allreduce") == 20
    inst = tr.instance("MPI_Allreduce", 5)
    assert [c["rank"] for c in inst] == [0, 1, 2, 3]
    assert all(c["instance"] == 5 for c in inst)
    # on the global clock no rank leaves before the last one entered (within the check's figure)
    err = float(tr.meta["check_max_abs_measured_offset_s"])
    assert max(c["global_start_s"] for c in inst) <= min(c["global_end_s"] for c in inst) + 2 * err
    # the local clocks carry the injected offsets (up to 1 ms): far apart
    assert max(c["local_start_s"] for c in inst) - min(c["local_start_s"] for c in inst) > 100e-6


def test_gantt_cli_writes_image_and_table(cli, tmp_path):
    out = tmp_path / "g.png"
    rc, so, se = cli("gantt", TRACE, "--call", "MPI_Allreduce", "--instance", "3", "-o", out)
    assert rc == 0, se
    assert "MPI_Allreduce #3 across 4 ranks" in so
    assert so.count("\n   ") >= 4                     # one row per rank
    assert out.stat().st_size > 5000
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_gantt_errors_name_choices(cli, tmp_path):
    rc, _, se = cli("gantt", TRACE, "--call", "MPI_Nosuch", "-o", tmp_path / "x.png")
    assert rc == 2 and "no MPI_Nosuch" in se and "MPI_Allreduce" in se
    rc, _, se = cli("gantt", TRACE, "--instance", "20", "-o", tmp_path / "x.png")
    assert rc == 2 and "instances 0..19" in se
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"traceEvents": []}))
    rc, _, se = cli("gantt", bad)
    assert rc == 2 and "not a trace of libisochron-trace.so" in se


def test_report_shows_trace(cli, tmp_path):
    rc, so, se = cli("report", fx("clock-hca3.jsonl"), "-o", tmp_path, "--trace", TRACE, "--instance", "2")
    assert rc == 0, se
    page = open(os.path.join(tmp_path, "index.html"), encoding="utf-8").read()
    assert '<h2 id="trace">Trace</h2>' in page and "MPI_Allreduce #2 across 4 ranks" in page
    assert page.count("data:image/png;base64") >= 2


def test_instance_table_flags_misaligned_clocks(tmp_path):
    tr = load_trace(TRACE)
    assert "clocks off" not in instance_table(tr, "MPI_Allreduce", 0)[-1]
    # the same trace with rank 1's global clock 1 ms late: the table says a rank left before another entered
    data = json.load(open(TRACE))
    for e in data["traceEvents"]:
        if e.get("ph") == "X" and e["tid"] == 1:
            e["args"]["global_start_s"] += 1e-3
            e["args"]["global_end_s"] += 1e-3
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(data))
    assert "clocks off" in instance_table(load_trace(moved), "MPI_Allreduce", 0)[-1]
