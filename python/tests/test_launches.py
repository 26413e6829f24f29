"""Launch sets (`isochron run`): seeded interleaving, launch-level statistics recomputed
independently from the raw files, honest comparison (A/A: no verdict; A/B: detected), and an
end-to-end run of real MPI launches.

The sets under data/ were written by `isochron run` driving the real isochron-bench (see
data/README.md): aa-2ranks holds two identical configurations (an A/A set), bcast-4ranks
bcast_linear against bcast_binomial at 4 ranks (a real difference: the linear root sends the
buffer three times, the binomial one twice).
"""
import glob
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

import isochron
from isochron import IsochronError, launches
from isochron.compare import compare

DATA = os.path.join(os.path.dirname(__file__), "data")
AA = os.path.join(DATA, "aa-2ranks")
AB = os.path.join(DATA, "bcast-4ranks")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _raw_points(setdir):
    """Point records straight from the JSON Lines files (not through isochron.read)."""
    out = []
    for path in sorted(glob.glob(os.path.join(setdir, "launch-*.jsonl"))):
        with open(path) as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["type"] == "point":
                    out.append(rec)
    return out


# ---- interleaving ---------------------------------------------------------------------------

def test_order_reproducible_from_seed_and_balanced():
    a = launches.schedule(["A", "B", "C"], 6, seed=5)
    assert a == launches.schedule(["A", "B", "C"], 6, seed=5)
    assert any(launches.schedule(["A", "B", "C"], 6, seed=s) != a for s in range(6, 12))
    blocks = [a[i:i + 3] for i in range(0, len(a), 3)]
    assert all(sorted(b) == ["A", "B", "C"] for b in blocks)          # one of each per block
    assert all(blocks[i + 1] == blocks[i][::-1] for i in range(0, 6, 2))   # ABBA: then reversed
    ab = launches.schedule(["A", "B"], 4, seed=1)
    assert ab in (["A", "B", "B", "A"] * 2, ["B", "A", "A", "B"] * 2,
                  ["A", "B", "B", "A", "B", "A", "A", "B"], ["B", "A", "A", "B", "A", "B", "B", "A"])
    # the stored set was run in the order its seed gives
    man = launches.read_manifest(AA)
    assert man["order"] == launches.schedule(list(man["configs"]), man["launches_per_config"],
                                             man["seed"])
    assert [e["config"] for e in man["launches"]] == man["order"]
    with pytest.raises(IsochronError, match="--launches 0"):
        launches.schedule(["A"], 0, seed=1)


def test_every_record_is_tagged_with_its_launch_and_config():
    ds = isochron.read(AA)
    assert len(ds.contexts) == 10
    assert sorted(c["launch"] for c in ds.contexts) == list(range(1, 11))
    man = launches.read_manifest(AA)
    cfg = {e["launch"]: e["config"] for e in man["launches"]}
    for rtype, rows in ds.records.items():
        for r in rows:
            assert cfg[r["launch"]] == r["config"], rtype
    a1 = isochron.read(AA + ":a1")
    assert {c["config"] for c in a1.contexts} == {"a1"} and len(a1.contexts) == 5
    with pytest.raises(IsochronError, match="no configuration 'zz'.*a1, a2"):
        isochron.read(AA + ":zz")


# ---- launch-level statistics, recomputed ----------------------------------------------------

