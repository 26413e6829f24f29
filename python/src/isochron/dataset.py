"""Reading isochron's JSON Lines result files.

The C drivers (isochron-clock, isochron-bench, isochron-barrier) write one JSON object per line:
a ``context`` record opens a run, the records of that run follow (``sync``/``model``/``accuracy``/
``summary`` and ``end`` for the clock driver, ``point`` and ``end`` for the benchmark, ``skew``/``cost``/
``shift``/``payoff`` and ``end`` for the barrier driver). Files may hold several runs one after
another (``cat a.jsonl b.jsonl``), so every record is tagged with the index of its run, and a
:class:`Dataset` keeps one pandas table per record type plus the list of run contexts.

The schema version is checked on every record that carries one: only versions listed in
``_UPGRADERS`` are read (each maps a record of that version to the current shape; version 1 is
the only one so far). Anything else is an :class:`IsochronError` naming the version, never a
guess. A run cut short is loaded as far as it is complete: a last line cut mid-JSON is dropped,
a benchmark or barrier run without an ``end`` record that says ``complete: true`` is kept, and
both are reported in ``Dataset.warnings`` (and as ``df.attrs["warnings"]``), never silently.
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .base import PRIMARY, IsochronError, IsochronWarning, Record, record_error  # noqa: F401 (their home was here)
from .launchset import expand  # a launch-set directory (isochron run) is its files

if TYPE_CHECKING:                            # for the annotations only
    import pandas as pd

SCHEMA_VERSION = 1
#: schema version -> function bringing a record of that version to the current shape
_UPGRADERS = {1: lambda rec: rec}
#: tools whose runs close with an ``end`` record
_ENDED_TOOLS = {"isochron-bench", "isochron-barrier", "isochron-shmem"}


@dataclass
class Dataset:
    """Every record of one or more result files, one DataFrame per record type."""

    paths: list
    contexts: list = field(default_factory=list)   # one dict per run, in order
    records: dict = field(default_factory=dict)    # type -> list of flat dicts
    warnings: list = field(default_factory=list)

    @property
    def tools(self) -> list[str]:
        """The tools that wrote the runs, in order of first appearance."""
        return list(dict.fromkeys(c.get("tool", "unknown") for c in self.contexts))

    @property
    def truncated(self) -> bool:
        return bool(self.warnings)

    def has(self, rtype: str) -> bool:
        return bool(self.records.get(rtype))

    def frame(self, rtype: str) -> pd.DataFrame:
        """The records of one type as a DataFrame (columns ``run`` and ``file`` added)."""
        import pandas as pd  # only here: the command line never needs it
        rows = self.records.get(rtype, [])
        df = pd.DataFrame(rows)
        df.attrs.update(self.attrs())
        return df

    def attrs(self) -> dict[str, Any]:
        return {
            "context": self.contexts[0] if self.contexts else {},
            "contexts": self.contexts,
            "tools": self.tools,
            "paths": list(self.paths),
            "warnings": list(self.warnings),
            "truncated": self.truncated,
        }


def _flatten(rtype: str, rec: Record) -> Record:
    """A record as one table row: nested raw repetitions become list columns."""
    row = {k: v for k, v in rec.items() if k not in ("schema", "type", "raw")}
    raw = rec.get("raw")
    if isinstance(raw, dict):
        for key in ("time_s", "valid", "start_s", "end_s"):
            row["raw_" + key] = raw.get(key)
    return row


_VALIDATOR: Any = None
_FAST: Callable[[Any], Any] | None = None


def _schema() -> Any:
    with open(os.path.join(os.path.dirname(__file__), "results-1.schema.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _validator() -> Any:
    """The JSON Schema of the records (results-1.schema.json, shipped in the package)."""
    global _VALIDATOR
    if _VALIDATOR is None:
        import jsonschema
        _VALIDATOR = jsonschema.Draft202012Validator(_schema())
    return _VALIDATOR


def _fast_check() -> Callable[[Any], Any]:
    """The schema compiled to a predicate (schema_check.py); the full validator's is_valid
    when the schema uses a keyword the compiler does not know."""
    global _FAST
    if _FAST is None:
        from .schema_check import Unsupported, compile_schema
        try:
            _FAST = compile_schema(_schema())
        except Unsupported:
            _FAST = _validator().is_valid
    return _FAST


def _check_record(path: str, lineno: int, rec: Any) -> None:
    """Raise one clear IsochronError naming file, line and field if rec breaks the schema.

    The compiled predicate decides; the full validator runs only on a record it refuses, to
    name the field (the same message as before the predicate existed)."""
    if _fast_check()(rec):
        return
    errors = sorted(_validator().iter_errors(rec), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    e = errors[0]
    where = ".".join(str(p) for p in e.absolute_path)
    rtype = rec.get("type") if isinstance(rec, dict) else None
    what = f"{rtype!r} record" if isinstance(rtype, str) else "record"
    field = f", field {where!r}" if where else ""
    value = e.message if len(e.message) <= 160 else e.message[:157] + "..."
    raise IsochronError(f"{path}:{lineno}: {what}{field}: {value}"
                        " (not what isochron's drivers write: see results-1.schema.json)")


def _parse_lines(path: str, text: str) -> tuple[list[tuple[int, Record]], int | None]:
    """(line number, record) pairs; a last line cut mid-JSON is reported, not parsed."""
    lines = text.splitlines()
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    if last < 0:
        raise IsochronError(f"{path}: empty file (no isochron records)")
    out: list[tuple[int, Record]] = []
    cut: int | None = None
    for i, line in enumerate(lines[: last + 1]):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            if i == 0 and i == last and line.lstrip().startswith('{"schema"'):
                raise IsochronError(f"{path}: its only line is cut mid-record (the run was"
                                    " interrupted before its first record was complete):"
                                    " nothing to load") from None
            if i == 0:
                hint = ""
                if line.startswith("#") or ("," in line and "{" not in line):
                    hint = "; it looks like CSV: give the file written with --jsonl"
                raise IsochronError(
                    f"{path}: not an isochron JSON Lines file (line 1 is not JSON: {exc.msg}{hint})"
                ) from None
            if i == last:
                cut = i + 1
                break
            raise IsochronError(f"{path}:{i + 1}: not valid JSON ({exc.msg})") from None
        if not isinstance(rec, dict) or "type" not in rec:
            raise IsochronError(
                f"{path}:{i + 1}: not an isochron record (a JSON object with 'type' and"
                f" 'schema' fields); is this a result file of isochron-clock/-bench/-barrier?"
            )
        if not isinstance(rec["type"], str) or not rec["type"]:
            raise IsochronError(f"{path}:{i + 1}: field 'type' is {rec['type']!r}, not a record type name")
        if "schema" in rec and (not isinstance(rec["schema"], int) or isinstance(rec["schema"], bool)):
            raise IsochronError(f"{path}:{i + 1}: field 'schema' is {rec['schema']!r}, not a schema version number")
        out.append((i + 1, rec))
    return out, cut


def _check_schema(path: str, lineno: int, rec: Record, run_schema: Any) -> Any:
    version = rec.get("schema", run_schema)
    if version is None:
        raise IsochronError(f"{path}:{lineno}: the context record has no 'schema' version")
    if version not in _UPGRADERS:
        known = ", ".join(str(v) for v in sorted(_UPGRADERS))
        age = ""
        if isinstance(version, (int, float)):
            age = (" (newer than this isochron: upgrade the Python package)"
                   if version > max(_UPGRADERS) else " (older than any this isochron reads)")
        raise IsochronError(
            f"{path}:{lineno}: schema version {version!r} is not supported{age};"
            f" this isochron reads schema {known}"
        )
    return version


def _read_one(path: str, ds: Dataset) -> None:
    if not os.path.exists(path):
        raise IsochronError(f"{path}: no such file")
    if os.path.isdir(path):
        raise IsochronError(f"{path}: is a directory, not a result file")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise IsochronError(f"{path}: not a text file (expected isochron JSON Lines)") from None
    except OSError as exc:
        raise IsochronError(f"{path}: cannot read ({exc.strerror})") from None

    parsed, cut = _parse_lines(path, text)
    check = _fast_check()
    first_run = len(ds.contexts)
    run, schema, ended, counts = None, None, {}, {}   # counts: run -> primary records
    for lineno, rec in parsed:
        rtype = rec["type"]
        if rtype == "context":
            schema = _check_schema(path, lineno, rec, None)
            _check_record(path, lineno, _UPGRADERS[schema](rec))
            ds.contexts.append(dict(_UPGRADERS[schema](rec), file=path))
            run = len(ds.contexts) - 1
            counts[run] = 0
            continue
        if run is None:
            raise IsochronError(
                f"{path}:{lineno}: expected a 'context' record first, found {rtype!r}"
                " (not an isochron result file, or its beginning is missing)"
            )
        version = rec.get("schema", schema)
        if version != schema or version not in _UPGRADERS:
            version = _check_schema(path, lineno, rec, schema)
        rec = _UPGRADERS[version](rec)
        if not check(rec):
            _check_record(path, lineno, rec)
        if rtype == "end":
            ended[run] = rec
        if rtype == PRIMARY.get(ds.contexts[run].get("tool")):
            counts[run] += 1
        row = _flatten(rtype, rec)
        row.update(run=run, file=path, line=lineno)
        ds.records.setdefault(rtype, []).append(row)

    if cut is not None:
        ds.warnings.append(
            f"{path}:{cut}: the last line is cut mid-record (interrupted run?);"
            f" ignored it and loaded the {len(parsed)} complete records before it"
        )
    for r in range(first_run, len(ds.contexts)):
        tool = ds.contexts[r].get("tool", "unknown")
        end = ended.get(r)
        if tool not in _ENDED_TOOLS and end is None:   # isochron-clock's end record is newer than its files
            continue
        what = f"{path}: run {r - first_run + 1} ({tool})"
        if end is None:
            ds.warnings.append(
                f"{what} has no 'end' record: it was interrupted; loaded its"
                f" {counts[r]} complete '{PRIMARY[tool]}' records"
            )
        elif end.get("complete") is not True:
            ds.warnings.append(f"{what} ended early (its 'end' record says complete: false)")
    _attach_sync(ds, first_run)


def _attach_sync(ds: Dataset, first_run: int) -> None:
    """Give clock ``accuracy`` rows their run's sync spec and duration (for plots by spec)."""
    syncs = {s["run"]: s for s in ds.records.get("sync", []) if s["run"] >= first_run}
    for row in ds.records.get("accuracy", []):
        sync = syncs.get(row["run"])
        if sync and row["run"] >= first_run:
            row.setdefault("sync_spec", sync.get("sync_spec"))
            row.setdefault("duration_s", sync.get("duration_s"))


