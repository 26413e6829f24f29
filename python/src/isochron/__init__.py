"""isochron: analysis of the JSON Lines results of isochron's C drivers.

The package turns the files written by ``isochron-clock``, ``isochron-bench`` and
``isochron-barrier`` (``--jsonl FILE``) into pandas tables, comparisons with significance tests,
matplotlib figures and a self-contained HTML report; the ``isochron`` command does the same from
a shell. Data flows one way: ``load`` reads and checks the file (schema version, truncation),
``tables``/``compare``/``plots`` derive from the loaded records, ``report`` and ``cli`` only
assemble. The public API is what ``__all__`` lists::

    df = isochron.load("bench.jsonl")          # one row per point, df.attrs["context"]
    fig = isochron.plot(isochron.read("clock.jsonl"), "offset")
"""
from ._version import __version__

# Importing the package is cheap: pandas, scipy and matplotlib are imported inside the functions
# that need them, so `isochron show` and `--help` start in a fraction of a second.
from .compare import compare, comparison_table  # noqa: E402
from .load import (Dataset, IsochronError, IsochronWarning, SCHEMA_VERSION,  # noqa: E402
                   load, read)
from .plots import KINDS, available, plot, save  # noqa: E402
from .report import write_report  # noqa: E402
from .tables import render_text, tables  # noqa: E402

__all__ = [
    "__version__", "load", "read", "Dataset", "IsochronError", "IsochronWarning",
    "SCHEMA_VERSION", "compare", "comparison_table", "KINDS", "available", "plot", "save",
    "write_report", "tables", "render_text",
]
