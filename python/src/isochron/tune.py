"""Algorithm tuning from measurements: Open MPI coll/tuned's dynamic rules file, chosen per size
only where a difference is significant across launches.

Open MPI's coll/tuned runs a fixed decision tree measured on other machines; its documentation
tells users to tune their own. It lets a run force one algorithm per collective
(``--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N``) or read a rules
file by communicator size and message size (``coll_tuned_dynamic_rules_filename``). The file
format of Open MPI 4.1 (checked here against ``ompi_info --param coll tuned --level 9`` and by
running Open MPI with the file, tests/tune): whitespace-separated integers, ``#`` comments::

    <number of collectives>
    <collective id>              (coll_base_functions.h COLLTYPE: allgather 0, allreduce 2,
                                  alltoall 3, barrier 6, bcast 7, reduce 11, ...)
    <number of communicator sizes>
    <communicator size>          (a rule applies to communicators at least this large, up to
                                  the next listed size)
    <number of message sizes>
    <message size> <algorithm> <fan-in/out> <segment size>    (ascending, the first at 0;
                                  algorithm 0 = the fixed decision)

The message size coll/tuned compares is the datatype size times the count of the call, for
allgather and alltoall also times the communicator size (Open MPI issue 7672 lists it per
collective): :func:`ompi_msg_size` converts isochron's per-peer sizes.

Design. One launch set (``isochron run``'s balanced order) with one configuration per algorithm
(0: the library's default) measures the collective at every size; the launch is the unit. Per
size, each algorithm's launch medians are tested against the default's (t-test on log launch
medians, :func:`isochron.launches.launch_test`); the rules file names an algorithm for a size
only when it is significantly faster than the default *and* the fastest of those, else 0 (the
default stays). Boundaries between measured sizes are their geometric means. A rule for
communicator size np + 1 with algorithm 0 keeps larger communicators on the default, so the file
acts only where it was measured (smaller ones have no rule and keep the default too).

MPICH: ``MPIR_CVAR_<COLL>_INTRA_ALGORITHM`` selects one algorithm for every size of a run; a
per-size choice needs its JSON selection file (``MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE``),
whose format isochron does not write (docs/tuning.md).
"""
from __future__ import annotations

import math
import os
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from .base import IsochronError, Record
from .units import fmt_bytes, fmt_time

