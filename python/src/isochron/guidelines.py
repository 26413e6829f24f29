"""Self-consistent performance guidelines, checked with a confidence interval across launches.

A guideline (key traff-guidelines in docs/references.md; ReproMPI's checker and PGMPITuneLib,
key pgmpitunelib) says a specialized collective should not be slower than a semantically
equivalent composition of other collectives, its mock-up: MPI_Allreduce <= MPI_Reduce +
MPI_Bcast and so on. isochron's mock-ups are operations of the registry (``<coll>_mockup``,
src/ops/mockup.c): their data is validated like every operation's, so a mock-up that is faster
delivers the same result.

Design. One launch measures both sides of every guideline at every size (``--ops
allreduce,allreduce_mockup,...``), so each launch gives a ratio per point, mock-up median over
collective median, measured in the same stretch of machine time; a launch set repeats that
(``isochron run``'s balanced order of two configurations, the collective first and the mock-up
first, so the order inside a launch cannot favour one side). Across the n launches the
log ratios give Student's t interval (the launch is the unit, as in :mod:`isochron.launches`):
exp(mean +- t_{n-1} sd / sqrt(n)). A pair is

* **violated** when the whole interval lies below 1 (the mock-up is faster at the confidence
  level),
* **holds** when the interval's lower end is at least 1 / (1 + tolerance) (the collective is
  at most ``tolerance`` slower than its mock-up),
* **inconclusive** otherwise (more launches would decide).

The launch-to-launch noise is stated beside each pair: the sd of the log ratios (what the test
uses) and the sd of the collective's own log launch medians (what a rerun of the collective
alone would see). An A/A run (``--aa``: each collective against ``<coll>_alias``, the same MPI
call under a second name) gives the false-violation rate of the whole procedure.

``--run`` measures with fresh send buffers every repetition (the driver's --validate 2 unless the
user's driver arguments set --validate; :func:`isochron.launches.fresh_buffer_args`): with the
driver's default a rank re-sends unchanged memory between repetitions 0, 1, 2, 4, 8, ..., and Open
MPI's single copy made "scan slower than Exscan + op" an artifact of that. The table's title line
gives the policy the runs recorded.
"""
from __future__ import annotations

import math
import os
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence, TextIO

from .base import IsochronError, Record
from .launches import add_run_arguments, buffer_policy, fresh_buffer_args, library_id, load_points  # noqa: F401 (re-exported)
from .units import fmt_bytes, fmt_time

#: the guidelines: collective -> its mock-up (registry names), in the order of the paper's list
GUIDELINES: dict[str, str] = {
    "allgather": "allgather_mockup",      # MPI_Allgather <= MPI_Gather + MPI_Bcast
    "allreduce": "allreduce_mockup",      # MPI_Allreduce <= MPI_Reduce + MPI_Bcast
    "reduce_scatter_block": "reduce_scatter_block_mockup",  # <= MPI_Reduce + MPI_Scatter
    "bcast": "bcast_mockup",              # MPI_Bcast <= MPI_Scatter + MPI_Allgather
    "gather": "gather_mockup",            # MPI_Gather <= MPI_Allgather
    "scan": "scan_mockup",                # MPI_Scan <= MPI_Exscan + local op
}
#: what each mock-up is made of (for the tables)
MOCKUP_TEXT: dict[str, str] = {
    "allgather": "Gather + Bcast", "allreduce": "Reduce + Bcast",
    "reduce_scatter_block": "Reduce + Scatter", "bcast": "Scatter + Allgather",
    "gather": "Allgather", "scan": "Exscan + local op",
}
#: default tolerance: a collective at most this much slower than its mock-up still "holds"
DEFAULT_TOLERANCE = 0.05


def partner(coll: str, aa: bool) -> str:
    return coll + "_alias" if aa else GUIDELINES[coll]


