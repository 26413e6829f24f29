"""Models from all-pairs round trips (isochron.models, ``isochron models``): fits recover known
parameters, the models JSON round-trips, predictions follow the algorithms' message counts, and
bad input fails with one clear line."""
import json
import math
import random

import pytest
from conftest import fx

from isochron import models as M

AP = fx("allpairs-4ranks.jsonl")
COLL = fx("p2pcoll-4ranks.jsonl")


def test_hockney_recovers_known_parameters():
    alpha, beta = 2.5e-6, 1 / 5e9
    rnd = random.Random(7)
    m = [0] + [2 ** k for k in range(1, 22, 2)]
    se = [0.02 * (alpha + beta * x) for x in m]
    t = [alpha + beta * x + e * rnd.gauss(0, 1) for x, e in zip(m, se)]
    h = M.hockney_fit(m, t, se)
    assert abs(h["alpha"] - alpha) < 3 * h["alpha_se"] and h["alpha_se"] < 0.05 * alpha
    assert abs(h["beta"] - beta) < 3 * h["beta_se"] and h["beta_se"] < 0.05 * beta
    two = M.hockney_fit([0, 65536], [3e-6, 3e-6 + 65536e-10], [1e-8, 3e-8])
    assert two["alpha"] == pytest.approx(3e-6) and two["beta"] == pytest.approx(1e-10)
    assert two["beta_se"] == pytest.approx(math.sqrt(1e-16 + 9e-16) / 65536)


def test_fit_of_a_real_run():
    m = M.fit(AP)
    assert m["nprocs"] == 4 and len(m["pairs"]) == 6 and m["sizes"] == [0, 1024, 16384, 65536]
    assert {(p["i"], p["j"]) for p in m["pairs"]} == {(i, j) for i in range(4) for j in range(i + 1, 4)}
    for p in m["pairs"]:
        assert p["hockney"]["alpha"] > 0 and p["hockney"]["beta"] > 0
        assert p["loggp"]["G"] == p["hockney"]["beta"] and not p["loggp"]["g_bound"]
        assert p["loggp"]["g"] >= 0
    # a file without gap_s (older driver): g is the lower bound o, flagged
    h = m["pairs"][0]["hockney"]
    lg = M.loggp_from(h, 1e-7)
    assert lg["g"] == 1e-7 and lg["g_bound"]


def test_models_json_round_trips(tmp_path, cli):
    m = M.fit(AP)
    path = M.to_json(m, tmp_path / "m.json")
    back = M.from_json(path)
    assert json.loads(json.dumps(back)) == json.loads(json.dumps(m))
    rc, out, _ = cli("models", AP, "--json", tmp_path / "c.json")
    assert rc == 0 and "0-1" in out and "LogGP" in out
    rc2, out2, _ = cli("models", tmp_path / "c.json")
    assert rc2 == 0 and out2.splitlines()[:8] == out.splitlines()[:8]


def test_predictions_follow_message_counts():
    par = {(i, j): (1.0, 0.0) for i in range(8) for j in range(8) if i != j}
    for p, logp in ((2, 1), (3, 2), (4, 2), (5, 3), (8, 3)):
        for op in M.PREDICTED_OPS:
            want = p - 1 if op.endswith("linear") else logp
            assert M.predict(op, p, 0, par) == want, (op, p)
    par = {k: (0.0, 1.0) for k in par}
    for op in ("scatter_binomial", "gather_binomial", "scatter_linear", "gather_linear"):
        assert M.predict(op, 8, 1, par) == 7          # every block crosses into the root once
    assert M.predict("bcast_binomial", 8, 1, par) == 3


def test_compare_with_measurement(cli, tmp_path):
    rows = M.compare(M.fit(AP), COLL)
    assert {r["op"] for r in rows} == set(M.PREDICTED_OPS)
    assert all(r["predicted_s"] > 0 and math.isfinite(r["rel_err"]) for r in rows)
    rc, out, _ = cli("models", AP, "--predict", COLL, "--plot", tmp_path / "p.png",
                     "--heatmap", tmp_path / "h.png")
    assert rc == 0 and "rel.err" in out and (tmp_path / "p.png").stat().st_size > 0
    assert (tmp_path / "h.png").stat().st_size > 0


@pytest.mark.parametrize("args, words", [
    (["models", fx("barrier-4ranks.jsonl")], ["no 'pair' records", "--ops allpairs"]),
    (["models", AP, "--mode", "sequential"], ["no pair records of mode 'sequential'"]),
    (["models", AP, "--plot", "x.png"], ["--predict"]),
    (["models", AP, "--predict", fx("barrier-4ranks.jsonl")], ["no measured points of"]),
    (["models", AP, "--heatmap", "x.png", "--heatmap-size", "7"], ["no matrix at 7 B"]),
])
def test_bad_input_fails_clearly(cli, args, words):
    rc, _, err = cli(*args)
    assert rc == 2 and err.startswith("isochron: error:")
    for w in words:
        assert w in err


def test_one_size_and_bad_json_refused(cli, tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_text("".join(l for l in open(AP) if '"bytes":1024' not in l and '"bytes":16384' not in l
                           and '"bytes":65536' not in l))
    rc, _, err = cli("models", one)
    assert rc == 2 and "at least two distinct sizes" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "something else"}')
    rc, _, err = cli("models", bad)
    assert rc == 2 and "not an isochron models file" in err
    bad.write_text("{")
    rc, _, err = cli("models", bad)
    assert rc == 2 and "not JSON" in err
