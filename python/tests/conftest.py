"""Shared fixtures: paths of the stored driver outputs and a runner for the ``isochron`` CLI.

The files under fixtures/ were written by the real C drivers (see fixtures/README.md), so every
test here reads what a user's run would produce. ``cli`` calls ``isochron.cli.main`` in-process
(fast) and returns exit status, stdout and stderr; a few tests run the installed console script
as a subprocess to check what a shell user sees.
"""
import os

import pytest

from isochron import cli as cli_module

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def fx(name):
    return os.path.join(FIXTURES, name)


@pytest.fixture
def cli(capsys):
    def run(*args):
        try:
            rc = cli_module.main([str(a) for a in args])
        except SystemExit as exc:          # argparse: --help, usage errors
            rc = exc.code
        out, err = capsys.readouterr()
        return rc, out, err
    return run