def test_launch_ci_and_variance_split_recomputed_independently():
    raw = _raw_points(AA)
    got = {(s.point["config"], s.point["op"], s.point["bytes"]): s
           for s in launches.launch_stats(isochron.read(AA).records["point"])}
    keys = {(p["config"], p["op"], p["bytes"]) for p in raw}
    assert set(got) == keys and len(keys) == 8
    for key in keys:
        pts = sorted((p for p in raw if (p["config"], p["op"], p["bytes"]) == key),
                     key=lambda p: p["launch"])
        med = np.array([p["median_s"] for p in pts])
        s = got[key]
        assert s.n == 5 == len(med)
        assert sorted(s.medians) == pytest.approx(sorted(med))
        assert s.center == pytest.approx(np.median(med))
        logs = np.log(med)
        lo, hi = stats.t.interval(0.95, len(logs) - 1, loc=logs.mean(), scale=stats.sem(logs))
        assert s.ci == pytest.approx((math.exp(lo), math.exp(hi)))
        half = stats.t.ppf(0.975, 4) * logs.std(ddof=1) * math.sqrt(1 + 1 / 5)
        assert s.rerun == pytest.approx((math.exp(logs.mean() - half), math.exp(logs.mean() + half)))
        within = np.mean([p["stddev_s"] ** 2 for p in pts])
        between = max(0.0, np.var([p["mean_s"] for p in pts], ddof=1)
                      - within / np.mean([p["valid"] for p in pts]))
        assert s.within_var == pytest.approx(within)
        assert s.between_var == pytest.approx(between, abs=1e-30)


def test_variance_split_separates_launch_offsets():
    # launches whose repetitions barely vary but whose means differ: all variance is between
    w, b = launches.variance_split([1.0, 2.0, 3.0], [0.01, 0.01, 0.01], [100, 100, 100])
    assert w == pytest.approx(1e-4) and b == pytest.approx(1.0 - 1e-6)
    # identical launch means: nothing between
    w, b = launches.variance_split([2.0, 2.0], [0.5, 0.5], [10, 10])
    assert b == 0.0 and w == pytest.approx(0.25)


# ---- honest comparison ----------------------------------------------------------------------

def test_aa_set_gives_no_verdict(cli):
    cmp = compare(isochron.read(AA + ":a1").records["point"],
                  isochron.read(AA + ":a2").records["point"])
    assert len(cmp.rows) == 4
    assert all(r["verdict"] == "" and r["na"] == r["nb"] == 5 for r in cmp.rows)
    rc, out, _ = cli("compare", AA + ":a1", AA + ":a2", "--fail-on-regression")
    assert rc == 0 and "paired launch t (5 blocks)" in out


def test_ab_set_difference_detected_on_the_launch_level(cli):
    a = isochron.read(AB + ":binomial").records["point"]
    b = isochron.read(AB + ":linear").records["point"]
    cmp = compare(a, b, match=["bytes"])
    row = {r["bytes"]: r for r in cmp.rows}[1 << 20]
    assert row["verdict"] == "REGRESSION" and row["ratio"] > 1.05
    # the paired t-test over the blocks of the interleaved set, recomputed
    raw = _raw_points(AB)
    per = {}
    for p in raw:
        if p["bytes"] == 1 << 20:
            per.setdefault(p["block"], {})[p["config"]] = p["median_s"]
    blocks = sorted(per)
    ref = stats.ttest_rel(np.log([per[k]["linear"] for k in blocks]),
                          np.log([per[k]["binomial"] for k in blocks]))
    assert row["p"] == pytest.approx(ref.pvalue)
    rc, out, _ = cli("compare", AB + ":binomial", AB + ":linear", "--match", "bytes",
                     "--fail-on-regression")
    assert rc == 1 and "REGRESSION" in out


def test_one_launch_per_side_is_inconclusive_unless_beyond_the_stated_spread(cli):
    one_a = os.path.join(AA, "launch-01-a1.jsonl")
    one_b = os.path.join(AA, "launch-02-a2.jsonl")
    rc, out, _ = cli("compare", one_a, one_b, "--fail-on-regression")
    assert rc == 0 and out.count("inconclusive: one launch per side") == 4
    assert "default spread 30 %" in out
    # the rule itself: beyond z * spread * sqrt(2) in log ratio
    limit = stats.norm.ppf(0.975) * launches.DEFAULT_LAUNCH_SPREAD * math.sqrt(2)
    assert launches.launch_test([1.0], [math.exp(limit * 1.01)])["significant"]
    assert not launches.launch_test([1.0], [math.exp(limit * 0.99)])["significant"]
    # a single launch of one side against a set: the spread comes from the set's launches
    r = launches.launch_test([1.0, 1.1, 0.9, 1.05], [1.0])
    assert r["source"] == "data" and r["spread"] == pytest.approx(
        np.log([1.0, 1.1, 0.9, 1.05]).std(ddof=1))


