"""Launch sets on disk: run a set of launches (``isochron run``) and find its files.

Running (``isochron run``): every launch runs the user's launcher command with one
configuration's arguments and ``--jsonl FILE`` appended, so it works with any driver. The order
of launches is a randomized balanced design: each block holds every configuration once, in a
random permutation, and the next block repeats it reversed (ABBA for two configurations), so a
drift of the machine hits all configurations alike; the permutations come from a seed, which
the manifest records, so the order can be reproduced. Every record of a launch's JSON Lines is
tagged with ``launch`` (1-based) and ``config``; ``manifest.json`` lists the launches, their
commands, exit status and wall time. A directory holding a manifest (or ``DIR:CONFIG`` for one
configuration of it) is accepted wherever a result file is.

Here, below ``load`` (which reads a launch-set directory as its files through :func:`expand`)
and ``launches`` (the statistics across launches): a module of its own so that reading a file
never needs the statistics, and the statistics never need the running.
"""
from __future__ import annotations

import json
import math
import os
import random
import shlex
import subprocess
import sys
import time
from typing import Any, Sequence, TextIO

from .base import PRIMARY, IsochronError, Record, read_json

MANIFEST = "manifest.json"


def schedule(configs: Sequence[str], launches: int, seed: int) -> list[str]:
    """The order of launches: a list of config names, ``launches`` of each.

    Blocks of one launch per configuration: block 2i is a random permutation drawn from the
    seed, block 2i+1 the same permutation reversed (ABBA for two configurations)."""
    if launches < 1:
        raise IsochronError(f"--launches {launches}: give at least 1")
    if not configs:
        raise IsochronError("no configurations to run")
    rng = random.Random(seed)
    order: list[str] = []
    perm: list[str] = []
    for block in range(launches):
        if block % 2 == 0:
            perm = list(configs)
            rng.shuffle(perm)
            order += perm
        else:
            order += perm[::-1]
    return order


def read_config(path: str) -> tuple[str, list[str], list[str]]:
    """A configuration file: driver arguments (shell words, # comments), and optionally a line
    ``launcher-args: ...`` whose words go right after the launcher's first word (e.g.
    ``launcher-args: --bind-to core``). Returns (name, driver args, launcher args)."""
    if not os.path.isfile(path):
        raise IsochronError(f"--configs {path}: no such file (a config file holds the driver"
                            " arguments of one configuration, e.g. '--scheme barrier')")
    name = os.path.splitext(os.path.basename(path))[0]
    if not name or ":" in name:
        raise IsochronError(f"--configs {path}: the file name (the configuration's name) must be"
                            " non-empty and without ':' (DIR:CONFIG names one configuration)")
    args, largs = [], []
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise IsochronError(f"--configs {path}: not a text file (a config file holds driver"
                            " arguments)") from None
    except OSError as exc:
        raise IsochronError(f"--configs {path}: cannot read ({exc.strerror})") from None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        try:
            if line.startswith("launcher-args:"):
                largs += shlex.split(line[len("launcher-args:"):])
            elif line:
                args += shlex.split(line)
        except ValueError as exc:            # shlex: "No closing quotation", "No escaped character"
            raise IsochronError(f"{path}:{lineno}: cannot split into words ({exc})") from None
    if any(a == "--jsonl" or a.startswith("--jsonl=") for a in args):
        raise IsochronError(f"{path}: --jsonl is set by isochron run (one file per launch)")
    return name, args, largs


#: most launches per configuration `isochron run` accepts (a set is run one launch at a time)
MAX_LAUNCHES = 100000


def check_run_options(launcher: Sequence[str], launches: int, timeout: float | None) -> None:
    """Refuse, before anything runs or is created, a launcher that cannot be started and
    counts or times that cannot be meant."""
    import shutil
    if not isinstance(launches, int) or not 1 <= launches <= MAX_LAUNCHES:
        raise IsochronError(f"--launches {launches}: give a count from 1 to {MAX_LAUNCHES}")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise IsochronError(f"--timeout {timeout:g}: give a positive number of seconds"
                            " (or leave it out: no timeout)")
    exe = launcher[0]
    if os.sep in exe:
        if not os.path.exists(exe):
            raise IsochronError(f"launcher {exe}: no such file")
        if os.path.isdir(exe) or not os.access(exe, os.X_OK):
            raise IsochronError(f"launcher {exe}: not an executable file")
    elif shutil.which(exe) is None:
        raise IsochronError(f"launcher {exe}: command not found (not in PATH)")


