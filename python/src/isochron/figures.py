"""The figure helpers every plotting module shares: a new figure, the title of a run.

Below ``plots`` (the plot kinds) and ``launches`` (whose launch plot is one of them), so that
neither needs the other for these; matplotlib is imported only when a figure is made.
"""
from __future__ import annotations

from typing import Any, Iterable


def _fig(w: float = 7.5, h: float = 4.8, nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Any, Any]:
    """A constrained-layout Figure and its 2-D array of axes (not attached to pyplot)."""
    from matplotlib.figure import Figure  # here, not at the top: listing kinds stays fast
    fig = Figure(figsize=(w, h), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def _run_title(ds: Any, rows: Iterable[dict] = ()) -> str:
    """'4 ranks on vm, Open MPI v4.1.4' for the run the plotted rows came from."""
    rows = list(rows)
    run = rows[0].get("run") if rows else None
    ctx = ds.contexts[run] if isinstance(run, int) and 0 <= run < len(ds.contexts) \
        else (ds.contexts or [{}])[0]
    run = ctx.get("run", ctx)
    ranks = ctx.get("nprocs", run.get("ranks", "?"))
    mpi = (run.get("mpi_library") or "").split(",")[0]
    return f"{ranks} ranks on {run.get('host', '?')}" + (f", {mpi}" if mpi else "")