#: Open MPI 4.1 coll/tuned collective ids (coll_base_functions.h, enum COLLTYPE)
OMPI_COLL_ID: dict[str, int] = {
    "allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4, "alltoallw": 5,
    "barrier": 6, "bcast": 7, "exscan": 8, "gather": 9, "gatherv": 10, "reduce": 11,
    "reduce_scatter": 12, "reduce_scatter_block": 13, "scan": 14, "scatter": 15, "scatterv": 16,
}
#: algorithms of Open MPI 4.1.4's coll/tuned (ompi_info --param coll tuned --level 9), 0 = default
OMPI_ALGORITHMS: dict[str, list[str]] = {
    "allreduce": ["default", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                  "segmented_ring", "rabenseifner"],
    "bcast": ["default", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree",
              "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"],
    "allgather": ["default", "linear", "bruck", "recursive_doubling", "ring", "neighbor",
                  "two_proc"],
    "alltoall": ["default", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"],
    "reduce": ["default", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary",
               "rabenseifner"],
}


def ompi_msg_size(coll: str, nbytes: int, nprocs: int) -> int:
    """The message size coll/tuned's rules compare, from isochron's per-peer size."""
    return nbytes * nprocs if coll in ("allgather", "alltoall", "reduce_scatter_block") else nbytes


def force_args(coll: str, alg: int) -> list[str]:
    """mpirun words forcing algorithm ALG of COLL (0: dynamic rules on, nothing forced = default)."""
    out = ["--mca", "coll_tuned_use_dynamic_rules", "1"]
    if alg:
        out += ["--mca", f"coll_tuned_{coll}_algorithm", str(alg)]
    return out


def rules_args(path: str) -> list[str]:
    return ["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_dynamic_rules_filename",
            os.path.abspath(path)]


@dataclass
class Choice:
    bytes: int
    nprocs: int
    alg: int                          # chosen (0: default kept)
    default_s: float                  # median of the default's launch medians
    best_alg: int                     # fastest median, significant or not
    best_s: float
    chosen_s: float
    ratio: float                      # chosen / default
    p: float | None
    noise: float | None               # pooled sd of log launch medians
    n: int                            # launches per algorithm (fewest)
    times: dict[int, float] = field(default_factory=dict)


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    k = len(s)
    return s[k // 2] if k % 2 else 0.5 * (s[k // 2 - 1] + s[k // 2])


def _alg_of(config: str) -> int:
    if not config.startswith("alg"):
        raise IsochronError(f"configuration {config!r} is not a tuning configuration (alg<N>)")
    return int(config[3:])


def launch_medians(points: Sequence[Record], op: str) -> dict[tuple[str, int, int], list[float]]:
    """(config, nprocs, bytes) -> launch medians of OP."""
    out: dict[tuple[str, int, int], list[float]] = {}
    for p in points:
        m = p.get("median_s")
        if p.get("op") != op or m is None or m != m or m <= 0:
            continue
        out.setdefault((str(p.get("config")), int(p["nprocs"]), int(p["bytes"])), []).append(float(m))
    return out


def choose(points: Sequence[Record], coll: str, alpha: float = 0.05, min_launches: int = 3) -> list[Choice]:
    """Per (nprocs, size): the algorithm for the rules file (see the module's design). An
    algorithm is considered only with at least ``min_launches`` valid launch medians on its side and
    on the default's (a point without a valid repetition in a launch has no median)."""
    from .launches import launch_test
    med = launch_medians(points, coll)
    if not med:
        raise IsochronError(f"no {coll} points in these results")
    cells = sorted({(k[1], k[2]) for k in med})
    out = []
    for nprocs, size in cells:
        per = {_alg_of(c): v for (c, n_, b), v in med.items() if n_ == nprocs and b == size}
        if 0 not in per:
            raise IsochronError(f"{coll} at {size} B on {nprocs} processes: no launch of the default"
                                " (configuration alg0)")
        times = {a: _median(v) for a, v in per.items()}
        best = min(times, key=lambda a: times[a])
        sig = {}
        for a, v in per.items():
            if a == 0 or len(v) < max(2, min_launches) or len(per[0]) < max(2, min_launches):
                continue
            t = launch_test(per[0], v, alpha)
            if t["significant"] and t["d"] < 0:
                sig[a] = t
        alg = min(sig, key=lambda a: times[a]) if sig else 0
        t0 = launch_test(per[0], per[alg], alpha) if alg else None
        out.append(Choice(size, nprocs, alg, times[0], best, times[best], times[alg],
                          times[alg] / times[0], t0["p"] if t0 else None,
                          t0["spread"] if t0 else None, min(len(v) for v in per.values()), times))
    return out


def rules_text(coll: str, choices: Sequence[Choice], mpi: str = "") -> str:
    """Open MPI 4.1's dynamic rules file for COLL from the choices (one process count)."""
    nps = sorted({c.nprocs for c in choices})
    if len(nps) != 1:
        raise IsochronError(f"rules for one process count at a time (these results have {nps})")
    np_ = nps[0]
    cs = sorted(choices, key=lambda c: c.bytes)
    rules: list[tuple[int, int]] = []
    for i, c in enumerate(cs):
        lo = 0 if i == 0 else int(math.ceil(math.sqrt(max(1, ompi_msg_size(coll, cs[i - 1].bytes, np_))
                                                      * max(1, ompi_msg_size(coll, c.bytes, np_)))))
        if rules and rules[-1][1] == c.alg:
            continue                     # same algorithm as below: one rule covers both
        rules.append((lo, c.alg))
    lines = [f"# Open MPI coll/tuned dynamic rules written by isochron tune ({mpi or 'Open MPI'})",
             f"# {coll} at {np_} processes; algorithm 0 = the library's fixed decision (kept where no"
             " algorithm was significantly faster across launches)",
             "1            # collectives in this file",
             f"{OMPI_COLL_ID[coll]}            # collective id ({coll})",
             "2            # communicator sizes",
             f"{np_}            # communicator size (measured)",
             f"{len(rules)}            # message sizes"]
    names = OMPI_ALGORITHMS.get(coll, [])
    for lo, alg in rules:
        lines.append(f"{lo} {alg} 0 0   # from {fmt_bytes(lo)}: {names[alg] if alg < len(names) else alg}")
    lines += [f"{np_ + 1}            # communicator size: larger ones keep the default", "1",
              "0 0 0 0", ""]
    return "\n".join(lines)


def choice_table(coll: str, choices: Sequence[Choice], alpha: float) -> str:
    names = OMPI_ALGORITHMS.get(coll, [])
    head = ["np", "size", "launches", "default (us)", "fastest", "fastest (us)", "chosen", "chosen/default",
            "p", "launch noise"]
    rows = []
    for c in sorted(choices, key=lambda c: (c.nprocs, c.bytes)):
        nm = lambda a: f"{a}:{names[a]}" if a < len(names) else str(a)  # noqa: E731
        rows.append([str(c.nprocs), fmt_bytes(c.bytes), str(c.n), fmt_time(c.default_s), nm(c.best_alg),
                     fmt_time(c.best_s), nm(c.alg), f"{c.ratio:.3f}",
                     "-" if c.p is None else f"{c.p:.3f}", "-" if c.noise is None else f"{100 * c.noise:.1f} %"])
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    out = [f"{coll}: per size, the default against every forced algorithm (launch medians); chosen ="
           f" the fastest of those faster than the default at p < {alpha:g}, else the default"]
    out.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)).rstrip())
    out += ["  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip() for r in rows]
    return "\n".join(out) + "\n"


def verify_table(points: Sequence[Record], coll: str, alpha: float = 0.05) -> str:
    """Configurations 'default', 'rules' and 'alg<N>' of one set side by side per size: the rules
    file against the default and against the best forced algorithm, on launch medians."""
    from .launches import launch_test
    med = launch_medians(points, coll)
    cells = sorted({(k[1], k[2]) for k in med})
    head = ["np", "size", "default (us)", "rules (us)", "rules/default", "p", "best forced", "best (us)",
            "rules/best", "p ", "verdict"]
    rows = []
    for nprocs, size in cells:
        per = {c: v for (c, n_, b), v in med.items() if n_ == nprocs and b == size}
        if "default" not in per or "rules" not in per:
            continue
        d, r = per["default"], per["rules"]
        t = launch_test(d, r, alpha)
        forced = {c: v for c, v in per.items() if c.startswith("alg")}
        best = min(forced, key=lambda c: _median(forced[c])) if forced else None
        tb = launch_test(forced[best], r, alpha) if best else None
        slower = t["significant"] and t["d"] > 0
        slower_b = tb is not None and tb["significant"] and tb["d"] > 0
        verdict = ("SLOWER than default" if slower else "slower than best forced" if slower_b
                   else "faster" if t["significant"] else "same within noise")
        rows.append([str(nprocs), fmt_bytes(size), fmt_time(_median(d)), fmt_time(_median(r)),
                     f"{t['ratio']:.3f}", "-" if t["p"] is None else f"{t['p']:.3f}", best or "-",
                     fmt_time(_median(forced[best])) if best else "-",
                     f"{tb['ratio']:.3f}" if tb else "-", "-" if not tb or tb["p"] is None else f"{tb['p']:.3f}",
                     verdict])
    if not rows:
        raise IsochronError(f"no {coll} points with both configurations 'default' and 'rules'")
    w = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
    out = [f"{coll}: the rules file against the default and the best forced algorithm (launch medians,"
           f" t-test on their logs, alpha {alpha:g})"]
    out.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)).rstrip())
    out += ["  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip() for r in rows]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------------

def _write_cfg(path: str, driver: Sequence[str], launcher_args: Sequence[str]) -> str:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(" ".join(map(shlex.quote, driver)) + "\n")
        fh.write("launcher-args: " + " ".join(map(shlex.quote, launcher_args)) + "\n")
    return path


def run_algorithms(outdir: str, launcher: Sequence[str], bench: str, coll: str, nprocs: int,
                   algs: Sequence[int], launches: int, sizes: str, extra: Sequence[str],
                   seed: int | None, timeout: float | None = None) -> str:
    from .launchset import run
    cfgdir = outdir + ".configs"
    os.makedirs(cfgdir, exist_ok=True)
    drv = ["--ops", coll, "--sizes", sizes] + list(extra)
    cfgs = [_write_cfg(os.path.join(cfgdir, f"alg{a}.args"), drv, force_args(coll, a)) for a in algs]
    run(list(launcher) + ["-np", str(nprocs), bench], launches, cfgs, seed=seed, outdir=outdir,
        timeout=timeout)
    return outdir


def run_verify(outdir: str, launcher: Sequence[str], bench: str, coll: str, nprocs: int, rules: str,
               algs: Sequence[int], launches: int, sizes: str, extra: Sequence[str], seed: int | None,
               timeout: float | None = None) -> str:
    from .launchset import run
    cfgdir = outdir + ".configs"
    os.makedirs(cfgdir, exist_ok=True)
    drv = ["--ops", coll, "--sizes", sizes] + list(extra)
    cfgs = [_write_cfg(os.path.join(cfgdir, "default.args"), drv, []),
            _write_cfg(os.path.join(cfgdir, "rules.args"), drv, rules_args(rules))]
    cfgs += [_write_cfg(os.path.join(cfgdir, f"alg{a}.args"), drv, force_args(coll, a)) for a in algs if a]
    run(list(launcher) + ["-np", str(nprocs), bench], launches, cfgs, seed=seed, outdir=outdir,
        timeout=timeout)
    return outdir


def _points(paths: Sequence[str]) -> tuple[list[Record], str]:
    from .guidelines import load_points
    return load_points(paths)


def cmd_tune(args: Any) -> int:
    coll = args.coll
    if coll not in OMPI_ALGORITHMS:
        raise IsochronError(f"--coll {coll}: isochron tune knows Open MPI's algorithms of"
                            f" {', '.join(OMPI_ALGORITHMS)}")
    nalg = len(OMPI_ALGORITHMS[coll])
    algs = list(range(nalg))
    if args.algs:
        try:
            algs = sorted({0} | {int(a) for a in args.algs.split(",") if a})
        except ValueError:
            raise IsochronError(f"--algs {args.algs!r}: give algorithm numbers, e.g. 1,2,4") from None
        bad = [a for a in algs if not 0 <= a < nalg]
        if bad:
            raise IsochronError(f"--algs: {bad} out of range; {coll} has 0..{nalg - 1}:"
                                f" {', '.join(f'{i} {n}' for i, n in enumerate(OMPI_ALGORITHMS[coll]))}")
    launcher = shlex.split(args.launcher)
    extra = shlex.split(args.bench_args or "")
    if args.verify:
        if not args.rules or not os.path.isfile(args.rules):
            raise IsochronError("--verify DIR needs --rules FILE (a rules file isochron tune wrote)")
        d = args.verify
        if not os.path.exists(os.path.join(d, "manifest.json")):
            run_verify(d, launcher, args.bench, coll, args.np, args.rules, algs if args.algs else [],
                       args.launches, args.sizes, extra, args.seed, args.timeout)
        pts, _ = _points([d])
        sys.stdout.write(verify_table(pts, coll, args.alpha))
        return 0
    paths = list(args.results or [])
    if args.run:
        if paths:
            raise IsochronError("give either --run DIR (measure) or result sets to read, not both")
        paths = [run_algorithms(args.run, launcher, args.bench, coll, args.np, algs, args.launches,
                                args.sizes, extra, args.seed, args.timeout)]
    if not paths:
        raise IsochronError("nothing to tune from: give a launch set (configurations alg<N>) or --run DIR")
    pts, mpi = _points(paths)
    ch = choose(pts, coll, args.alpha, args.min_launches)
    sys.stdout.write(choice_table(coll, ch, args.alpha))
    if args.rules:
        text = rules_text(coll, ch, mpi)
        try:
            with open(args.rules, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise IsochronError(f"--rules {args.rules}: cannot write ({exc.strerror})") from None
        print(f"rules: {args.rules}")
    return 0


def add_parser(sub: Any) -> None:
    """``isochron tune`` (registered by :mod:`isochron.cli`)."""
    t = sub.add_parser(
        "tune", help="Open MPI coll/tuned: measure every algorithm per size, write a dynamic rules"
        " file, verify it against the default",
        description="Measure each algorithm of Open MPI's coll/tuned for one collective per size"
        " (forced per launch: --mca coll_tuned_use_dynamic_rules 1 --mca"
        " coll_tuned_<coll>_algorithm N; alg0 = the default) in one interleaved launch set, and"
        " choose per size the fastest algorithm significantly faster than the default across"
        " launches (else the default): --rules FILE writes Open MPI's dynamic rules file. --verify"
        " DIR measures the default, the rules file and the forced algorithms side by side.",
        epilog="example: isochron tune --coll allreduce --np 4 --run t --launches 3 --rules r.txt;"
        " isochron tune --coll allreduce --np 4 --rules r.txt --verify v --algs 2,4")
    t.add_argument("results", nargs="*", metavar="SET", help="launch sets with configurations alg<N>")
    t.add_argument("--coll", default="allreduce", help="collective (default: allreduce; known: "
                   + ", ".join(OMPI_ALGORITHMS) + ")")
    t.add_argument("--np", type=int, default=4, help="process count (default: 4)")
    t.add_argument("--run", metavar="DIR", help="measure every algorithm first (a launch set in DIR)")
    t.add_argument("--algs", help="algorithm numbers to measure (default: all; 0 always)")
    t.add_argument("--launches", type=int, default=3, help="launches per configuration (default: 3)")
    t.add_argument("--sizes", default="8,1K,64K,1M", help="isochron-bench --sizes (default: 8,1K,64K,1M)")
    t.add_argument("--bench", default="build/isochron-bench", help="the driver")
    t.add_argument("--bench-args", default="--budget 0.3", help="more driver arguments (default: --budget 0.3)")
    t.add_argument("--launcher", default="tools/mpirun-local", help="launcher command (default: tools/mpirun-local)")
    t.add_argument("--seed", type=int, help="seed of the launch order")
    t.add_argument("--timeout", type=float, help="kill a launch running longer (s)")
    t.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    t.add_argument("--min-launches", type=int, default=3, help="an algorithm is chosen only with at least"
                   " this many valid launch medians on its side and the default's (default: 3)")
    t.add_argument("--rules", metavar="FILE", help="write (or, with --verify, use) the rules file")
    t.add_argument("--verify", metavar="DIR", help="measure (unless DIR holds a set) and compare"
                   " default, rules file and forced algorithms (--algs)")
    t.set_defaults(func=cmd_tune)