@dataclass
class Pair:
    """One guideline at one (process count, size): the verdict and its numbers."""
    coll: str
    nprocs: int
    bytes: int
    n: int                        # launches with both sides measured
    coll_s: float                 # median over launches of the collective's launch medians
    mock_s: float
    ratio: float                  # exp(mean log(mock / coll)) over launches
    lo: float                     # confidence interval of the ratio
    hi: float
    noise: float | None           # sd of the log ratios across launches
    coll_noise: float | None      # sd of the collective's log launch medians
    verdict: str                  # holds / violated / inconclusive / unconfirmed
    mock: str = ""
    second: str = ""              # with a second set: its ratio [CI] and verdict for the same cell


@dataclass
class Result:
    pairs: list[Pair] = field(default_factory=list)
    aa: bool = False
    level: float = 0.95
    tolerance: float = DEFAULT_TOLERANCE
    sources: list[str] = field(default_factory=list)
    mpi: str = ""
    buffers: str = ""                  # the runs' buffer policy (launches.buffer_policy)
    confirmed: bool = False            # a second, independent set was compared (confirm())
    single_violations: int = 0         # violations of the first set alone (before confirm())


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    k = len(s)
    return s[k // 2] if k % 2 else 0.5 * (s[k // 2 - 1] + s[k // 2])


def _sd(xs: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def verdict(lo: float, hi: float, tolerance: float) -> str:
    if hi < 1.0:
        return "violated"
    if lo >= 1.0 / (1.0 + tolerance):
        return "holds"
    return "inconclusive"


def confirm(res: Result, second: Sequence[Pair]) -> None:
    """Compare RES with a second, independent set of the same cells: a violation stands only where
    the second set finds it too; one the second set does not reproduce (or did not measure) becomes
    "unconfirmed" (not a violation: not listed, not in a profile). Every pair gets the second set's
    ratio and verdict beside its own."""
    by = {(q.coll, q.nprocs, q.bytes): q for q in second}
    res.single_violations = sum(p.verdict == "violated" for p in res.pairs)
    for p in res.pairs:
        q = by.get((p.coll, p.nprocs, p.bytes))
        p.second = f"{_cell_ratio(q)} {q.verdict}" if q else "not measured"
        if p.verdict == "violated" and (q is None or q.verdict != "violated"):
            p.verdict = "unconfirmed"
    res.confirmed = True


def _launch_key(p: Record) -> tuple[Any, ...]:
    lid = p.get("launch")
    if lid is not None and lid == lid:
        return (os.path.dirname(os.path.abspath(str(p.get("file", "")))), int(lid))
    return (str(p.get("file")), p.get("run"))


def analyse(points: Sequence[Record], aa: bool = False, level: float = 0.95,
            tolerance: float = DEFAULT_TOLERANCE) -> list[Pair]:
    """Pairs from isochron-bench points (several launches). A point needs op, nprocs, bytes and
    median_s; a launch is a launch-set launch (``launch`` tag) or a run of a file."""
    from scipy.stats import t as student
    med: dict[tuple[Any, ...], float] = {}
    for p in points:
        m = p.get("median_s")
        if m is None or m != m or m <= 0 or p.get("op") is None:
            continue
        med[(_launch_key(p), p["op"], int(p["nprocs"]), int(p["bytes"]))] = float(m)
    launches = sorted({k[0] for k in med}, key=repr)
    cells = sorted({(k[2], k[3]) for k in med})
    out: list[Pair] = []
    for coll in GUIDELINES:
        mock = partner(coll, aa)
        for nprocs, size in cells:
            both = [(med[(lk, coll, nprocs, size)], med[(lk, mock, nprocs, size)]) for lk in launches
                    if (lk, coll, nprocs, size) in med and (lk, mock, nprocs, size) in med]
            if not both:
                continue
            logs = [math.log(b / a) for a, b in both]
            n = len(logs)
            mean = sum(logs) / n
            sd = _sd(logs)
            if sd is None:                   # one launch: no interval, nothing decided
                lo, hi = 0.0, math.inf
            else:
                half = float(student.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
                lo, hi = math.exp(mean - half), math.exp(mean + half)
            out.append(Pair(coll, nprocs, size, n, _median([a for a, _ in both]),
                            _median([b for _, b in both]), math.exp(mean), lo, hi, sd,
                            _sd([math.log(a) for a, _ in both]), verdict(lo, hi, tolerance), mock))
    if not out:
        want = ", ".join(f"{c}+{partner(c, aa)}" for c in GUIDELINES)
        raise IsochronError("no guideline pair measured in these results (each launch needs a"
                            f" collective and its {'alias' if aa else 'mock-up'}: {want})")
    return out


def violation_ranges(pairs: Sequence[Pair]) -> list[tuple[str, int, int, int, int, int]]:
    """(collective, nprocs, first size, last size, pairs violated, pairs measured in the range):
    runs of consecutive measured sizes with a violation, per collective and process count."""
    out = []
    by: dict[tuple[str, int], list[Pair]] = {}
    for p in pairs:
        by.setdefault((p.coll, p.nprocs), []).append(p)
    for (coll, nprocs), ps in sorted(by.items()):
        ps.sort(key=lambda q: q.bytes)
        run: list[Pair] = []
        for q in ps:
            if q.verdict == "violated":
                run.append(q)
                continue
            if run:
                out.append((coll, nprocs, run[0].bytes, run[-1].bytes, len(run), len(run)))
                run = []
        if run:
            out.append((coll, nprocs, run[0].bytes, run[-1].bytes, len(run), len(run)))
    return out


def _cell_ratio(p: Pair) -> str:
    if math.isinf(p.hi):
        return f"{p.ratio:.3f} [one launch]"
    return f"{p.ratio:.3f} [{p.lo:.3f}, {p.hi:.3f}]"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def table(res: Result) -> str:
    """The guideline table (text), the violations by size range and, for A/A, the false rate."""
    side = "alias" if res.aa else "mock-up"
    head = ["guideline", "np", "size", "launches", "collective", side, f"{side}/coll [{100 * res.level:g} % CI]",
            "ratio noise", "coll noise", "verdict"] + (["second set"] if res.confirmed else [])
    rows = []
    for p in sorted(res.pairs, key=lambda q: (list(GUIDELINES).index(q.coll), q.nprocs, q.bytes)):
        name = f"{p.coll} = {p.mock}" if res.aa else f"{p.coll} <= {MOCKUP_TEXT[p.coll]}"
        rows.append([name, str(p.nprocs), fmt_bytes(p.bytes), str(p.n), fmt_time(p.coll_s),
                     fmt_time(p.mock_s), _cell_ratio(p), _pct(p.noise), _pct(p.coll_noise), p.verdict]
                    + ([p.second] if res.confirmed else []))
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = []
    if res.mpi:
        lines.append(f"MPI: {res.mpi}")
    lines.append(f"{'A/A control' if res.aa else 'guidelines'}: ratio = {side} time / collective time per"
                 f" launch (launch medians), t interval over launches; violated: CI below 1; holds:"
                 f" CI above 1/(1+{res.tolerance:g}); else inconclusive"
                 + (f"; {res.buffers}" if res.buffers else "")
                 + ("; a violation counts only where the second, independent set finds it too"
                    " (else: unconfirmed)" if res.confirmed else ""))
    lines.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    for r in rows:
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    nviol = sum(p.verdict == "violated" for p in res.pairs)
    kinds = ("holds", "violated", "inconclusive") + (("unconfirmed",) if res.confirmed else ())
    counts = {v: sum(p.verdict == v for p in res.pairs) for v in kinds}
    lines.append("")
    lines.append(f"{len(res.pairs)} pairs: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if res.aa:
        if res.confirmed:
            k = res.single_violations
            lines.append(f"A/A false violations: {k} of {len(res.pairs)} pairs in the first set alone"
                         f" ({100 * k / len(res.pairs):.1f} %), {nviol} confirmed by the second set")
        else:
            lines.append(f"A/A false violations: {nviol} of {len(res.pairs)} pairs"
                         f" ({100 * nviol / len(res.pairs):.1f} %)")
    else:
        vr = violation_ranges(res.pairs)
        if vr:
            lines.append("violations (collective slower than its mock-up, by size range):")
            for coll, nprocs, a, b, k, _ in vr:
                rng = fmt_bytes(a) if a == b else f"{fmt_bytes(a)} .. {fmt_bytes(b)}"
                lines.append(f"  {coll} <= {MOCKUP_TEXT[coll]}  at {nprocs} processes: {rng} ({k} sizes)")
        else:
            lines.append("no violation at the confidence level")
    return "\n".join(lines) + "\n"


def to_json(res: Result) -> Record:
    return {"isochron_guidelines": 1, "aa": res.aa, "level": res.level, "tolerance": res.tolerance,
            "mpi": res.mpi, "sources": res.sources, "confirmed": res.confirmed,
            "pairs": [p.__dict__ | {"hi": (None if math.isinf(p.hi) else p.hi)} for p in res.pairs],
            "violations": [{"coll": c, "nprocs": n, "from_bytes": a, "to_bytes": b, "sizes": k}
                           for c, n, a, b, k, _ in violation_ranges(res.pairs)]}


# ---------------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------------

def run_sets(outdir: str, launcher: Sequence[str], bench: str, nprocs: Sequence[int], launches: int,
             sizes: str, colls: Sequence[str], aa: bool, extra: Sequence[str], seed: int | None,
             log: TextIO | None = None, timeout: float | None = None) -> list[str]:
    """One interleaved launch set per process count under OUTDIR/np<N>: two configurations (the
    collective first in each pair, the mock-up first), ``launches`` launches each. Returns the
    set directories."""
    from .launchset import run
    for c in colls:
        if c not in GUIDELINES:
            raise IsochronError(f"--colls {c}: no guideline for it; valid: {', '.join(GUIDELINES)}")
    if launches < 2:
        raise IsochronError(f"--launches {launches}: a confidence interval across launches needs"
                            " at least 2 per configuration")
    os.makedirs(outdir, exist_ok=True)
    fwd = ",".join(f"{c},{partner(c, aa)}" for c in colls)
    rev = ",".join(f"{partner(c, aa)},{c}" for c in colls)
    dirs = []
    for np_ in nprocs:
        cfgdir = os.path.join(outdir, f"np{np_}.configs")
        os.makedirs(cfgdir, exist_ok=True)
        cfgs = []
        for name, ops in (("coll-first", fwd), ("partner-first", rev)):
            path = os.path.join(cfgdir, name + ".args")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(f"--ops {ops} --sizes {shlex.quote(sizes)} " + " ".join(map(shlex.quote, extra)) + "\n")
            cfgs.append(path)
        d = os.path.join(outdir, f"np{np_}")
        run(list(launcher) + ["-np", str(np_), bench], launches, cfgs, seed=seed, outdir=d, log=log,
            timeout=timeout)
        dirs.append(d)
    return dirs


#: the guidelines whose collective libisochron-tune.so can redirect, and its MPI function
LAYER_FUNCS = {"allreduce": "MPI_Allreduce", "allgather": "MPI_Allgather", "bcast": "MPI_Bcast",
               "scan": "MPI_Scan", "reduce_scatter_block": "MPI_Reduce_scatter_block"}


def profile_text(res: Result, nprocs: int, hosts: Sequence[str]) -> str:
    """libisochron-tune.so's profile (isochron/tune.h): a redirect for every violated pair at
    NPROCS whose collective the layer can redirect. A run of violated sizes covers message sizes
    up to the geometric means with its measured neighbours (the whole range below the smallest
    and above the largest measured size stays with the library)."""
    if not res.mpi or not hosts:
        raise IsochronError("--profile: the results do not state the MPI library and hosts they were"
                            " measured on")
    lines = ["# libisochron-tune.so profile written by isochron guidelines (isochron/tune.h)",
             "isochron_tune_profile 1", f"mpi_library {res.mpi}", f"nprocs {nprocs}",
             f"hosts {','.join(hosts)}"]
    sizes: dict[str, list[int]] = {}
    for p in res.pairs:
        if p.nprocs == nprocs:
            sizes.setdefault(p.coll, []).append(p.bytes)
    n = 0
    for coll, _np, a, b, k, _ in violation_ranges([p for p in res.pairs if p.nprocs == nprocs]):
        if coll not in LAYER_FUNCS:
            lines.append(f"# {coll}: violated at {fmt_bytes(a)} .. {fmt_bytes(b)}, not redirectable by the layer")
            continue
        ms = sorted(set(sizes[coll]))
        i, j = ms.index(a), ms.index(b)
        lo = a if i == 0 else int(math.ceil(math.sqrt(max(1, ms[i - 1]) * max(1, a))))
        hi = b if j == len(ms) - 1 else int(math.floor(math.sqrt(max(1, b) * ms[j + 1])))
        lines.append(f"redirect {LAYER_FUNCS[coll]} {nprocs} {lo} {hi}   # violated at {fmt_bytes(a)} .. {fmt_bytes(b)}"
                     f" ({k} measured sizes)")
        n += 1
    if not n:
        lines.append("# no violation the layer can act on: every call passes through")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------------

def _ints(text: str, what: str) -> list[int]:
    try:
        v = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise IsochronError(f"{what} {text!r}: give comma-separated integers, e.g. 2,4") from None
    if not v or any(x < 1 for x in v):
        raise IsochronError(f"{what} {text!r}: give process counts of at least 1")
    return v


def cmd_guidelines(args: Any) -> int:
    import json
    if not 0 < args.level < 1:
        raise IsochronError(f"--level {args.level}: give a confidence level between 0 and 1, e.g. 0.95")
    if args.tolerance < 0:
        raise IsochronError(f"--tolerance {args.tolerance}: give a fraction >= 0, e.g. 0.05")
    paths = list(args.results or [])
    second = list(args.confirm or [])
    if args.repeat and not args.run:
        raise IsochronError("--repeat measures a second set with --run DIR; to compare sets already"
                            " measured, give the second with --confirm SET")
    if args.run:
        if paths:
            raise IsochronError("give either --run DIR (measure) or result sets to read, not both")
        if args.repeat and second:
            raise IsochronError("give either --repeat (measure the second set) or --confirm SET, not both")
        colls = [c for c in args.colls.split(",") if c] if args.colls else list(GUIDELINES)
        for out, dest in ((args.run, paths), (os.path.join(args.run, "second"), second))[:2 if args.repeat else 1]:
            dest += run_sets(out, shlex.split(args.launcher), args.bench,
                             _ints(args.np, "--np"), args.launches, args.sizes, colls, args.aa,
                             fresh_buffer_args(shlex.split(args.bench_args or "")),
                             args.seed if out == args.run or args.seed is None else args.seed + 1,
                             timeout=args.timeout)
    if not paths:
        raise IsochronError("nothing to check: give result sets (launch-set directories or JSON"
                            " Lines) or --run DIR to measure")
    hosts: list[str] = []
    ctxs: list[Any] = []
    pts, mpi = load_points(paths, hosts, ctxs)
    res = Result(analyse(pts, args.aa, args.level, args.tolerance), args.aa, args.level,
                 args.tolerance, paths, mpi, buffer_policy(ctxs))
    if second:
        if set(map(os.path.abspath, second)) & set(map(os.path.abspath, paths)):
            raise IsochronError("--confirm: the second set must be another, independent set, not one of the first")
        pts2, mpi2 = load_points(second, [], [])
        if mpi2 != mpi:
            raise IsochronError(f"--confirm: the second set was measured with {mpi2 or 'an unstated MPI'},"
                                f" the first with {mpi or 'an unstated MPI'}")
        confirm(res, analyse(pts2, args.aa, args.level, args.tolerance))
        res.sources += second
    sys.stdout.write(table(res))
    if args.profile:
        if args.aa:
            raise IsochronError("--profile comes from a guideline run, not from the A/A control (--aa)")
        nps = sorted({p.nprocs for p in res.pairs})
        np_ = args.profile_np if args.profile_np else nps[-1]
        if np_ not in nps:
            raise IsochronError(f"--profile-np {np_}: not measured (process counts: {nps})")
        try:
            with open(args.profile, "w", encoding="utf-8") as fh:
                fh.write(profile_text(res, np_, hosts))
        except OSError as exc:
            raise IsochronError(f"--profile {args.profile}: cannot write ({exc.strerror})") from None
        print(f"profile: {args.profile} ({np_} processes)")
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(to_json(res), fh, indent=1)
        except OSError as exc:
            raise IsochronError(f"--json {args.json}: cannot write ({exc.strerror})") from None
    return 0


def add_parser(sub: Any) -> None:
    """``isochron guidelines`` (registered by :mod:`isochron.cli`)."""
    g = sub.add_parser(
        "guidelines", help="self-consistent performance guidelines: each collective against its"
        " mock-up, with a confidence interval across launches",
        description="Check the guidelines of Traff, Gropp and Thakur (a collective is not slower"
        " than its mock-up: allgather <= gather+bcast, allreduce <= reduce+bcast,"
        " reduce_scatter_block <= reduce+scatter, bcast <= scatter+allgather, gather <="
        " allgather, scan <= exscan+local op) from launch sets of isochron-bench measuring both"
        " sides in every launch. Per process count and size: holds / violated / inconclusive,"
        " the ratio with its confidence interval across launches and the launch-to-launch noise;"
        " violations by size range. --aa measures each collective against itself under a second"
        " name (<coll>_alias): the false-violation rate. --run measures with fresh send buffers"
        " every repetition (the driver's --validate 2, added unless --bench-args sets --validate):"
        " with the driver's default a rank re-sends unchanged memory between repetitions 0,1,2,4,"
        "8,..., which Open MPI's single copy turns into an artifact (scan at 2 ranks: 0.34 against"
        " 0.99-1.08 fresh). The table's title line says the policy the sets were measured with.",
        epilog="example: isochron guidelines --run gl --np 2,4 --launches 4 --sizes 8,1K,64K;"
        " then isochron guidelines gl/np2 gl/np4 reads the sets again")
    g.add_argument("results", nargs="*", metavar="SET",
                   help="launch-set directories (or JSON Lines) holding both sides of the pairs")
    g.add_argument("--run", metavar="DIR", help="measure first: one launch set per process count"
                   " under DIR/np<N>")
    g.add_argument("--np", default="2,4", help="--run: process counts (default: 2,4)")
    g.add_argument("--launches", type=int, default=4, help="--run: launches per configuration"
                   " (two configurations: collective first, mock-up first; default: 4)")
    g.add_argument("--sizes", default="8,1K,32K,256K", help="--run: isochron-bench --sizes"
                   " (default: 8,1K,32K,256K)")
    g.add_argument("--colls", help="--run: collectives (default: all: " + ",".join(GUIDELINES) + ")")
    add_run_arguments(g, "--run: ")
    g.add_argument("--confirm", action="append", metavar="SET", help="a second, independent set of"
                   " the same pairs (repeatable, like SET): a violation counts only where it finds it too;"
                   " the others are 'unconfirmed', not listed and not in --profile")
    g.add_argument("--repeat", action="store_true", help="--run: measure a second, independent set"
                   " under DIR/second and use it as --confirm")
    g.add_argument("--aa", action="store_true", help="A/A control: each collective against"
                   " <coll>_alias")
    g.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")
    g.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                   help="holds when the collective is at most this fraction slower at the"
                   f" confidence level (default: {DEFAULT_TOLERANCE:g})")
    g.add_argument("--json", metavar="OUT", help="write the pairs and violations as JSON")
    g.add_argument("--profile", metavar="OUT", help="write libisochron-tune.so's profile: the violated"
                   " ranges the layer can redirect (isochron/tune.h)")
    g.add_argument("--profile-np", type=int, help="the process count of --profile (default: the"
                   " largest measured)")
    g.set_defaults(func=cmd_guidelines)
