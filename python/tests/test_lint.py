"""The package explains itself: ruff and mypy pass on it (configured in pyproject.toml), every
public function (module level or method, name without a leading underscore) carries type hints
on all its parameters and its return, and it ships ``py.typed`` so users' type checkers read them.
``make pydeps`` installs ruff and mypy (the ``test`` extra)."""
import ast
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)                 # python/
PKG = os.path.join(PROJECT, "src", "isochron")


def _tool(name):
    try:
        __import__(name)
    except ImportError:
        pytest.fail(f"{name} is not installed: `make pydeps` installs it (python[test])")


def test_ruff_passes():
    _tool("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "src", "tests"], cwd=PROJECT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_passes():
    _tool("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=PROJECT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _untyped_public():
    out = []
    for f in sorted(os.listdir(PKG)):
        if not f.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(PKG, f), encoding="utf-8").read(), f)

        def visit(body, where, in_class):
            for n in body:
                if isinstance(n, ast.ClassDef) and not n.name.startswith("_"):
                    visit(n.body, f"{where}{n.name}.", True)
                elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (not n.name.startswith("_") or n.name == "__init__"):
                    args = n.args.posonlyargs + n.args.args + n.args.kwonlyargs
                    if in_class and args and args[0].arg in ("self", "cls"):
                        args = args[1:]
                    args += [a for a in (n.args.vararg, n.args.kwarg) if a]
                    if n.returns is None or any(a.annotation is None for a in args):
                        out.append(f"{f}:{n.lineno} {where}{n.name}")
        visit(tree.body, "", False)
    return out


def test_every_public_function_is_typed():
    assert _untyped_public() == []


def test_the_package_says_it_is_typed():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


def test_no_function_shadows_its_module():
    import isochron
    for name in isochron.__all__:
        assert not os.path.exists(os.path.join(PKG, f"{name}.py")), \
            f"isochron.{name} is exported and is also a module's name"
    # the former module paths still import, and the functions stay functions
    from isochron.load import read  # noqa: F401
    from isochron.tables import render_text  # noqa: F401
    assert callable(isochron.load) and callable(isochron.compare) and callable(isochron.tables)