def read(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> Dataset:
    """Read one path or a list of paths into a :class:`Dataset` (runs numbered across files).

    A directory written by ``isochron run`` (it holds ``manifest.json``) reads as its launches'
    files, ``DIR:CONFIG`` as those of one configuration."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise IsochronError("no input files")
    ds = Dataset(paths=paths)
    with no_cyclic_gc():
        for path in paths:
            for one in expand(path):
                _read_one(one, ds)
    return ds


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while many records are built: they hold no cycles,
    and its passes over a growing heap cost a quarter of loading 200,000 points. Reference
    counting frees everything as usual; the collector's state is restored after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], record: str | None = None) -> pd.DataFrame:
    """Load a result file as a DataFrame of its points.

    ``record`` picks the record type; by default ``point`` for isochron-bench, ``accuracy``
    (one row per rank and wait) for isochron-clock, ``cost`` for isochron-barrier. The run
    contexts are in ``df.attrs["context"]`` (first run) and ``df.attrs["contexts"]``; raw
    repetitions, when the run wrote them, are the list columns ``raw_time_s``, ``raw_valid``,
    ``raw_start_s`` and ``raw_end_s``. A file cut short loads what is complete and warns
    (:class:`IsochronWarning`; the messages are also in ``df.attrs["warnings"]``).
    """
    ds = read(path)
    for msg in ds.warnings:
        warnings.warn(msg, IsochronWarning, stacklevel=2)
    if record is None:
        tool = ds.tools[0] if ds.tools else "unknown"
        record = PRIMARY.get(tool)
        if record is None:
            raise IsochronError(f"{path}: unknown tool {tool!r}; pass record=TYPE")
    if record not in ds.records:
        have = ", ".join(sorted(ds.records)) or "none"
        raise IsochronError(f"{path}: no {record!r} records (it has: {have})")
    return ds.frame(record)
