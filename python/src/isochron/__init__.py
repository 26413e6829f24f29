"""isochron: analysis of the JSON Lines results of isochron's C drivers.

The package turns the files written by ``isochron-clock``, ``isochron-bench`` and
``isochron-barrier`` (``--jsonl FILE``) into pandas tables, comparisons with significance tests,
matplotlib figures and a self-contained HTML report; the ``isochron`` command does the same from
a shell. Data flows one way: ``dataset`` (``load``/``read``) reads and checks the file (schema version, truncation),
``table``/``comparison``/``plots`` derive from the loaded records, ``report`` and ``cli`` only
assemble. The public API is what ``__all__`` lists::

    df = isochron.load("bench.jsonl")          # one row per point, df.attrs["context"]
    fig = isochron.plot(isochron.read("clock.jsonl"), "offset")
"""
# The functions ``load``, ``compare`` and ``tables`` are the API; their modules are ``dataset``,
# ``comparison`` and ``table``, so no function shadows the module it comes from. The modules'
# former names keep importing (``from isochron.load import read``) as aliases of the new ones.
import sys as _sys  # noqa: E402

from . import comparison as _comparison  # noqa: E402
from . import dataset as _dataset  # noqa: E402
from . import table as _table  # noqa: E402
from ._version import __version__

# Importing the package is cheap: pandas, scipy and matplotlib are imported inside the functions
# that need them, so `isochron show` and `--help` start in a fraction of a second.
from .comparison import compare, comparison_table  # noqa: E402
from .dataset import SCHEMA_VERSION, Dataset, IsochronError, IsochronWarning, load, read  # noqa: E402
from .plots import KINDS, available, plot, save  # noqa: E402
from .report import write_report  # noqa: E402
from .table import render_text, tables  # noqa: E402

for _old, _mod in (("load", _dataset), ("compare", _comparison), ("tables", _table)):
    _sys.modules.setdefault(f"{__name__}.{_old}", _mod)
del _old, _mod

__all__ = [
    "__version__", "load", "read", "Dataset", "IsochronError", "IsochronWarning",
    "SCHEMA_VERSION", "compare", "comparison_table", "KINDS", "available", "plot", "save",
    "write_report", "tables", "render_text",
]
