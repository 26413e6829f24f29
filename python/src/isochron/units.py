"""Human units for sizes and times, shared by tables, comparisons and plot axes.

Sizes are binary (1 KiB = 1024 B), as the C drivers count them; times are stored in seconds in
every file and shown in one fixed unit per column (µs by default) so that columns compare at a
glance. Throughput points (``unit`` "B/s": bw, bibw, mbw_mr, fan-in/out) keep their statistics as
times per run and carry ``bytes_per_run`` and ``msgs_per_run``; :func:`rate` turns the median and
its interval into bytes/s (a decreasing map, so the interval's ends swap) and messages/s, shown in
MB/s (10^6 bytes/s, as OSU and IMB print them). Missing values (a point with no valid repetition has nulls) show as an en dash.
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

MISSING = "–"
_SIZE_UNITS = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)


def is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt_bytes(n: Any) -> str:
    """8 -> '8 B', 1024 -> '1 KiB', 1536 -> '1.5 KiB'."""
    if is_missing(n):
        return MISSING
    n = int(n)
    for name, scale in _SIZE_UNITS:
        if n >= scale:
            v = n / scale
            return f"{v:g} {name}" if v == int(v) else f"{v:.3g} {name}"
    return f"{n} B"


def parse_bytes(text: str | int) -> int:
    """'64K', '64KiB', '1M', '8' -> bytes (K/M/G are powers of 1024, as in isochron-bench)."""
    m = _SIZE_RE.match(str(text))
    if not m:
        raise ValueError(f"not a message size: {text!r} (e.g. 8, 1K, 64KiB, 1M)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


_TIME_SCALE = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}


def fmt_time(seconds: Any, unit: str = "us", digits: int = 4) -> str:
    """A time in seconds shown in ``unit`` (s, ms, us, ns) with ``digits`` significant digits."""
    if seconds is None or seconds != seconds:          # missing, or NaN
        return MISSING
    v = seconds * _TIME_SCALE[unit]
    if v == 0:
        return "0"
    if abs(v) >= 10 ** digits:
        return f"{v:.0f}"
    return f"{v:.{digits}g}" if abs(v) >= 1e-3 else f"{v:.2e}"


def fmt_pct(x: Any) -> str:
    return MISSING if is_missing(x) else f"{100 * x:.1f} %"


def short_spec(spec: str | None) -> str:
    """'hca3/100/skampi/50,span=0.12,...' -> 'hca3/100/skampi/50' (the paper's label)."""
    return MISSING if not spec else str(spec).split(",")[0]


def is_rate(p: Mapping[str, Any]) -> bool:
    """True for a throughput point (its times convert to bytes/s)."""
    return p.get("unit") == "B/s" and not is_missing(p.get("bytes_per_run")) and p.get("bytes_per_run", 0) > 0


def rate(p: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """(median, lo, hi) bandwidth in bytes/s and the median message rate in messages/s of a
    throughput point: bytes_per_run / median_s, the median's interval inverted; None for others."""
    if not is_rate(p):
        return None
    b, m = p["bytes_per_run"], p.get("msgs_per_run") or 0

    def inv(t: Any, x: Any) -> float:
        return math.nan if is_missing(t) or t <= 0 else x / t
    med = p.get("median_s")
    return (inv(med, b), inv(p.get("median_ci_hi_s"), b), inv(p.get("median_ci_lo_s"), b), inv(med, m))


def fmt_mbps(bps: Any, digits: int = 4) -> str:
    """Bytes/s shown in MB/s (10^6)."""
    if is_missing(bps):
        return MISSING
    v = bps / 1e6
    return f"{v:.0f}" if abs(v) >= 10 ** digits else f"{v:.{digits}g}"


def text_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Plain-text table lines: the head and the rows, columns left-aligned to their widest cell,
    two spaces apart, no trailing spaces."""
    w = [max(len(r[i]) for r in [*rows, head]) for i in range(len(head))]
    return ["  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip() for r in [head, *rows]]