def test_power_matches_a_simulation_and_needed_is_the_first_n_that_reaches_it():
    # the noncentral-t power against simulated launch sets: normal log medians with a known
    # spread, n per side, tested with scipy's own two-sample and paired t-tests
    rng = np.random.default_rng(7)
    for spread, delta, n, paired in [(0.2, math.log(1.1), 5, False), (0.2, math.log(1.5), 5, False),
                                     (0.05, math.log(1.1), 6, False), (0.1, math.log(1.1), 8, True)]:
        trials = 4000
        if paired:
            d = rng.normal(delta, spread, size=(trials, n))
            p = stats.ttest_1samp(d, 0.0, axis=1).pvalue
        else:
            a = rng.normal(0.0, spread, size=(trials, n))
            b = rng.normal(delta, spread, size=(trials, n))
            p = stats.ttest_ind(b, a, axis=1).pvalue
        sim = float(np.mean(p < 0.05))
        assert launches.power(spread, delta, n, paired=paired) == pytest.approx(sim, abs=0.03)
    for spread in (0.05, 0.2, 0.25):
        for paired in (False, True):
            need = launches.launches_needed(spread, math.log(1.1), paired=paired)
            assert launches.power(spread, math.log(1.1), need, paired=paired) >= 0.8
            assert launches.power(spread, math.log(1.1), need - 1, paired=paired) < 0.8
            det = launches.detectable(spread, need, paired=paired)
            assert det <= math.log(1.1) * 1.0001
    # issue 12's target (5 launches per side see 10 %) needs a spread below 5 %
    assert launches.launches_needed(0.046, math.log(1.1)) <= 5 < launches.launches_needed(0.05, math.log(1.1))


def test_compare_states_what_its_launches_can_see(cli):
    cmp = compare(isochron.read(AA + ":a1").records["point"],
                  isochron.read(AA + ":a2").records["point"], threshold=0.1)
    for r in cmp.rows:
        assert r["detectable"] == pytest.approx(math.exp(launches.detectable(r["spread"], 5, paired=True)))
        need = launches.launches_needed(r["spread"], math.log(1.1), paired=True)
        assert r["needed"] == need and need > 5      # an A/A pair of 5 blocks cannot see 10 % here
    rc, out, _ = cli("compare", AA + ":a1", AA + ":a2", "--threshold", "10%")
    assert rc == 0 and "sees" in out and "needs" in out and "80 % power" in out
    # show states the same for a 10 % change, per point, from each point's own launch CV
    rc, out, _ = cli("show", AA)
    assert rc == 0 and "for ±10 %" in out
    for s in launches.launch_stats(isochron.read(AA).records["point"]):
        need = launches.launches_needed(s.sd_log, math.log(1.1))
        row = [l for l in out.splitlines() if l.startswith(s.point["config"]) and
               f" {launches.fmt_pct(s.sd_log)} " in l]
        assert row and f" {need} " in row[0], (s.point["op"], s.point["bytes"], need, row)


# ---- show, report, plot ---------------------------------------------------------------------