def _tag(path: str, launch: int, config: str, block: int) -> tuple[int, str | None]:
    """Add ``launch``, ``config`` and ``block`` to every complete record of a launch's file.
    Returns (results, problem): the number of result records (the tool's primary type) and,
    when there are none, why the launch measured nothing (None otherwise)."""
    name = os.path.basename(path)
    if not os.path.exists(path):
        return 0, f"wrote no results ({name} was not created)"
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except UnicodeDecodeError:
        return 0, f"{name} is not text (not isochron JSON Lines)"
    except OSError as exc:
        return 0, f"{name}: cannot read ({exc.strerror})"
    out: list[str] = []
    n, primary, records = 0, "point", 0
    for line in lines:
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            out.append(line)                 # a cut last line stays as it was: load reports it
            continue
        if isinstance(rec, dict):
            records += 1
            rec["launch"], rec["config"], rec["block"] = launch, config, block
            if rec.get("type") == "context":
                tool: Any = rec.get("tool")
                primary = PRIMARY.get(tool, "point")
            n += rec.get("type") == primary
        out.append(json.dumps(rec, separators=(",", ":")))
    if records:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(out) + "\n")
        except OSError as exc:
            return n, f"{name}: cannot tag the records ({exc.strerror})"
    if n == 0:
        return 0, (f"wrote no results ({name} is empty)" if not lines else
                   f"wrote no '{primary}' results ({name}: {records} records)")
    return n, None


def _error_lines(err: str | None) -> list[str]:
    """The launch's own message: stderr up to the launcher's boilerplate (a line of dashes)."""
    out: list[str] = []
    for line in (err or "").splitlines():
        if line.startswith("-----"):
            break
        if line.strip():
            out.append(line.strip()[:300])
    return out[:3] or ["(no message on stderr)"]


def run(launcher: Sequence[str], launches: int, configs: Sequence[str] = (), seed: int | None = None,
        outdir: str | None = None, log: TextIO | None = None, timeout: float | None = None) -> tuple[str, Record]:
    """Run ``launches`` launches of each configuration (config files; none: one configuration
    'default' without extra arguments) in a seeded balanced order; returns the manifest."""
    if not launcher:
        raise IsochronError("run: give the launcher command after --, e.g. -- tools/mpirun-local"
                            " -np 2 build/isochron-bench --ops allreduce")
    check_run_options(launcher, launches, timeout)
    log = sys.stderr if log is None else log
    cfgs = [read_config(c) for c in configs] or [("default", [], [])]
    names = [c[0] for c in cfgs]
    if len(set(names)) != len(names):
        raise IsochronError(f"--configs: two configuration files have the same name ({names})")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    order = schedule(names, launches, seed)
    if outdir is None:
        outdir = time.strftime("isochron-run-%Y%m%d-%H%M%S")
    if os.path.exists(os.path.join(outdir, MANIFEST)):
        raise IsochronError(f"{outdir}: already holds a launch set (manifest.json); choose"
                            " another -o DIR")
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as exc:
        raise IsochronError(f"{outdir}: cannot create ({exc.strerror})") from None
    by_name = {c[0]: c for c in cfgs}
    manifest: dict[str, Any] = {"isochron_launch_set": 1, "seed": seed, "launches_per_config": launches,
                "configs": {n: {"args": a, "launcher_args": la} for n, a, la in cfgs},
                "launcher": list(launcher), "order": order, "launches": []}

    def write_manifest() -> None:
        try:
            with open(os.path.join(outdir, MANIFEST), "w", encoding="utf-8") as fh:
                json.dump(manifest, fh, indent=1)
        except OSError as exc:
            raise IsochronError(f"{os.path.join(outdir, MANIFEST)}: cannot write the manifest"
                                f" ({exc.strerror})") from None
    write_manifest()                    # the directory is writable before the first launch
    width = len(str(len(order)))
    for i, name in enumerate(order, 1):
        _, args, largs = by_name[name]
        fname = f"launch-{i:0{width}d}-{name}.jsonl"
        path = os.path.join(outdir, fname)
        cmd = [launcher[0]] + largs + list(launcher[1:]) + args + ["--jsonl", path]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, errors="replace", timeout=timeout)
            rc, err = proc.returncode, proc.stderr
        except FileNotFoundError:
            rc, err = 127, f"{launcher[0]}: command not found"
        except PermissionError:
            rc, err = 126, f"{launcher[0]}: permission denied"
        except OSError as exc:
            rc, err = 126, f"{launcher[0]}: cannot start ({exc.strerror or exc})"
        except subprocess.TimeoutExpired:
            rc, err = 124, f"timed out after {timeout} s"
        wall = time.monotonic() - t0
        block = (i - 1) // len(cfgs) + 1
        points, problem = _tag(path, i, name, block)
        entry: Record = {"launch": i, "config": name, "block": block, "file": fname, "command": cmd, "rc": rc,
                         "wall_s": round(wall, 3), "results": points}
        if rc != 0:
            entry["error"] = _error_lines(err)
        elif problem:                       # exit 0 but nothing measured: a failed launch too
            entry["error"] = [problem]
        entry["ok"] = rc == 0 and not problem
        manifest["launches"].append(entry)
        write_manifest()
        status = ("ok" if entry["ok"] else f"FAILED (exit {rc}): {' | '.join(entry['error'])}"
                  if rc != 0 else f"FAILED: {' | '.join(entry['error'])}")
        print(f"isochron run: [{i}/{len(order)}] launch {i} config {name}: {status},"
              f" {wall:.1f} s, {points} results -> {path}", file=log, flush=True)
    return outdir, manifest


