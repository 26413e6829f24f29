"""Fresh send buffers in `isochron guidelines` and `isochron tune` (issue 38): the driver's
arguments get --validate 2 unless the user set --validate, the commands write them into the
launch sets' configurations, and the tables' title lines say the buffer policy the sets were
measured with (read from the runs' own context records)."""
import argparse
import glob
import os

import pytest

import isochron.launchset
from isochron import guidelines, tune
from isochron.guidelines import Result, analyse, table
from isochron.launches import buffer_policy, fresh_buffer_args, load_points

DATA = os.path.join(os.path.dirname(__file__), "data")
GL = os.path.join(DATA, "guidelines-2ranks", "set")


def test_fresh_buffer_args_added_unless_the_user_set_validate():
    assert fresh_buffer_args(["--budget", "0.3"]) == ["--budget", "0.3", "--validate", "2"]
    assert fresh_buffer_args([]) == ["--validate", "2"]
    assert fresh_buffer_args(["--validate", "1", "--budget", "0.3"]) == ["--validate", "1", "--budget", "0.3"]
    assert fresh_buffer_args(["--validate=0"]) == ["--validate=0"]
    # a longer option sharing the prefix is not --validate
    assert fresh_buffer_args(["--validated"]) == ["--validated", "--validate", "2"]


class _Captured(Exception):
    pass


def _parser(mod):
    p = argparse.ArgumentParser()
    mod.add_parser(p.add_subparsers())
    return p


def _driver_words(monkeypatch, tmp_path, mod, argv):
    """Run the command until it would launch; return the driver words of its configurations."""
    def fake_run(*a, **k):
        raise _Captured
    monkeypatch.setattr(isochron.launchset, "run", fake_run)
    args = _parser(mod).parse_args(argv)
    with pytest.raises(_Captured):
        args.func(args)
    files = sorted(glob.glob(os.path.join(str(tmp_path), "**", "*.args"), recursive=True))
    assert files
    return [open(f).read().split("\n")[0].split() for f in files]


@pytest.mark.parametrize("bench_args,want", [("--budget 0.2", ["--validate", "2"]),
                                             ("--budget 0.2 --validate 1", ["--validate", "1"])])
def test_guidelines_run_measures_with_fresh_buffers(monkeypatch, tmp_path, bench_args, want):
    for words in _driver_words(monkeypatch, tmp_path, guidelines,
                               ["guidelines", "--run", str(tmp_path / "gl"), "--np", "2", "--colls", "scan",
                                "--bench-args", bench_args]):
        i = words.index("--validate")
        assert words[i:i + 2] == want and words.count("--validate") == 1


@pytest.mark.parametrize("verify", [False, True])
def test_tune_sets_measure_with_fresh_buffers(monkeypatch, tmp_path, verify):
    argv = ["tune", "--mpi", "ompi", "--coll", "allreduce", "--np", "2", "--bench-args", "--budget 0.2"]
    if verify:
        rules = tmp_path / "r.txt"
        rules.write_text("1\n")
        argv += ["--rules", str(rules), "--verify", str(tmp_path / "v"), "--algs", "1"]
    else:
        argv += ["--run", str(tmp_path / "t"), "--algs", "1"]
    for words in _driver_words(monkeypatch, tmp_path, tune, argv):
        assert words[-2:] == ["--validate", "2"]


def test_title_line_states_the_buffer_policy():
    ctxs: list = []
    pts, mpi = load_points([GL], None, ctxs)
    assert ctxs
    pol = buffer_policy(ctxs)
    vals = {c["options"]["validate"] for c in ctxs}
    assert pol != "buffer policy not recorded" and f"--validate {vals.pop()}" in pol
    res = Result(analyse(pts), False, 0.95, 0.05, [GL], mpi, pol)
    title = [ln for ln in table(res).splitlines() if ln.startswith("guidelines:")][0]
    assert title.endswith(pol)


def test_buffer_policy_names_mixed_and_missing():
    assert buffer_policy([]) == "buffer policy not recorded"
    assert buffer_policy([{"options": {"validate": 2}}]) == "fresh buffers every repetition (--validate 2)"
    assert buffer_policy([{"options": {"validate": 1}}, {"options": {"validate": 2}}]).endswith("(MIXED)")