def test_show_report_and_plot_put_the_launch_level_first(cli, tmp_path):
    rc, out, _ = cli("show", AA)
    assert rc == 0
    assert out.index("across launches") < out.index("isochron show --per-launch")
    assert "CI(launches) 95 % [µs]" in out and "between share" in out and "5 of config a1" in out
    rc, per, _ = cli("show", AA, "--per-launch")
    assert rc == 0 and per.count("run 10:") == 1
    rc, out, _ = cli("report", AA, "-o", tmp_path / "r")
    page = (tmp_path / "r" / "index.html").read_text()
    assert rc == 0 and page.index("Across launches") < page.index("Tables of each launch")
    assert "launches: per-launch medians" in page
    assert "config a1" in page and "config a2" in page         # config vs config, launch level
    assert "paired launch t (5 blocks)" in page
    assert "launches" in isochron.available(isochron.read(AA))
    assert "launches" not in isochron.available(isochron.read(os.path.join(AA, "launch-01-a1.jsonl")))
    fig = isochron.plot(isochron.read(AA), "launches")
    ax = fig.axes[0]
    assert len(ax.collections) >= 8 and "launch" in ax.get_ylabel()


# ---- isochron run, end to end with real launches ---------------------------------------------

needs_mpi = pytest.mark.skipif(
    not (shutil.which("mpirun") and os.path.exists(os.path.join(ROOT, "build", "isochron-bench"))),
    reason="needs mpirun and a built build/isochron-bench (cmake --build build)")


@needs_mpi
def test_run_two_launches_end_to_end(tmp_path):
    cfg = tmp_path / "bound.args"
    cfg.write_text("# a tiny run\n--ops allreduce --sizes 8 --max-reps 10 --budget 0.2 --quiet"
                   " --format none\nlauncher-args: --bind-to core\n")
    bad = tmp_path / "bad.args"
    bad.write_text("--ops nosuchop --sizes 8 --quiet\n")
    out = tmp_path / "set"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python", "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "isochron.cli", "run", "--launches", "2", "--configs", str(cfg),
         str(bad), "--seed", "4", "-o", str(out), "--", os.path.join(ROOT, "tools", "mpirun-local"),
         "-np", "2", os.path.join(ROOT, "build", "isochron-bench")],
        capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 1, proc.stderr                   # the bad config's launches failed
    assert proc.stderr.count("config bound: ok") == 2
    assert proc.stderr.count("config bad: FAILED") == 2 and "nosuchop" in proc.stderr
    assert "2 launch(es) failed" in proc.stderr
    man = launches.read_manifest(out)
    assert man["order"] == launches.schedule(["bound", "bad"], 2, 4)
    ds = isochron.read(str(out))                               # the failed launches are skipped
    assert [c["config"] for c in ds.contexts] == ["bound", "bound"]
    if len(os.sched_getaffinity(0)) >= 2:                     # --bind-to core: one core each
        assert all(len(c["run"]["binding"]) == 2 and c["run"]["binding"][0] != c["run"]["binding"][1]
                   for c in ds.contexts)
    assert {p["launch"] for p in ds.records["point"]} == {e["launch"] for e in man["launches"]
                                                         if e["config"] == "bound"}
    with pytest.raises(IsochronError, match="already holds a launch set"):
        launches.run(["true"], 1, outdir=str(out))


@needs_mpi
def test_binding_recorded_in_the_context(tmp_path):
    path = tmp_path / "b.jsonl"
    subprocess.run([os.path.join(ROOT, "tools", "mpirun-local"), "--bind-to", "none", "-np", "2",
                    os.path.join(ROOT, "build", "isochron-bench"), "--ops", "barrier", "--sizes", "0",
                    "--min-reps", "5", "--max-reps", "5", "--quiet", "--format", "none", "--jsonl", str(path)],
                   check=True, timeout=60, capture_output=True)
    assert isochron.read(str(path)).contexts[0]["run"]["binding"] == "unbound"


