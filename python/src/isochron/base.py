"""What every layer of the package shares: its exceptions and the facts about records.

The lowest module: it imports nothing of the package, so ``launchset`` (which checks a launch's
records) and ``load`` (which reads them) both stand on it without needing each other.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Mapping

#: the record type ``load()`` returns by default, per tool
PRIMARY: dict[str, str] = {"isochron-bench": "point", "isochron-clock": "accuracy", "isochron-barrier": "cost", "isochron-shmem": "point"}


class IsochronError(Exception):
    """Bad input (missing file, not an isochron file, unsupported schema, missing data)."""


def record_error(row: Mapping[str, Any], rtype: str, field: str, problem: str) -> IsochronError:
    """The IsochronError of a loaded record (a row of ``Dataset.records[rtype]``) whose field
    cannot be a measurement: names the file, the line and the field, as a schema violation does."""
    return IsochronError(f"{row.get('file', '?')}:{row.get('line', '?')}: {rtype!r} record,"
                         f" field {field!r}: {problem}")


def read_json(path: str, what: str) -> Any:
    """The JSON document of the file ``path``, which should be ``what`` ("a launch-set manifest"):
    each way of failing is one IsochronError naming the file (unreadable, not text, not JSON, nested
    too deep). The caller checks the document's shape."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise IsochronError(f"{path}: cannot read {what} ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise IsochronError(f"{path}: not a text file (expected {what})") from None
    except json.JSONDecodeError as exc:
        raise IsochronError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}; expected {what})") from None
    except RecursionError:
        raise IsochronError(f"{path}: not {what} (JSON nested too deep)") from None


class IsochronWarning(UserWarning):
    """A file was loaded only in part (interrupted run)."""


#: one record of a result file, or one row of ``Dataset.records[type]``: a flat dict
Record = Dict[str, Any]
#: points given to the comparisons and statistics: a list of records or a DataFrame of them
Points = Any
