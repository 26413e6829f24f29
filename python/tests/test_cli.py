"""The `isochron` command as a shell user meets it: help texts, exit codes, no tracebacks."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import fx

import isochron


def _script():
    exe = os.path.join(os.path.dirname(sys.executable), "isochron")
    return [exe] if os.path.exists(exe) else [shutil.which("isochron") or "isochron"]


@pytest.mark.parametrize("args, words", [
    ([], ["show", "compare", "plot", "report"]),
    (["show"], ["FILE", "µs"]),
    (["compare"], ["Mann-Whitney", "--threshold", "--fail-on-regression", "--match"]),
    (["plot"], ["--kind", "--list-kinds", "png", "svg", "pdf", "gantt", "latency"]),
    (["report"], ["index.html", "-o DIR"]),
])
def test_help(cli, args, words):
    rc, out, _ = cli(*args, "--help")
    assert rc == 0 and out.startswith("usage: isochron")
    for w in words:
        assert w in out


def test_version(cli):
    rc, out, _ = cli("--version")
    assert rc == 0 and out.strip() == f"isochron {isochron.__version__}"


def test_no_subcommand_is_a_usage_error(cli):
    rc, _, err = cli()
    assert rc == 2 and "usage:" in err


def test_console_script_errors_are_one_line(tmp_path):
    """The installed command: bad input gives one 'isochron: error:' line and status 2."""
    cases = [(["show", "missing.jsonl"], "isochron: error: missing.jsonl: no such file"),
             (["show", fx("bench-allreduce.csv")], "not an isochron JSON Lines file"),
             (["plot", fx("bench-max.jsonl"), "--kind", "nope", "-o", str(tmp_path / "x.png")],
              "valid kinds: latency, bandwidth, gantt, offset, sync, skew, shift, payoff")]
    for args, msg in cases:
        r = subprocess.run(_script() + args, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert msg in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_console_script_show(tmp_path):
    r = subprocess.run(_script() + ["show", fx("clock-hca3.jsonl")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "clock synchronization" in r.stdout and r.stderr == ""