@needs_mpi
def test_injected_slowdown_is_detected_on_the_launch_level(tmp_path):
    """A real A/B set from the drivers: B runs every operation 10x longer on every rank
    (--inject-slowdown 9, a busy wait inside the timed region). Paired launch-level compare must
    flag every point REGRESSION, and the context must say the knob was on. (10x, not 3x: on the
    2-core machine under a load of 8-15 one base launch in four came out 3x slow, so a 3x
    slowdown gave ratio 3.8 at p = 0.2 over 4 blocks.)"""
    common = "--ops allreduce,bcast --sizes 64K --max-reps 60 --budget 0.3 --quiet --format none\n"
    (tmp_path / "base.args").write_text(common)
    (tmp_path / "slow.args").write_text(common.strip() + " --inject-slowdown 9\n")
    out = tmp_path / "ab"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python", "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "isochron.cli", "run", "--launches", "4", "--configs",
         str(tmp_path / "base.args"), str(tmp_path / "slow.args"), "--seed", "7", "-o", str(out), "--",
         os.path.join(ROOT, "tools", "mpirun-local"), "-np", "2", os.path.join(ROOT, "build", "isochron-bench")],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    base, slow = isochron.read(f"{out}:base"), isochron.read(f"{out}:slow")
    assert all(c["options"].get("inject_slowdown") == 9 for c in slow.contexts)
    assert all("inject_slowdown" not in c["options"] for c in base.contexts)
    cmp = compare(base.records["point"], slow.records["point"])
    assert len(cmp.rows) == 2
    for r in cmp.rows:
        assert r["verdict"] == "REGRESSION" and r["ratio"] > 4, {k: r[k] for k in ("op", "verdict", "ratio", "p", "na", "nb")}


def test_run_errors_are_clear(tmp_path):
    with pytest.raises(IsochronError, match="give the launcher command after --"):
        launches.run([], 2, outdir=str(tmp_path / "x"))
    with pytest.raises(IsochronError, match="no such file"):
        launches.run(["true"], 2, configs=[str(tmp_path / "none.args")], outdir=str(tmp_path / "y"))
    cfg = tmp_path / "j.args"
    cfg.write_text("--jsonl x.jsonl\n")
    with pytest.raises(IsochronError, match="--jsonl is set by isochron run"):
        launches.run(["true"], 2, configs=[str(cfg)], outdir=str(tmp_path / "z"))


@needs_mpi
def test_passes_report_the_union_of_their_repetitions(tmp_path):
    """--passes 3 (issue 12): every point is measured in 3 passes over the list and reported once,
    after the last pass. The record must be the union: reps = its raw repetitions, the median and
    valid count recomputed here from the raw run times, and the context must state the passes."""
    path = tmp_path / "p.jsonl"
    subprocess.run([os.path.join(ROOT, "tools", "mpirun-local"), "-np", "2",
                    os.path.join(ROOT, "build", "isochron-bench"), "--ops", "allreduce,bcast", "--sizes", "8,1K",
                    "--passes", "3", "--min-reps", "30", "--max-reps", "60", "--raw", "--quiet", "--format", "none",
                    "--jsonl", str(path)], check=True, timeout=120, capture_output=True)
    recs = [json.loads(line) for line in open(path)]
    ctx = [r for r in recs if r["type"] == "context"][0]
    assert ctx["options"]["passes"] == 3 and ctx["options"]["max_reps"] == 60
    pts = [r for r in recs if r["type"] == "point"]
    assert [(p["op"], p["bytes"]) for p in pts] == [("allreduce", 8), ("allreduce", 1024), ("bcast", 8), ("bcast", 1024)]
    for p in pts:
        raw = p["raw"]
        assert len(raw["time_s"]) == p["reps"] == len(raw["valid"]) == len(raw["start_s"])
        ok = [t for t, v in zip(raw["time_s"], raw["valid"]) if v]
        assert len(ok) == p["valid"] >= 3 * 10          # each pass: at least ceil(30 / 3) valid ones
        assert p["median_s"] == pytest.approx(float(np.median(ok)), rel=1e-9)
        assert p["reps"] <= 3 * 4 * 20                  # each pass: at most 4 x ceil(60 / 3) attempts
