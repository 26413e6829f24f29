"""Algorithm tuning from measurements: Open MPI coll/tuned's dynamic rules file and MPICH's JSON
selection files, chosen per size only where a difference is significant across launches.

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
acts only where it was measured (smaller ones have no rule and keep the default too). Where the
fastest algorithm is faster than the default but not significant, adaptive launches
(:func:`adapt`) measure just those two at just those sizes further, up to a cap, the extra looks at
a Bonferroni-lowered level. Every set measures with fresh send buffers (the driver's --validate 2,
:func:`isochron.launches.fresh_buffer_args`). The verification (:func:`verify`) holds the rules file
to the default and to the best single algorithm *of the tuning set* (its fastest launch median),
measured again in the independent verification set: the minimum over the verification set's own
algorithms would be biased low (the winner's curse).

MPICH 4.0 (read from its sources, src/mpi/coll/src/csel.c and maint/tuning/coll/, and checked by
running Debian's MPICH 4.0.2 with the files, tests/tune/mpich_json_accept.sh):
``MPIR_CVAR_<COLL>_INTRA_ALGORITHM`` forces one algorithm for every size of a run; per size, the
library selects by JSON decision trees, one per level, built into libmpich and replaceable by a
file each: ``MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`` (the MPIR level, whose leaves are the
algorithms ``"algorithm=MPIR_<Coll>_intra_<name>"``) and ``MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE``
(the ch4 device: which composition, i.e. shared memory or the network module, gets the call).
A tree is nested JSON objects whose keys are tests (``"collective=allreduce"``,
``"comm_type=intra"``, ``"comm_size<=4"``, ``"total_msg_size<65536"``, ``..=any``); siblings are
tried in order, the first whose test holds is descended. A file replaces the whole built-in tree
of its level, so :func:`mpich_rules` starts from the trees of the library itself (read from the
libmpich the driver links, :func:`mpich_builtin_trees`) and replaces only the tuned collective's
intra-communicator branch: at the measured communicator size a branch per message size (the
chosen algorithm, or the library's own branch where the default is kept), at other sizes the
library's own branch unchanged. MPICH builds with a shared-memory level send allreduce, bcast and
reduce on one node to it first (``MPIDI_POSIX_mpi_<coll>_release_gather``, posix_generic.json),
which the MPIR file never reaches: for these the ch4 file routes the chosen sizes to the network
module's composition, which calls the MPIR level (and a forced algorithm gets
``MPIR_CVAR_<COLL>_POSIX_INTRA_ALGORITHM=mpir`` likewise). Debian's 4.0.2 (ch4:ucx) sends them
through UCX already (docs/tuning.md).
"""
from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from .base import IsochronError, Record
from .units import fmt_bytes, fmt_time, text_table

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


#: intra-communicator algorithms of MPICH 4.0's MPIR level (src/mpi/coll/coll_algorithms.txt; the
#: values of MPIR_CVAR_<COLL>_INTRA_ALGORITHM), 0 = the library's own selection. Left out: those
#: restricted to in-place buffers (alltoall pairwise_sendrecv_replace; isochron's are not) and smp
#: (a node-then-network composition: on one node it is the shared-memory level again)
MPICH_ALGORITHMS: dict[str, list[str]] = {
    "allreduce": ["default", "recursive_doubling", "reduce_scatter_allgather"],
    "bcast": ["default", "binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather"],
    "allgather": ["default", "brucks", "recursive_doubling", "ring"],
    "alltoall": ["default", "brucks", "pairwise", "scattered"],
    "reduce": ["default", "binomial", "reduce_scatter_gather"],
}
#: MPICH 4.0 collectives with a shared-memory level on one node (posix_generic.json), and the ch4
#: composition that sends a call to the network module, i.e. to the MPIR level (ch4_coll_impl.h)
MPICH_NM_COMPOSITION: dict[str, str] = {
    "allreduce": "MPIDI_Allreduce_intra_composition_beta",
    "bcast": "MPIDI_Bcast_intra_composition_gamma",
    "reduce": "MPIDI_Reduce_intra_composition_gamma",
}
#: MPICH 4.0 algorithms restricted to built-in operators and count >= the largest power of two
#: below the communicator size (coll_algorithms.txt: builtin-op, size-ge-pof2); reached through a
#: selection file they are not checked, and 4.0.2 aborts (allreduce_intra_reduce_scatter_allgather.c:
#: assertion HANDLE_IS_BUILTIN(op)), so the files send such calls to the library's own branch
MPICH_BUILTIN_OP_ONLY = {("allreduce", "reduce_scatter_allgather"), ("reduce", "reduce_scatter_gather")}
#: the libraries isochron tune knows, and their algorithms
ALGORITHMS: dict[str, dict[str, list[str]]] = {"ompi": OMPI_ALGORITHMS, "mpich": MPICH_ALGORITHMS}