# ---------------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------------

def read_manifest(directory: str) -> Record:
    """The manifest of a launch set, checked: every field that loading uses (an error names
    the manifest, the launch and the field)."""
    path = os.path.join(directory, MANIFEST)
    man = read_json(path, "a launch-set manifest")
    if not isinstance(man, dict) or "launches" not in man:
        raise IsochronError(f"{path}: not an isochron launch-set manifest")
    if not isinstance(man["launches"], list):
        raise IsochronError(f"{path}: field 'launches' is {type(man['launches']).__name__}, not a"
                            " list of launches")
    configs = man.get("configs", {})
    if not isinstance(configs, dict):
        raise IsochronError(f"{path}: field 'configs' is {type(configs).__name__}, not an object")
    for k, e in enumerate(man["launches"]):
        if not isinstance(e, dict):
            raise IsochronError(f"{path}: launches[{k}] is {type(e).__name__}, not a launch object")
        f = e.get("file")
        if not isinstance(f, str) or not f or os.path.basename(f) != f or f in (".", ".."):
            raise IsochronError(f"{path}: launches[{k}], field 'file': {f!r} is not the name of a"
                                " file in the launch set's directory")
        if not isinstance(e.get("config"), str):
            raise IsochronError(f"{path}: launches[{k}], field 'config': {e.get('config')!r} is"
                                " not a configuration name")
    return man


def expand(path: str | os.PathLike[str]) -> list[str]:
    """Result files of ``path``: itself, or the launch files of a launch-set directory, or
    of one configuration of it (``DIR:CONFIG``)."""
    path = os.fspath(path)
    config = None
    if not os.path.exists(path) and ":" in path:
        head, tail = path.rsplit(":", 1)
        if os.path.isdir(head):
            path, config = head, tail
    if not os.path.isdir(path) or not os.path.exists(os.path.join(path, MANIFEST)):
        return [path]
    man = read_manifest(path)
    if config is not None and config not in man.get("configs", {}):
        raise IsochronError(f"{path}:{config}: no configuration {config!r} in this launch set"
                            f" (it has: {', '.join(man.get('configs', {}))})")
    files = [os.path.join(path, e["file"]) for e in man["launches"]
             if (config is None or e["config"] == config)
             and os.path.isfile(os.path.join(path, e["file"]))
             and os.path.getsize(os.path.join(path, e["file"])) > 0]
    if not files:
        raise IsochronError(f"{path}: the launch set has no launch with results")
    return files
