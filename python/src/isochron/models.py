"""Communication performance models from ``isochron-bench --ops allpairs`` (paper 001, sec. 4-5).

MPIBlib's point-to-point benchmark measures round trips of every pair of processes; from them
Hockney's model (one way: ``alpha + beta * m``) is fitted per pair, from the one-way times (half
the round trip) of empty and non-empty messages, by weighted least squares with standard errors
(exactly the C library's ``isochron_hockney_fit``, src/models/models.c). With two sizes this is
the paper's "two series" and their uncertainty propagates from each series' standard error; the
two-series fit of the smallest and the largest size is kept beside the all-size fit, so a model
that is not linear in the size (shared memory: eager copy, then a rendezvous) shows as their
disagreement and as the residual of the all-size fit. LogGP (L, o, g, G) shares the slope G =
beta and splits the intercept L + 2o - G with the sender overhead o (time inside MPI_Send at the
smallest size); the gap g comes from bursts of messages (``gap_s`` of the records at the smallest
size; files without it: g is reported as its lower bound o, ``g_bound``).

Predictions: isochron's own linear and binomial Bcast, Scatter and Gather (src/ops/alt.c) are
simulated message by message under the fitted per-pair Hockney parameters (the heterogeneous
Hockney model: each edge of the tree uses its own pair's alpha and beta), with blocking sends
that occupy the sender for ``alpha + beta * bytes``; :func:`compare` puts them beside measured
isochron-bench points of the same operations.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Mapping, NoReturn, Sequence, cast

from .base import Record, read_json
from .dataset import IsochronError, read, record_error

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure

    from .dataset import Dataset

#: isochron's point-to-point implementations the predictions cover
PREDICTED_OPS = ("bcast_linear", "bcast_binomial", "scatter_linear", "scatter_binomial",
                 "gather_linear", "gather_binomial")
MODELS_VERSION = 1
_Z95 = 1.959963984540054


# ---------------------------------------------------------------- fits

def hockney_fit(m: Sequence[float], t: Sequence[float], se: Sequence[float] | None = None) -> dict[str, float]:
    """Weighted least squares t = alpha + beta m (se: standard error per point, or None).

    Returns a dict alpha, beta, alpha_se, beta_se, n, rms. Two points: exact, their SE from ``se``
    alone; more: scaled by the residuals (reduced chi-square, at least 1 when ``se`` is given)."""
    n = len(m)
    if n < 2 or len(t) != n or (se is not None and len(se) != n):
        raise IsochronError(f"Hockney fit: {n} point(s); need at least 2 (an empty and a"
                            " non-empty message)")
    for k in range(n):
        if not (math.isfinite(m[k]) and m[k] >= 0 and math.isfinite(t[k])):
            raise IsochronError(f"Hockney fit: point {k} ({m[k]} B, {t[k]} s) is not a finite"
                                " time at a size >= 0")
        if se is not None and not (math.isfinite(se[k]) and se[k] > 0):
            raise IsochronError(f"Hockney fit: point {k} has standard error {se[k]}; need a"
                                " positive finite value")
    w = [1.0 / (e * e) for e in se] if se is not None else [1.0] * n
    sw = sum(w)
    mx = sum(wi * x for wi, x in zip(w, m)) / sw
    my = sum(wi * y for wi, y in zip(w, t)) / sw
    sxx = sum(wi * (x - mx) ** 2 for wi, x in zip(w, m))
    if not sxx > 0:
        raise IsochronError(f"Hockney fit: all {n} points have the same size; need two"
                            " distinct sizes")
    beta = sum(wi * (x - mx) * (y - my) for wi, x, y in zip(w, m, t)) / sxx
    alpha = my - beta * mx
    res = [y - (alpha + beta * x) for x, y in zip(m, t)]
    chi2 = sum(wi * r * r for wi, r in zip(w, res))
    if n > 2:
        scale = max(1.0, chi2 / (n - 2)) if se is not None else chi2 / (n - 2)
    else:
        scale = 1.0 if se is not None else math.nan
    return {"alpha": alpha, "beta": beta, "alpha_se": math.sqrt(scale * (1 / sw + mx * mx / sxx)),
            "beta_se": math.sqrt(scale / sxx), "n": n,
            "rms": math.sqrt(sum(r * r for r in res) / n)}


def loggp_from(h: Mapping[str, Any], o: float, g: float | None = None) -> dict[str, Any]:
    """LogGP from a Hockney fit of one-way times, the sender overhead o and the gap g (s).

    g None (not measured): g is reported as its lower bound o with ``g_bound`` true."""
    if not (isinstance(o, (int, float)) and math.isfinite(o) and o >= 0):
        raise IsochronError(f"LogGP: overhead o = {o!r} s; need a finite value >= 0")
    bound = not (isinstance(g, (int, float)) and math.isfinite(g) and g >= 0)
    return {"L": h["alpha"] + h["beta"] - 2 * o, "o": o, "g": o if bound else g, "G": h["beta"],
            "L_se": math.hypot(h["alpha_se"], h["beta_se"]), "G_se": h["beta_se"],
            "g_bound": bound}


def _one_way_se(rec: Record) -> float:
    lo, hi = rec.get("median_ci_lo_s"), rec.get("median_ci_hi_s")
    e = (hi - lo) / (2 * _Z95) if lo is not None and hi is not None else math.nan
    if not (e > 0):
        sd, n = rec.get("stddev_s"), rec.get("reps") or 0
        e = sd / math.sqrt(n) if sd is not None and n > 1 else math.nan
    if not (e > 0):
        e = max(1e-9, 1e-3 * rec["median_s"])        # identical times (coarse timer): 0.1 %
    return e / 2


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_pair(r: Record) -> None:
    """Refuse a pair record that cannot be a measurement (the schema has checked the types):
    a rank paired with itself or beyond the process count, a round trip that is not a positive
    finite time, a negative overhead or gap."""
    i, j, n = r["i"], r["j"], r["nprocs"]
    if i == j:
        raise record_error(r, "pair", "j", f"pair {i}-{j}: a rank paired with itself is no"
                           " round trip")
    for key, v in (("i", i), ("j", j)):
        if v >= n:
            raise record_error(r, "pair", key, f"rank {v} of {n} processes (nprocs)")
    med = r.get("median_s")
    if med is not None and not (_finite(med) and med > 0):
        raise record_error(r, "pair", "median_s", f"{med!r}: a round trip is a positive finite"
                           " time")
    for key in ("median_ci_lo_s", "median_ci_hi_s", "stddev_s", "send_s", "gap_s"):
        v = r.get(key)
        if v is not None and not (_finite(v) and v >= 0):
            raise record_error(r, "pair", key, f"{v!r}: not a finite time >= 0")


def _pair_nprocs(r: Record, contexts: Sequence[Record]) -> None:
    """A pair record's process count: its own ``nprocs``, else its run's context's (both optional in
    the schema); neither is the same one-line error as any other malformed record."""
    if r.get("nprocs") is not None:
        return
    run = r.get("run")
    ctx = contexts[run] if isinstance(run, int) and 0 <= run < len(contexts) else {}
    n = ctx.get("nprocs")
    if isinstance(n, int) and not isinstance(n, bool) and n >= 1:
        r["nprocs"] = n
        return
    raise record_error(r, "pair", "nprocs", "missing, and its run's context record has no process count"
                       f" ('nprocs' {'is ' + repr(n) if 'nprocs' in ctx else 'absent'}): the ranks of"
                       " the pair cannot be checked")


def fit(path_or_ds: str | Dataset, mode: str | None = None) -> dict[str, Any]:
    """Models of every pair from the ``pair`` records of an allpairs run (a path or a Dataset).

    ``mode`` picks parallel or sequential records when the file has both (default: parallel if
    present). Returns a JSON-ready dict (see :func:`to_json`)."""
    ds = cast("Dataset", path_or_ds) if hasattr(path_or_ds, "records") else read(path_or_ds)
    recs = ds.records.get("pair", [])
    if not recs:
        have = ", ".join(sorted(ds.records)) or "no records"
        raise IsochronError(f"{', '.join(ds.paths)}: no 'pair' records (write them with"
                            f" isochron-bench --ops allpairs --sizes 0,...,64K --jsonl FILE);"
                            f" this file has {have}")
    modes = sorted({r.get("mode", "parallel") for r in recs})
    if mode is None:
        mode = "parallel" if "parallel" in modes else modes[0]
    if mode not in modes:
        raise IsochronError(f"no pair records of mode {mode!r}; the file has: {', '.join(modes)}")
    recs = [r for r in recs if r.get("mode", "parallel") == mode]
    for r in recs:
        _pair_nprocs(r, ds.contexts)
        _check_pair(r)
    nprocs = max(r["nprocs"] for r in recs)
    by_pair: dict[Any, Any] = {}
    for r in recs:
        if r.get("median_s") is None:
            continue
        by_pair.setdefault((min(r["i"], r["j"]), max(r["i"], r["j"])), {})[r["bytes"]] = r  # a later run's size wins
    sizes = sorted({b for d in by_pair.values() for b in d})
    if len(sizes) < 2:
        raise IsochronError(f"the pair records have one size ({sizes[0] if sizes else '-'} B);"
                            " Hockney's model needs at least two distinct sizes, e.g."
                            " --sizes 0,64K")
    pairs = []
    for (i, j), d in sorted(by_pair.items()):
        ms = sorted(d)
        if len(ms) < 2:
            raise IsochronError(f"pair {i}-{j} was measured at one size only ({ms[0]} B)")
        t = [d[b]["median_s"] / 2 for b in ms]
        e = [_one_way_se(d[b]) for b in ms]
        h = hockney_fit(ms, t, e)
        two = hockney_fit([ms[0], ms[-1]], [t[0], t[-1]], [e[0], e[-1]])
        o = d[ms[0]].get("send_s")
        pairs.append({"i": i, "j": j, "sizes": ms, "one_way_s": t, "one_way_se_s": e,
                      "hockney": h, "hockney_two_series": two,
                      "loggp": loggp_from(h, o if o is not None else 0.0, d[ms[0]].get("gap_s"))})
    mean = lambda key, sub: sum(p[sub][key] for p in pairs) / len(pairs)
    return {"version": MODELS_VERSION, "kind": "isochron-models", "mode": mode,
            "nprocs": nprocs, "sizes": sizes, "pairs": pairs,
            "average": {"alpha": mean("alpha", "hockney"), "beta": mean("beta", "hockney"),
                        "L": mean("L", "loggp"), "o": mean("o", "loggp"),
                        "g": mean("g", "loggp"), "G": mean("G", "loggp")}}


# ---------------------------------------------------------------- JSON

def to_json(models: Mapping[str, Any], path: str) -> str:
    """Write models (from :func:`fit`) as JSON; NaN becomes null."""
    def clean(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(clean(models), f, indent=1)
            f.write("\n")
    except OSError as exc:
        raise IsochronError(f"{path}: cannot write the models ({exc.strerror or exc})") from None
    return path


def from_json(path: str) -> dict[str, Any]:
    """Read models written by :func:`to_json`, checked: clear errors for anything else."""
    m = read_json(path, "a models JSON written by isochron models --json")
    if not isinstance(m, dict) or m.get("kind") != "isochron-models":
        raise IsochronError(f"{path}: not an isochron models file (written by isochron models"
                            " --json)")
    if m.get("version") != MODELS_VERSION:
        raise IsochronError(f"{path}: models version {m.get('version')!r}; this isochron reads"
                            f" version {MODELS_VERSION}")
    _check_models(path, m)
    return m


def _check_models(path: str, m: dict[str, Any]) -> None:
    """Every field the tables, predictions and plots read, with its type (NaN is null in the
    file: allowed only for the standard errors and residuals)."""
    def bad(where: str, what: str) -> NoReturn:
        raise IsochronError(f"{path}: field {where!r}: {what}")

    def num(obj: Any, key: str, where: str, null: bool = False, lo: float | None = None) -> None:
        v: Any = obj.get(key) if isinstance(obj, dict) else None
        if v is None and null:
            obj[key] = math.nan
            return
        if not _finite(v):
            bad(f"{where}.{key}" if where else key, f"{v!r} is not a finite number"
                + (" (or null)" if null else ""))
        if lo is not None and v < lo:
            bad(f"{where}.{key}" if where else key, f"{v!r} is below {lo}")

    def integer(obj: Any, key: str, where: str, lo: int = 0) -> None:
        v = obj.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            bad(f"{where}.{key}" if where else key, f"{v!r} is not an integer >= {lo}")

    if not isinstance(m.get("mode"), str):
        bad("mode", f"{m.get('mode')!r} is not parallel or sequential")
    integer(m, "nprocs", "", 1)
    sizes = m.get("sizes")
    if not isinstance(sizes, list) or not all(isinstance(b, int) and not isinstance(b, bool)
                                              and b >= 0 for b in sizes):
        bad("sizes", "not a list of message sizes (integers >= 0)")
    pairs = m.get("pairs")
    if not isinstance(pairs, list) or not pairs:
        raise IsochronError(f"{path}: no pairs")
    for k, p in enumerate(pairs):
        w = f"pairs[{k}]"
        if not isinstance(p, dict):
            bad(w, f"is {type(p).__name__}, not a pair object")
        integer(p, "i", w)
        integer(p, "j", w)
        if p["i"] == p["j"]:
            bad(f"{w}.j", f"pair {p['i']}-{p['j']}: a rank paired with itself")
        if p["i"] >= m["nprocs"] or p["j"] >= m["nprocs"]:
            bad(w, f"pair {p['i']}-{p['j']} beyond nprocs {m['nprocs']}")
        for sub, keys in (("hockney", ("alpha", "beta")), ("hockney_two_series", ("alpha", "beta")),
                          ("loggp", ("L", "o", "g", "G"))):
            if not isinstance(p.get(sub), dict):
                bad(f"{w}.{sub}", f"{p.get(sub)!r} is not an object")
            for key in keys:
                num(p[sub], key, f"{w}.{sub}", lo=0 if key in ("o", "g") else None)
        for key in ("alpha_se", "beta_se", "rms"):
            num(p["hockney"], key, f"{w}.hockney", null=True)
        if not isinstance(p["loggp"].get("g_bound", False), bool):
            bad(f"{w}.loggp.g_bound", f"{p['loggp'].get('g_bound')!r} is not true or false")
    avg = m.get("average")
    if not isinstance(avg, dict):
        bad("average", f"{avg!r} is not an object")
    for key in ("alpha", "beta", "L", "o", "g", "G"):
        num(avg, key, "average")


def pair_params(models: Mapping[str, Any]) -> dict[tuple[int, int], tuple[float, float]]:
    """{(i, j): (alpha, beta)} in both orders."""
    out = {}
    for p in models["pairs"]:
        ab = (p["hockney"]["alpha"], p["hockney"]["beta"])
        out[(p["i"], p["j"])] = out[(p["j"], p["i"])] = ab
    return out


# ---------------------------------------------------------------- predictions

def _edge(params: Mapping[tuple[int, int], tuple[float, float]], a: int, b: int, nbytes: float) -> float:
    if (a, b) not in params:
        raise IsochronError(f"no model for pair {a}-{b}: the models cover"
                            f" {len(params) // 2} pairs; measure allpairs on as many ranks as"
                            " the collectives")
    alpha, beta = params[(a, b)]
    return alpha + beta * nbytes


def predict(op: str, p: int, m: int, params: Any, root: int = 0) -> float:
    """Completion time (s) of isochron's ``op`` (PREDICTED_OPS) at p ranks and block size m (B).

    Simulates src/ops/alt.c's message order under per-pair Hockney parameters; a blocking send
    occupies sender and receiver for alpha + beta * bytes of that pair."""
    if op not in PREDICTED_OPS:
        raise IsochronError(f"no prediction for {op!r}; predicted: {', '.join(PREDICTED_OPS)}")
    if p < 1:
        raise IsochronError(f"{p} processes")
    real = lambda vr: (vr + root) % p
    kind, alg = op.split("_")
    if alg == "linear":
        if kind == "gather":               # the root receives in rank order; all senders ready at 0
            t = 0.0
            for i in range(1, p):
                t += _edge(params, real(i), root, m)
            return t
        t = 0.0                            # bcast / scatter: the root sends in turn
        for i in range(1, p):
            t += _edge(params, root, real(i), m)
        return t
    sub = lambda vr, mask: min(mask, p - vr - mask)     # blocks of child vr+mask's subtree
    if kind in ("bcast", "scatter"):
        done = {0: 0.0}
        order = [0]
        while order:
            vr = order.pop(0)
            low = vr & -vr if vr else 1 << max(0, (p - 1).bit_length())
            mask, t = low >> 1, done[vr]
            while mask > 0:
                if vr + mask < p:
                    nb = m if kind == "bcast" else m * sub(vr, mask)
                    t += _edge(params, real(vr), real(vr + mask), nb)
                    done[vr + mask] = t
                    order.append(vr + mask)
                mask >>= 1
        return max(done.values())
    # gather: mask ascending; receive from child vr+mask, else send to the parent and stop
    def finish(vr: int) -> float:                         # when vr holds its whole subtree's blocks
        t, mask = 0.0, 1
        while mask < p and not vr & mask:
            if vr + mask < p:
                child = vr + mask
                t = max(t, finish(child)) + _edge(params, real(child), real(vr), m * sub(vr, mask))
            mask <<= 1
        return t
    return finish(0)


def _measured(ds: Dataset) -> list[Record]:
    pts = [r for r in ds.records.get("point", []) if r.get("op") in PREDICTED_OPS
           and r.get("median_s") is not None]
    for r in pts:
        if not (_finite(r["median_s"]) and r["median_s"] > 0):
            raise record_error(r, "point", "median_s", f"{r['median_s']!r}: a measured time is"
                               " positive and finite")
        if r.get("nprocs") is None:
            raise record_error(r, "point", "nprocs", "missing: a prediction needs the process count")
        if r["nprocs"] < 1:
            raise record_error(r, "point", "nprocs", f"{r.get('nprocs')!r}: no processes")
        root = r.get("root") or 0
        if not 0 <= root < r["nprocs"]:
            raise record_error(r, "point", "root", f"root {root} of {r['nprocs']} processes")
    if not pts:
        raise IsochronError(f"{', '.join(ds.paths)}: no measured points of"
                            f" {', '.join(PREDICTED_OPS)} (isochron-bench --ops"
                            f" {','.join(PREDICTED_OPS)} --jsonl FILE)")
    return pts


def compare(models: Mapping[str, Any], measured_path_or_ds: str | Dataset) -> list[Record]:
    """Rows (op, bytes, nprocs, root, predicted_s, measured_s, rel_err) for every measured point."""
    ds = read(measured_path_or_ds) if not hasattr(measured_path_or_ds, "records") \
        else cast("Dataset", measured_path_or_ds)
    params = pair_params(models)
    rows = []
    for r in _measured(ds):
        pred = predict(r["op"], r["nprocs"], r["bytes"], params, r.get("root", 0) or 0)
        rows.append({"op": r["op"], "bytes": r["bytes"], "nprocs": r["nprocs"],
                     "root": r.get("root", 0), "method": r.get("method"),
                     "predicted_s": pred, "measured_s": r["median_s"],
                     "rel_err": (pred - r["median_s"]) / r["median_s"]
                     if r["median_s"] > 0 else math.nan})
    return rows


# ---------------------------------------------------------------- text

def _us(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x * 1e6:.3f}"


def models_table(models: Mapping[str, Any]) -> str:
    """The models as text: one line per pair, Hockney (all sizes and two series) and LogGP."""
    lines = [f"models of {len(models['pairs'])} pairs ({models['mode']} all-pairs, "
             f"{models['nprocs']} ranks, sizes {', '.join(str(s) for s in models['sizes'])} B);"
             " one-way times",
             f"{'pair':>6} {'alpha us':>9} {'±SE':>7} {'beta ns/B':>10} {'±SE':>8} {'GB/s':>7}"
             f" {'rms us':>7} | {'2-series alpha':>14} {'beta ns/B':>10} | {'L us':>7}"
             f" {'o us':>6} {'g us':>7} {'G ns/B':>7}"]
    for p in models["pairs"]:
        h, t, lg = p["hockney"], p["hockney_two_series"], p["loggp"]
        bw = 1 / h["beta"] / 1e9 if h["beta"] > 0 else math.nan
        lines.append(f"{str(p['i']) + '-' + str(p['j']):>6} {_us(h['alpha']):>9}"
                     f" {_us(h['alpha_se']):>7} {h['beta'] * 1e9:>10.4f}"
                     f" {h['beta_se'] * 1e9:>8.4f} {bw:>7.2f} {_us(h['rms']):>7} |"
                     f" {_us(t['alpha']):>14} {t['beta'] * 1e9:>10.4f} | {_us(lg['L']):>7}"
                     f" {_us(lg['o']):>6} {('>=' if lg.get('g_bound') else '') + _us(lg['g']):>7}"
                     f" {lg['G'] * 1e9:>7.4f}")
    a = models["average"]
    g_note = ("g: its lower bound o (no gap_s in the file)"
              if any(p["loggp"].get("g_bound") for p in models["pairs"])
              else "g from bursts of 8 messages")
    lines.append(f"average: alpha {_us(a['alpha'])} us, beta {a['beta'] * 1e9:.4f} ns/B;"
                 f" LogGP L {_us(a['L'])} us, o {_us(a['o'])} us, g {_us(a.get('g'))} us,"
                 f" G {a['G'] * 1e9:.4f} ns/B ({g_note})")
    worst = max(models["pairs"], key=lambda p: p["hockney"]["rms"] / max(
        1e-12, abs(p["hockney"]["alpha"])))
    lines.append(f"linearity: the all-size fit of pair {worst['i']}-{worst['j']} misses by"
                 f" {_us(worst['hockney']['rms'])} us rms (alpha {_us(worst['hockney']['alpha'])}"
                 " us); a large miss says the transport has no single beta")
    return "\n".join(lines) + "\n"


def compare_table(rows: Sequence[Record]) -> str:
    lines = [f"{'operation':<18} {'size':>8} {'np':>3} {'predicted us':>13} {'measured us':>12}"
             f" {'rel.err':>8}"]
    for r in sorted(rows, key=lambda r: (r["op"], r["bytes"])):
        lines.append(f"{r['op']:<18} {r['bytes']:>8} {r['nprocs']:>3} {_us(r['predicted_s']):>13}"
                     f" {_us(r['measured_s']):>12} {r['rel_err'] * 100:>7.1f}%")
    by_op: dict[Any, Any] = {}
    for r in rows:
        by_op.setdefault(r["op"], []).append(abs(r["rel_err"]))
    lines.append("median |rel.err| per operation: " + ", ".join(
        f"{op} {sorted(v)[len(v) // 2] * 100:.0f}%" for op, v in sorted(by_op.items())))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- plots

def plot_heatmap(ds_or_path: str | Dataset, size: int | None = None, mode: str | None = None) -> Figure:
    """Heatmap of the median round trip per pair (a ``matrix`` record of an allpairs run)."""
    from matplotlib.figure import Figure
    ds = read(ds_or_path) if not hasattr(ds_or_path, "records") else ds_or_path
    mats = [r for r in ds.records.get("matrix", []) if (mode is None or r.get("mode") == mode)]
    if not mats:
        raise IsochronError("no 'matrix' records (isochron-bench --ops allpairs --jsonl FILE)")
    if size is not None:
        pick = [r for r in mats if r["bytes"] == size]
        if not pick:
            raise IsochronError(f"no matrix at {size} B; sizes: "
                                f"{', '.join(str(r['bytes']) for r in mats)}")
        mats = pick
    rec = mats[-1]
    n = len(rec["median_s"])
    if n == 0 or any(len(row) != n for row in rec["median_s"]) or n != rec.get("nprocs", n):
        raise record_error(rec, "matrix", "median_s", f"not a square matrix of {rec.get('nprocs', n)}"
                           f" x {rec.get('nprocs', n)} round trips (rows of"
                           f" {', '.join(str(len(row)) for row in rec['median_s'][:8]) or 'none'})")
    for i, row in enumerate(rec["median_s"]):
        for j, v in enumerate(row):
            if v is not None and not (_finite(v) and v >= 0):
                raise record_error(rec, "matrix", "median_s", f"[{i}][{j}] = {v!r}: not a round"
                                   " trip (a finite time >= 0)")
    mat = [[(v if v is not None else math.nan) * 1e6 for v in row] for row in rec["median_s"]]
    fig = Figure(figsize=(5.5, 4.6), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(mat, cmap="viridis")
    p = len(mat)
    for i in range(p):
        for j in range(p):
            if i != j and math.isfinite(mat[i][j]):
                ax.text(j, i, f"{mat[i][j]:.2f}", ha="center", va="center", color="w",
                        fontsize=8)
    ax.set_xticks(range(p))
    ax.set_yticks(range(p))
    ax.set_xlabel("rank j")
    ax.set_ylabel("rank i")
    ax.set_title(f"median round trip i <-> j (us), {rec['bytes']} B, {rec.get('mode')}")
    fig.colorbar(im, ax=ax, label="us")
    return fig


def plot_predictions(rows: Sequence[Record]) -> Figure:
    """Predicted (dashed) and measured (solid) time vs size, one panel per operation."""
    from matplotlib.figure import Figure
    ops = sorted({r["op"] for r in rows})
    fig = Figure(figsize=(4.0 * min(3, len(ops)), 3.4 * math.ceil(len(ops) / 3)),
                 layout="constrained")
    axes = fig.subplots(math.ceil(len(ops) / 3), min(3, len(ops)), squeeze=False).ravel()
    for ax, op in zip(axes, ops):
        rs = sorted((r for r in rows if r["op"] == op), key=lambda r: r["bytes"])
        x = [r["bytes"] for r in rs]
        ax.plot(x, [r["measured_s"] * 1e6 for r in rs], "o-", label="measured")
        ax.plot(x, [r["predicted_s"] * 1e6 for r in rs], "s--", label="Hockney prediction")
        ax.set_title(op)
        ax.set_xlabel("block size (B)")
        ax.set_ylabel("time (us)")
        ax.legend(fontsize=7)
    return fig