def ompi_msg_size(coll: str, nbytes: int, nprocs: int) -> int:
    """The message size coll/tuned's rules compare, from isochron's per-peer size."""
    return nbytes * nprocs if coll in ("allgather", "alltoall", "reduce_scatter_block") else nbytes


def force_args(coll: str, alg: int, mpi: str = "ompi") -> list[str]:
    """mpirun words forcing algorithm ALG of COLL (0: nothing forced = the library's default;
    Open MPI: dynamic rules on; MPICH: -genv of the CVARs). A forced algorithm acts on every call of
    the run, the driver's own too (isochron-bench agrees on a 1-int MPI_Allreduce), so under MPICH
    the collective fallback stays at its default, silent: where an algorithm's restriction does not
    hold (reduce_scatter_allgather below count = the largest power of two under the process count)
    MPICH runs its own choice instead (with MPIR_CVAR_COLLECTIVE_FALLBACK=error such runs abort)."""
    if mpi == "mpich":
        if not alg:
            return []
        cv = coll.upper()
        out = ["-genv", f"MPIR_CVAR_{cv}_INTRA_ALGORITHM", MPICH_ALGORITHMS[coll][alg]]
        if coll in MPICH_NM_COMPOSITION:
            out += ["-genv", f"MPIR_CVAR_{cv}_POSIX_INTRA_ALGORITHM", "mpir"]
        return out
    out = ["--mca", "coll_tuned_use_dynamic_rules", "1"]
    if alg:
        out += ["--mca", f"coll_tuned_{coll}_algorithm", str(alg)]
    return out


def mpich_ch4_path(path: str) -> str:
    """The ch4-level file written beside the MPIR-level one: rules.json -> rules.ch4.json."""
    stem = path[:-5] if path.endswith(".json") else path
    return stem + ".ch4.json"


def rules_args(path: str, mpi: str = "ompi", coll: str = "") -> list[str]:
    """mpirun words that make the library read the rules file(s) at PATH."""
    if mpi == "mpich":
        out = ["-genv", "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", os.path.abspath(path)]
        if coll in MPICH_NM_COMPOSITION:
            out += ["-genv", "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", os.path.abspath(mpich_ch4_path(path))]
        return out
    return ["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_dynamic_rules_filename",
            os.path.abspath(path)]


def detect_mpi(bench: str = "", mpi_library: str = "") -> str:
    """'ompi' or 'mpich': from the MPI library string of a result set, else from the libraries
    the driver links (ldd)."""
    if mpi_library:
        if "MPICH" in mpi_library:
            return "mpich"
        if "Open MPI" in mpi_library:
            return "ompi"
    lib = linked_mpi(bench) if bench else ""
    if "libmpich" in lib:
        return "mpich"
    if "libmpi" in lib:
        return "ompi"
    raise IsochronError(f"cannot tell the MPI library (of {bench or 'the results'}): give --mpi ompi"
                        " or --mpi mpich")


def linked_mpi(bench: str) -> str:
    """The path of the MPI library BENCH links ('' when ldd cannot tell)."""
    try:
        out = subprocess.run(["ldd", bench], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    for line in out.splitlines():
        m = re.match(r"\s*(libmpi(?:ch)?\.so[.\d]*)\s+=>\s+(\S+)", line)
        if m:
            return m.group(2)
    return ""


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
    alpha: float = 0.05               # the level this size was decided at (lower after adaptive launches)
    launches: dict[int, int] = field(default_factory=dict)   # algorithm -> its launches
    adapted: bool = False             # measured further by adaptive launches
    best_p: float | None = None       # the fastest algorithm's p against the default (None: it is the default)


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


def choose(points: Sequence[Record], coll: str, alpha: float = 0.05, min_launches: int = 3,
           alphas: dict[tuple[int, int], float] | None = None) -> list[Choice]:
    """Per (nprocs, size): the algorithm for the rules file (see the module's design). An
    algorithm is considered only with at least ``min_launches`` valid launch medians on its side and
    on the default's (a point without a valid repetition in a launch has no median). ALPHAS:
    the level of particular (nprocs, bytes) cells instead of ALPHA (those measured adaptively)."""
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
        level = (alphas or {}).get((nprocs, size), alpha)
        sig = {}
        for a, v in per.items():
            if a == 0 or len(v) < max(2, min_launches) or len(per[0]) < max(2, min_launches):
                continue
            t = launch_test(per[0], v, level)
            if t["significant"] and t["d"] < 0:
                sig[a] = t
        alg = min(sig, key=lambda a: times[a]) if sig else 0
        t0 = launch_test(per[0], per[alg], level) if alg else None
        tb = launch_test(per[0], per[best], level) if best else None
        out.append(Choice(size, nprocs, alg, times[0], best, times[best], times[alg],
                          times[alg] / times[0], t0["p"] if t0 else None,
                          t0["spread"] if t0 else None, min(len(v) for v in per.values()), times,
                          level, {a: len(v) for a, v in per.items()}, (nprocs, size) in (alphas or {}),
                          tb["p"] if tb else None))
    return out


#: launches per configuration added by each adaptive round
ADAPT_STEP = 2


def undecided(choices: Sequence[Choice], max_launches: int) -> dict[tuple[int, int], int]:
    """(nprocs, bytes) -> the candidate of the sizes worth more launches: the fastest algorithm
    is faster than the default but was not chosen (not significant, or too few launches), and
    the default or the candidate has fewer than MAX_LAUNCHES launches."""
    return {(c.nprocs, c.bytes): c.best_alg for c in choices
            if c.best_alg != 0 and c.alg != c.best_alg and c.best_s < c.default_s
            and min(c.launches.get(0, 0), c.launches.get(c.best_alg, 0)) < max_launches}


def adapt(points: list[Record], coll: str, alpha: float, min_launches: int, launches: int, max_launches: int,
          measure: Any, step: int = ADAPT_STEP) -> tuple[list[Choice], list[dict[tuple[int, int], int]]]:
    """Adaptive launches: while some size's fastest algorithm is faster than the default but not
    significant (:func:`undecided`), measure ``step`` more launches of just the default and the
    candidates at just those sizes (``measure(round, cells)`` returns the new points, one
    interleaved launch set), until each is decided or has MAX_LAUNCHES launches. Every look beyond
    the first tests its sizes at alpha / K, K the number of rounds the cap allows (Bonferroni
    over the extra looks), so an adapted size is chosen wrongly with probability at most 2 alpha
    (alpha at the first look, alpha in all the extra ones together). Returns the final choices
    and the cells measured per round."""
    rounds = max(0, math.ceil((max_launches - launches) / step))
    alphas: dict[tuple[int, int], float] = {}
    ch = choose(points, coll, alpha, min_launches)
    done = []
    for r in range(rounds):
        cells = undecided(ch, max_launches)
        if not cells:
            break
        points.extend(measure(r + 1, cells))
        done.append(cells)
        alphas.update({c: alpha / rounds for c in cells})
        ch = choose(points, coll, alpha, min_launches, alphas)
    return ch, done


def size_rules(coll: str, choices: Sequence[Choice], mpi: str = "ompi") -> tuple[int, list[tuple[int, int]]]:
    """The process count of CHOICES and the rules by message size: (from, algorithm) ascending,
    the first from 0, neighbours with the same algorithm merged, a boundary at the geometric mean
    of two measured sizes in the library's own measure (Open MPI: :func:`ompi_msg_size`; MPICH:
    total_msg_size, the per-process bytes times the communicator size)."""
    nps = sorted({c.nprocs for c in choices})
    if len(nps) != 1:
        raise IsochronError(f"rules for one process count at a time (these results have {nps})")
    np_ = nps[0]

    def size(b: int) -> int:
        return b * np_ if mpi == "mpich" else ompi_msg_size(coll, b, np_)

    cs = sorted(choices, key=lambda c: c.bytes)
    rules: list[tuple[int, int]] = []
    for i, c in enumerate(cs):
        lo = 0 if i == 0 else int(math.ceil(math.sqrt(max(1, size(cs[i - 1].bytes)) * max(1, size(c.bytes)))))
        if rules and rules[-1][1] == c.alg:
            continue                     # same algorithm as below: one rule covers both
        rules.append((lo, c.alg))
    return np_, rules


def rules_text(coll: str, choices: Sequence[Choice], mpi: str = "") -> str:
    """Open MPI 4.1's dynamic rules file for COLL from the choices (one process count)."""
    np_, rules = size_rules(coll, choices)
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


def mpich_builtin_trees(lib: str) -> dict[str, dict[str, Any]]:
    """MPICH 4's built-in selection trees, read from the library file LIB (json_gen.sh compiles
    them in as NUL-terminated JSON strings): {'mpir': ..., 'ch4': ..., 'posix': ...}, each a dict
    in the file's key order (the order in which MPICH tries siblings)."""
    try:
        with open(lib, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise IsochronError(f"{lib}: cannot read the MPICH library ({exc.strerror})") from None
    trees: dict[str, dict[str, Any]] = {}
    i = data.find(b'{"collective=')
    while i >= 0:
        j = data.find(b"\0", i)
        try:
            tree = json.loads(data[i:j].decode())
        except (UnicodeDecodeError, ValueError):
            tree = None
        if isinstance(tree, dict):
            text = data[i:j].decode()
            level = ("posix" if "algorithm=MPIDI_POSIX_" in text else "ch4" if "composition=MPIDI_" in text
                     else "mpir" if "algorithm=MPIR_" in text else "")
            if level and level not in trees:
                trees[level] = tree
        i = data.find(b'{"collective=', j)
    if "mpir" not in trees:
        raise IsochronError(f"{lib}: no built-in MPIR collective selection tree in it (not MPICH 4?):"
                            " isochron tune writes MPICH's JSON files from the library's own trees")
    return trees


def _mpich_branch(orig: dict[str, Any], np_: int, rules: Sequence[tuple[int, int]],
                  leaf: Any, size_key: str = "total_msg_size") -> dict[str, Any]:
    """COLL's subtree of a level with its intra-communicator branch replaced: at communicator size
    NP_ by message size (LEAF(alg, the library's branch) for a chosen algorithm, the library's own
    branch for 0), at other sizes the library's own branch."""
    intra = orig.get("comm_type=intra")
    if not isinstance(intra, dict):
        raise IsochronError("the library's selection tree has no intra-communicator branch here")
    by_size: dict[str, Any] = {}
    for k, (lo, alg) in enumerate(rules):
        key = f"{size_key}<{rules[k + 1][0]}" if k + 1 < len(rules) else f"{size_key}=any"
        by_size[key] = leaf(alg, intra) if alg else intra
    out = {f"comm_size<{np_}": intra, f"comm_size<={np_}": by_size, "comm_size=any": intra}
    return {"comm_type=intra": out, **{k: v for k, v in orig.items() if k != "comm_type=intra"}}


def mpich_rules(coll: str, choices: Sequence[Choice], trees: dict[str, dict[str, Any]]) -> dict[str, str]:
    """MPICH 4.0's selection files for COLL from the choices: {'mpir': JSON, 'ch4': JSON} (ch4 only
    for the collectives with a shared-memory level, MPICH_NM_COMPOSITION). Each is the library's
    own tree with COLL's branch replaced (:func:`_mpich_branch`)."""
    np_, rules = size_rules(coll, choices, "mpich")
    names = MPICH_ALGORITHMS[coll]
    name = coll.capitalize()
    key = f"collective={coll}"
    out = {}
    mpir = dict(trees["mpir"])
    if key not in mpir:
        raise IsochronError(f"the library's MPIR selection tree has no {coll}")
    def guarded(a: int, intra: Any, leaf: dict[str, Any]) -> Any:
        if (coll, names[a]) not in MPICH_BUILTIN_OP_ONLY:
            return leaf
        return {"is_op_built_in=no": intra, "count<pow2": intra, "count=any": leaf}

    mpir[key] = _mpich_branch(mpir[key], np_, rules,
                              lambda a, intra: guarded(a, intra, {f"algorithm=MPIR_{name}_intra_{names[a]}": {}}))
    out["mpir"] = json.dumps(mpir, indent=1) + "\n"
    if coll in MPICH_NM_COMPOSITION:
        ch4 = dict(trees.get("ch4") or {})
        if key not in ch4:
            raise IsochronError(f"the library's ch4 selection tree has no {coll}")
        ch4[key] = _mpich_branch(ch4[key], np_, rules,
                                 lambda a, intra: guarded(a, intra, {f"composition={MPICH_NM_COMPOSITION[coll]}": {}}))
        out["ch4"] = json.dumps(ch4, indent=1) + "\n"
    return out


def alg_name(mpi: str, coll: str, a: int) -> str:
    names = ALGORITHMS[mpi].get(coll, [])
    return f"{a}:{names[a]}" if a < len(names) else str(a)


def choice_table(coll: str, choices: Sequence[Choice], alpha: float, mpi: str = "ompi", buffers: str = "") -> str:
    head = ["np", "size", "launches", "default (us)", "fastest", "fastest (us)", "chosen", "chosen/default",
            "p", "launch noise"]
    rows = []
    for c in sorted(choices, key=lambda c: (c.nprocs, c.bytes)):
        nl = (str(c.n) if not c.adapted else
              f"{c.launches.get(0, 0)}{'' if c.best_alg == 0 else f'/{c.launches.get(c.best_alg, 0)}'}"
              f" (adaptive, p < {c.alpha:.3g})")
        rows.append([str(c.nprocs), fmt_bytes(c.bytes), nl, fmt_time(c.default_s), alg_name(mpi, coll, c.best_alg),
                     fmt_time(c.best_s), alg_name(mpi, coll, c.alg), f"{c.ratio:.3f}",
                     f"{c.p:.3f}" if c.p is not None else f"({c.best_p:.3f})" if c.best_p is not None else "-",
                     "-" if c.noise is None else f"{100 * c.noise:.1f} %"])
    out = [f"{coll}: per size, the default against every forced algorithm (launch medians); chosen ="
           f" the fastest of those faster than the default at p < {alpha:g}, else the default (p in parentheses:"
           f" the fastest's, not chosen)"
           + (f"; {buffers}" if buffers else "")]
    if any(c.adapted for c in choices):
        out.append("adaptive: launches = default[/fastest] after more launches of just those two, decided at the"
                   " level shown (alpha / the rounds the cap allows; false choice at most 2 alpha)")
    return "\n".join(out + text_table(head, rows)) + "\n"


@dataclass
class Check:
    """One size of a verification set: the rules file against the default and the best single
    algorithm (each ratio the geometric mean ratio of launch medians with its t interval).

    The best single algorithm is chosen in the *tuning* set (the fastest launch median there,
    significant or not) and compared through its launches in this set: independent of the data
    that judges it. The fastest of the forced algorithms in this set itself, a minimum of noisy
    medians and so biased low (the winner's curse), is kept as an informative column; it decides
    only when no tuning set is given."""
    nprocs: int
    bytes: int
    times: dict[str, float]           # configuration -> median of its launch medians
    n: int                            # launches (fewest of the configurations)
    vs_default: tuple[float, float, float]    # ratio, lo, hi
    best: str                          # the best single algorithm: "default" or alg<N>
    vs_best: tuple[float, float, float]
    slower_than_default: bool          # the whole interval above 1
    slower_than_best: bool
    best_from: str = "this set"        # "tuning set" (independent) or "this set" (biased low)
    fastest_here: str = ""             # the fastest forced algorithm in this set
    vs_fastest_here: tuple[float, float, float] = (math.nan, 0.0, math.inf)

    @property
    def verdict(self) -> str:
        if self.slower_than_default:
            return "SLOWER than default"
        if self.slower_than_best:
            return "slower than best single"
        return "faster than default" if self.vs_default[2] < 1 else "ok (within noise)"


def ratio_interval(med_a: Sequence[float], med_b: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """B/A as exp(mean log B - mean log A) with its pooled two-sample t interval over launches
    ((0, inf) with fewer than two launches on both sides together beyond one each)."""
    from .launches import launch_test
    t = launch_test(med_a, med_b, 1 - level)
    r = math.exp(t["d"])
    if t.get("source") != "data":
        return r, 0.0, math.inf
    return r, math.exp(t["d"] - t["limit"]), math.exp(t["d"] + t["limit"])


def best_singles(choices: Sequence[Choice]) -> dict[tuple[int, int], str]:
    """(nprocs, bytes) -> the tuning set's fastest configuration by launch median, significant or
    not, named as in a verification set ("default" for algorithm 0)."""
    return {(c.nprocs, c.bytes): ("default" if c.best_alg == 0 else f"alg{c.best_alg}") for c in choices}


def verify(points: Sequence[Record], coll: str, level: float = 0.95,
           tuned: dict[tuple[int, int], str] | None = None) -> list[Check]:
    """Configurations 'default', 'rules' and 'alg<N>' of one set, per size: the rules file against
    the default and against the best single algorithm, on launch medians. TUNED (from
    :func:`best_singles` of the tuning set) names the best single algorithm per size; without
    it, the fastest forced algorithm of this set stands in (biased low)."""
    med = launch_medians(points, coll)
    out = []
    for nprocs, size in sorted({(k[1], k[2]) for k in med}):
        per = {c: v for (c, n_, b), v in med.items() if n_ == nprocs and b == size}
        if "default" not in per or "rules" not in per:
            continue
        forced = {c: v for c, v in per.items() if c.startswith("alg") and c != "alg0"}
        if not forced:
            raise IsochronError(f"{coll} at {size} B: no forced algorithm (alg<N>) measured beside the rules file")
        here = min(forced, key=lambda c: _median(forced[c]))
        if tuned is None:
            best, src = here, "this set"
        else:
            if (nprocs, size) not in tuned:
                raise IsochronError(f"{coll} at {size} B on {nprocs} processes: not in the tuning set")
            best, src = tuned[(nprocs, size)], "tuning set"
            if best not in per:
                raise IsochronError(f"{coll} at {size} B: the tuning set's fastest ({best}) is not measured"
                                    " in the verification set (measure it: --algs)")
        vd = ratio_interval(per["default"], per["rules"], level)
        vb = ratio_interval(per[best], per["rules"], level)
        vh = ratio_interval(forced[here], per["rules"], level)
        out.append(Check(nprocs, size, {c: _median(v) for c, v in per.items()}, min(len(v) for v in per.values()),
                         vd, best, vb, vd[1] > 1, vb[1] > 1, src, here, vh))
    if not out:
        raise IsochronError(f"no {coll} points with both configurations 'default' and 'rules'")
    return out


def _cfg_name(mpi: str, coll: str, cfg: str) -> str:
    return "0:default" if cfg == "default" else alg_name(mpi, coll, _alg_of(cfg))


def verify_table(points: Sequence[Record], coll: str, level: float = 0.95, mpi: str = "ompi", buffers: str = "",
                 tuned: dict[tuple[int, int], str] | None = None) -> str:
    checks = verify(points, coll, level, tuned)
    algs = sorted({c for k in checks for c in k.times if c.startswith("alg") and c != "alg0"}, key=_alg_of)
    pct = f"{100 * level:g} %"
    src = "tuning set" if tuned is not None else "this set"
    head = (["np", "size", "launches", "default", "rules"] + [alg_name(mpi, coll, _alg_of(a)) for a in algs]
            + [f"rules/default [{pct} CI]", f"best single ({src})", f"rules/best [{pct} CI]"]
            + (["fastest here", "rules/fastest here"] if tuned is not None else []) + ["verdict"])

    def cell(r: tuple[float, float, float]) -> str:
        return f"{r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}]" if math.isfinite(r[2]) else f"{r[0]:.3f} [-]"

    rows = [[str(k.nprocs), fmt_bytes(k.bytes), str(k.n), fmt_time(k.times["default"]), fmt_time(k.times["rules"])]
            + [fmt_time(k.times[a]) if a in k.times else "-" for a in algs]
            + [cell(k.vs_default), _cfg_name(mpi, coll, k.best), cell(k.vs_best)]
            + ([alg_name(mpi, coll, _alg_of(k.fastest_here)), f"{k.vs_fastest_here[0]:.3f}"] if tuned is not None else [])
            + [k.verdict] for k in checks]
    nd = sum(k.slower_than_default for k in checks)
    nb = sum(k.slower_than_best for k in checks)
    out = [f"{coll}: the rules file against the default and every single algorithm, one interleaved launch set"
           f" (times: medians of launch medians, us; ratios: geometric mean of launch-median ratios, t interval)"
           + (f"; {buffers}" if buffers else "")]
    if tuned is not None:
        out.append("best single = the fastest algorithm of the independent tuning set (significant or not),"
                   " compared through its launches here; fastest here = the minimum over this set's forced"
                   " algorithms (informative: a minimum of noisy medians, biased low)")
    else:
        out.append("best single = the fastest forced algorithm of this set itself (no tuning set given:"
                   " a minimum of noisy medians, biased low, so 'slower than best single' overstates)")
    out += text_table(head, rows)
    out.append(f"targets: rules never slower than default beyond noise: {'met' if not nd else f'NOT met at {nd} size(s)'};"
               f" rules at least as fast as the best single algorithm ({src}) within noise:"
               f" {'met' if not nb else f'NOT met at {nb} size(s)'} ({len(checks)} sizes)")
    if tuned is not None:
        nh = sum(k.vs_fastest_here[1] > 1 for k in checks)
        out.append(f"informative: rules slower than the fastest here beyond noise at {nh} of {len(checks)} size(s)")
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
                   seed: int | None, timeout: float | None = None, mpi: str = "ompi") -> str:
    """One launch set, configuration alg<N> per algorithm (alg0: the default)."""
    return _run_set(outdir, launcher, bench, coll, nprocs, [(f"alg{a}", force_args(coll, a, mpi)) for a in algs],
                    launches, sizes, extra, seed, timeout)


def run_verify(outdir: str, launcher: Sequence[str], bench: str, coll: str, nprocs: int, rules: str,
               algs: Sequence[int], launches: int, sizes: str, extra: Sequence[str], seed: int | None,
               timeout: float | None = None, mpi: str = "ompi") -> str:
    """One launch set: the default, the rules file and every algorithm of ALGS forced, interleaved."""
    cfgs = [("default", []), ("rules", rules_args(rules, mpi, coll))]
    cfgs += [(f"alg{a}", force_args(coll, a, mpi)) for a in algs if a]
    return _run_set(outdir, launcher, bench, coll, nprocs, cfgs, launches, sizes, extra, seed, timeout)


def _run_set(outdir: str, launcher: Sequence[str], bench: str, coll: str, nprocs: int,
             cfgs: Sequence[tuple[str, list[str]]], launches: int, sizes: str, extra: Sequence[str],
             seed: int | None, timeout: float | None) -> str:
    from .launchset import run
    cfgdir = outdir + ".configs"
    os.makedirs(cfgdir, exist_ok=True)
    drv = ["--ops", coll, "--sizes", sizes] + list(extra)
    paths = [_write_cfg(os.path.join(cfgdir, f"{name}.args"), drv, largs) for name, largs in cfgs]
    run(list(launcher) + ["-np", str(nprocs), bench], launches, paths, seed=seed, outdir=outdir,
        timeout=timeout)
    return outdir


def with_rounds(paths: Sequence[str]) -> list[str]:
    """PATHS with the adaptive rounds' sets beside each (``<set>.more1``, ``.more2``, ... while
    they hold a finished set)."""
    out = []
    for p in paths:
        out.append(p)
        r = 1
        while os.path.exists(os.path.join(f"{p}.more{r}", "manifest.json")):
            out.append(f"{p}.more{r}")
            r += 1
    return out


def _algs(text: str | None, coll: str, mpi: str) -> list[int]:
    names = ALGORITHMS[mpi][coll]
    if not text:
        return list(range(len(names)))
    try:
        algs = sorted({0} | {int(a) for a in text.split(",") if a})
    except ValueError:
        raise IsochronError(f"--algs {text!r}: give algorithm numbers, e.g. 1,2") from None
    bad = [a for a in algs if not 0 <= a < len(names)]
    if bad:
        raise IsochronError(f"--algs: {bad} out of range; {coll} has 0..{len(names) - 1}:"
                            f" {', '.join(f'{i} {n}' for i, n in enumerate(names))}")
    return algs


def write_rules(path: str, coll: str, choices: Sequence[Choice], mpi: str, mpi_id: str, bench: str,
                mpi_lib: str | None = None) -> list[str]:
    """Write the library's tuning input for the choices at PATH (MPICH: and its ch4 file beside);
    returns the files written."""
    if mpi == "mpich":
        lib = mpi_lib or linked_mpi(bench)
        if not lib:
            raise IsochronError(f"--rules for MPICH needs its library: {bench} links none that ldd shows"
                                " (give --mpi-lib /path/to/libmpich.so)")
        texts = mpich_rules(coll, choices, mpich_builtin_trees(lib))
        files = {path: texts["mpir"]}
        if "ch4" in texts:
            files[mpich_ch4_path(path)] = texts["ch4"]
    else:
        files = {path: rules_text(coll, choices, mpi_id)}
    for p, text in files.items():
        try:
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise IsochronError(f"--rules {p}: cannot write ({exc.strerror})") from None
    return list(files)


def cmd_tune(args: Any) -> int:
    from .launches import buffer_policy, fresh_buffer_args, load_points
    coll = args.coll
    mpi = args.mpi
    if mpi == "auto":
        mpi = "" if args.results and not (args.run or args.verify) else detect_mpi(args.bench)
    if mpi and coll not in ALGORITHMS[mpi]:
        raise IsochronError(f"--coll {coll}: isochron tune knows {'MPICH' if mpi == 'mpich' else 'Open MPI'}'s"
                            f" algorithms of {', '.join(ALGORITHMS[mpi])}")
    launcher = shlex.split(args.launcher)
    extra = fresh_buffer_args(shlex.split(args.bench_args or ""))
    ctxs: list[Any] = []                 # the runs' context records (their buffer policy)
    if args.verify:
        if not args.rules or not os.path.isfile(args.rules):
            raise IsochronError("--verify DIR needs --rules FILE (a rules file isochron tune wrote)")
        d = args.verify
        if not os.path.exists(os.path.join(d, "manifest.json")):
            run_verify(d, launcher, args.bench, coll, args.np, args.rules, _algs(args.algs, coll, mpi),
                       args.launches, args.sizes, extra, args.seed, args.timeout, mpi)
        pts, _ = load_points([d], None, ctxs)
        tuned = None
        if args.results:                 # the tuning set: the best single algorithm per size
            tpts, _ = load_points(with_rounds(list(args.results)))
            tuned = best_singles(choose(tpts, coll, args.alpha, args.min_launches))
        sys.stdout.write(verify_table(pts, coll, 1 - args.alpha, mpi, buffer_policy(ctxs), tuned))
        return 0
    paths = list(args.results or [])
    if args.run:
        if paths:
            raise IsochronError("give either --run DIR (measure) or result sets to read, not both")
        if not os.path.exists(os.path.join(args.run, "manifest.json")):   # else: reuse the finished set
            run_algorithms(args.run, launcher, args.bench, coll, args.np, _algs(args.algs, coll, mpi),
                           args.launches, args.sizes, extra, args.seed, args.timeout, mpi)
        paths = [args.run]
    if not paths:
        raise IsochronError("nothing to tune from: give a launch set (configurations alg<N>) or --run DIR")
    pts, mpi_id = load_points(paths, None, ctxs)
    if not mpi:
        mpi = detect_mpi(args.bench, mpi_id)
        if coll not in ALGORITHMS[mpi]:
            raise IsochronError(f"--coll {coll}: not a collective isochron tune knows for {mpi_id}")
    if args.run and args.max_launches > args.launches:
        def measure(r: int, cells: dict[tuple[int, int], int]) -> list[Record]:
            d = f"{args.run}.more{r}"
            if not os.path.exists(os.path.join(d, "manifest.json")):
                sizes = ",".join(str(b) for b in sorted({b for _n, b in cells}))
                cfgs = [(f"alg{a}", force_args(coll, a, mpi)) for a in sorted({0, *cells.values()})]
                _run_set(d, launcher, args.bench, coll, args.np, cfgs, ADAPT_STEP, sizes, extra,
                         None if args.seed is None else args.seed + r, args.timeout)
            print(f"adaptive round {r}: {ADAPT_STEP} more launches of the default and "
                  + ", ".join(f"alg{a} at {fmt_bytes(b)}" for (_n, b), a in sorted(cells.items())) + f" ({d})",
                  file=sys.stderr)
            more, _ = load_points([d], None, ctxs)
            keep = {(n, b, a) for (n, b), c in cells.items() for a in (0, c)}
            return [p for p in more if (int(p["nprocs"]), int(p["bytes"]), _alg_of(str(p["config"]))) in keep]
        ch, _rounds = adapt(pts, coll, args.alpha, args.min_launches, args.launches, args.max_launches, measure)
    else:
        ch = choose(pts, coll, args.alpha, args.min_launches)
    sys.stdout.write(choice_table(coll, ch, args.alpha, mpi, buffer_policy(ctxs)))
    if args.rules:
        for p in write_rules(args.rules, coll, ch, mpi, mpi_id, args.bench, args.mpi_lib):
            print(f"rules: {p}")
    return 0


def add_parser(sub: Any) -> None:
    """``isochron tune`` (registered by :mod:`isochron.cli`)."""
    from .launches import add_run_arguments
    t = sub.add_parser(
        "tune", help="collective algorithms per size: measure each, write the library's rules file"
        " (Open MPI coll/tuned, MPICH JSON), verify it against the default and every algorithm",
        description="Measure each algorithm of one collective per size, forced per launch (Open MPI:"
        " --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N; MPICH:"
        " MPIR_CVAR_<COLL>_INTRA_ALGORITHM; alg0 = the default), in one interleaved launch set, and"
        " choose per size the fastest algorithm significantly faster than the default across"
        " launches (else the default): --rules FILE writes Open MPI's dynamic rules file or MPICH's"
        " JSON selection file(s) (FILE and, for allreduce, bcast and reduce, FILE's .ch4.json)."
        " --verify DIR measures the default, the rules file and every algorithm forced side by side."
        " Both sets measure with fresh send buffers every repetition (the driver's --validate 2,"
        " added unless --bench-args sets --validate), as an application that computes its next"
        " contribution has them: the driver's default re-sends unchanged memory between"
        " repetitions 0,1,2,4,8,..., which a library's single copy can serve faster than real calls.",
        epilog="example: isochron tune --coll allreduce --np 4 --run t --launches 3 --rules r.txt;"
        " isochron tune --coll allreduce --np 4 --rules r.txt --verify v t (t: the tuning set, whose"
        " fastest algorithm per size is the best single one the rules file is held to)")
    t.add_argument("results", nargs="*", metavar="SET", help="launch sets with configurations alg<N>"
                   " (with --verify: the tuning set, which names the best single algorithm per size;"
                   " without one the verification set's own fastest stands in, biased low)")
    t.add_argument("--coll", default="allreduce", help="collective (default: allreduce; known: "
                   + ", ".join(OMPI_ALGORITHMS) + ")")
    t.add_argument("--mpi", choices=["auto", "ompi", "mpich"], default="auto", help="the MPI library"
                   " (default: auto: from the results, else from the library --bench links)")
    t.add_argument("--mpi-lib", metavar="PATH", help="MPICH: the libmpich whose built-in selection trees"
                   " the JSON files start from (default: the one --bench links)")
    t.add_argument("--np", type=int, default=4, help="process count (default: 4)")
    t.add_argument("--run", metavar="DIR", help="measure every algorithm first (a launch set in DIR)")
    t.add_argument("--algs", help="algorithm numbers to measure (default: all; 0 always)")
    t.add_argument("--launches", type=int, default=3, help="launches per configuration (default: 3)")
    t.add_argument("--sizes", default="8,1K,64K,1M", help="isochron-bench --sizes (default: 8,1K,64K,1M)")
    add_run_arguments(t)
    t.add_argument("--alpha", type=float, default=0.05, help="significance level; --verify: intervals"
                   " at 1 - alpha (default: 0.05)")
    t.add_argument("--min-launches", type=int, default=3, help="an algorithm is chosen only with at least"
                   " this many valid launch medians on its side and the default's (default: 3)")
    t.add_argument("--max-launches", type=int, default=12, help="--run: adaptive launches: where the"
                   " fastest algorithm is faster than the default but not significant, measure more launches"
                   f" of just those two at just those sizes ({ADAPT_STEP} per round, one extra launch set"
                   " DIR.more<N> each) until significant or this many (default: 12; --launches or less: off)")
    t.add_argument("--rules", metavar="FILE", help="write (or, with --verify, use) the rules file")
    t.add_argument("--verify", metavar="DIR", help="measure (unless DIR holds a set) and compare"
                   " the default, the rules file and every algorithm forced (or those of --algs)")
    t.set_defaults(func=cmd_tune)
