"""The ``isochron`` command: show, compare, plot and report on isochron result files.

One console script with subcommands, each dispatched to a ``cmd_<name>`` function (the pyperf
shape). Bad input is the user's to fix, so it is one line on stderr, ``isochron: error: ...``,
and exit status 2, never a traceback; warnings about files cut short go to stderr as
``isochron: warning: ...`` and the command carries on with what was complete. Exit status 1 is
kept for ``compare --fail-on-regression`` finding a regression. An unexpected exception is a bug
in isochron: it is reported in one line too (``ISOCHRON_DEBUG=1`` shows the traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from . import guidelines, launches, tune
from ._version import __version__
from .base import Record
from .comparison import compare, comparison_table, parse_threshold
from .dataset import Dataset, IsochronError, read
from .plots import FORMATS, KINDS, available, check_output, plot, save
from .report import write_report
from .table import describe_run, render_text

EPILOG = """input: JSON Lines written by isochron-clock, isochron-bench or isochron-barrier
(--jsonl FILE), schema 1; several runs may be concatenated in one file."""


def _warn(ds: Dataset) -> None:
    for w in ds.warnings:
        print(f"isochron: warning: {w}", file=sys.stderr)


def _points(ds: Dataset, path: str) -> list[Record]:
    for rtype in ("point", "cost"):
        if ds.records.get(rtype):
            return ds.records[rtype]
    raise IsochronError(f"{path}: no benchmark points to compare (compare reads isochron-bench"
                        f" points or isochron-barrier cost records; this file has"
                        f" {', '.join(sorted(ds.records)) or 'no records'})")


def cmd_show(args: argparse.Namespace) -> int:
    ds = read(args.files)
    _warn(ds)
    lt = launches.launch_tables(ds.records.get("point", []) or ds.records.get("cost", []))
    if lt:                                 # several launches: the launch level is the headline
        head = [f"{len(ds.contexts)} launches; the first: {describe_run(ds.contexts[0])}"]
        sys.stdout.write("\n".join(head + launches.launch_summary(ds)) + "\n\n"
                         + "\n\n".join(t.text() for t in lt) + "\n")
        if not args.per_launch:
            print("\n(each launch's own tables: isochron show --per-launch)")
            return 0
        sys.stdout.write("\n")
    sys.stdout.write(render_text(ds))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    cmd = list(args.launcher)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    outdir, man = launches.run(cmd, args.launches, args.configs or (), seed=args.seed,
                               outdir=args.output, timeout=args.timeout)
    failed = [e for e in man["launches"] if not e.get("ok", e["rc"] == 0)]
    print(f"{outdir}: {len(man['launches']) - len(failed)} of {len(man['launches'])} launches"
          f" ok (seed {man['seed']}; order {' '.join(man['order'])})")
    if failed:
        print(f"isochron: warning: {len(failed)} launch(es) failed: "
              + ", ".join(str(e["launch"]) for e in failed)
              + f"; the others are kept in {outdir}", file=sys.stderr)
        return 1
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    threshold = parse_threshold(args.threshold)
    if not 0 < args.alpha < 1:
        raise IsochronError(f"--alpha {args.alpha:g}: give a significance level between 0 and 1")
    da, db = read(args.a), read(args.b)
    _warn(da)
    _warn(db)
    match = [k for k in args.match.split(",") if k] if args.match else None
    if args.fail_on_regression and args.level == "repetition":
        raise IsochronError("--fail-on-regression fails only on launch-level evidence (launches"
                            " differ more than repetitions): drop --level repetition")
    if args.launch_spread is not None and not 0 < args.launch_spread < 1:
        raise IsochronError(f"--launch-spread {args.launch_spread:g}: give a fraction like 0.3")
    cmp = compare(_points(da, args.a), _points(db, args.b), threshold=threshold,
                  alpha=args.alpha, match=match, level=args.level,
                  default_spread=args.launch_spread or launches.DEFAULT_LAUNCH_SPREAD)
    print(comparison_table(cmp, args.a, args.b, threshold, args.alpha).text())
    if cmp.regressions and args.fail_on_regression:
        return 1
    return 0


def _list_kinds(ds: Dataset | None = None) -> None:
    fits = available(ds) if ds is not None else list(KINDS)
    width = max(len(k) for k in KINDS)
    lines = ["plot kinds" + (" (* = has data in the given files)" if ds is not None else "") + ":"]
    for name, (_fn, rtype, doc) in KINDS.items():
        mark = "*" if ds is not None and name in fits else " "
        lines.append(f" {mark}{name.ljust(width)}  {doc}  [needs '{rtype}' records]")
    print("\n".join(lines))


def cmd_plot(args: argparse.Namespace) -> int:
    if args.list_kinds or args.kind == "help":
        ds = read(args.files) if args.files else None
        _list_kinds(ds)
        return 0
    if not args.files:
        raise IsochronError("plot: give a result FILE (or --list-kinds)")
    if args.size is not None:
        from .units import parse_bytes
        try:
            parse_bytes(args.size)
        except ValueError as exc:
            raise IsochronError(f"--size {args.size}: {exc}") from None
    if args.output is not None:
        check_output(args.output)
    ds = read(args.files)
    _warn(ds)
    kind = args.kind
    if kind is None:
        fits = available(ds)
        if not fits:
            raise IsochronError(f"{args.files[0]}: nothing to plot (no records of a plot kind)")
        kind = fits[0]
    out = args.output
    if out is None:
        stem = os.path.splitext(os.path.basename(args.files[0].rstrip(os.sep)))[0]
        out = f"{stem}-{kind}.{args.format}"
    check_output(out)
    fig = plot(ds, kind, op=args.op, size=args.size, reps=args.reps, stat=args.stat)
    print(save(fig, out))
    return 0


def cmd_gantt(args: argparse.Namespace) -> int:
    from .trace import gantt_figure, instance_table, load_trace
    if args.output is not None:
        check_output(args.output)
    tr = load_trace(args.trace)
    out = args.output or f"{os.path.splitext(os.path.basename(tr.path))[0]}-{args.call}-{args.instance}.{args.format}"
    check_output(out)
    print("\n".join(instance_table(tr, args.call, args.instance)))
    print(save(gantt_figure(tr, args.call, args.instance), out))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    trace = (args.trace, args.call, args.instance) if args.trace else None
    path, ds = write_report(args.files, args.output, trace=trace)
    _warn(ds)
    print(path)
    return 0


#: where every column of show's and the report's tables is defined (the same names as the drivers')
LEGEND = "docs/output.md, section 'The tables, column by column'"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="isochron", epilog=EPILOG,
        description="Tables, comparisons, plots and HTML reports of isochron result files.")
    p.add_argument("--version", action="version", version=f"isochron {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    s = sub.add_parser("show", help="summary tables of one or more result files",
                       description="Summary tables: benchmark points by operation, then scheme"
                       " and method (sizes in KiB, times in µs, CI(mean), valid/reps); clock accuracy"
                       " per wait; barrier skew, cost, shift and payoff. Every column and mark is"
                       " defined in " + LEGEND + ".", epilog=EPILOG)
    s.add_argument("files", nargs="+", metavar="FILE")
    s.add_argument("--per-launch", action="store_true",
                   help="with several launches: also each launch's own tables")
    s.set_defaults(func=cmd_show)

    ru = sub.add_parser(
        "run", help="run a measurement as N interleaved launches (one result set)",
        description="Run LAUNCHER... N times per configuration, appending the configuration's"
        " arguments and --jsonl FILE, in a seeded randomized balanced order (blocks of one"
        " launch per configuration, each block a random permutation followed by its reverse:"
        " ABBA). Every record is tagged with its launch and config; DIR/manifest.json lists the"
        " launches. DIR (or DIR:CONFIG) is then read by show, compare, plot and report. A failed"
        " launch (a non-zero exit, or no result written) is reported and the others kept (exit"
        " status 1).",
        epilog="example: isochron run --launches 5 --configs lin.args bin.args -o set --"
        " tools/mpirun-local -np 4 build/isochron-bench --sizes 8,1K. A config file holds"
        " driver arguments (# comments) and optionally 'launcher-args: --bind-to core' (words"
        " put after the launcher's first word).")
    ru.add_argument("--launches", type=int, required=True, metavar="N",
                    help="launches per configuration")
    ru.add_argument("--configs", nargs="+", metavar="FILE.args",
                    help="configuration files (default: one configuration, no extra arguments)")
    ru.add_argument("--seed", type=int, help="seed of the launch order (default: random,"
                    " recorded in the manifest)")
    ru.add_argument("-o", "--output", metavar="DIR",
                    help="output directory (default: isochron-run-DATE-TIME)")
    ru.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="kill a launch that runs longer (default: none)")
    ru.add_argument("launcher", nargs=argparse.REMAINDER, metavar="-- LAUNCHER...",
                    help="the command of one launch, e.g. -- tools/mpirun-local -np 2"
                    " build/isochron-bench --ops allreduce")
    ru.set_defaults(func=cmd_run)

    c = sub.add_parser("compare", help="per-point ratios B/A with significance",
                       description="Match the points of B to those of A and print the ratio B/A"
                       " of medians. Significance on the launch level (default): a t-test over"
                       " the logs of each side's launch medians (A and B may be launch sets of"
                       " isochron run, DIR or DIR:CONFIG, or files holding several runs); with one"
                       " launch per side 'inconclusive' unless beyond a stated default"
                       " between-launch spread. --level repetition: the two-sided Mann-Whitney U"
                       " test on raw repetitions when both files have them (--raw), by"
                       " confidence-interval overlap otherwise. A key with one value in A and another in B (e.g."
                       " scheme) is what is compared and is not matched on.", epilog=EPILOG)
    c.add_argument("a", metavar="A", help="baseline result file")
    c.add_argument("b", metavar="B", help="result file compared against A")
    c.add_argument("--threshold", default="5%",
                   help="smallest change flagged as REGRESSION/improvement (default: 5%%)")
    c.add_argument("--alpha", type=float, default=0.05,
                   help="significance level of the Mann-Whitney U test (default: 0.05)")
    c.add_argument("--match", metavar="KEYS",
                   help="comma-separated keys to match points on (default: op, barrier, bytes,"
                   " nprocs, root, dtype, redop, in_place, scheme, method, less those that differ)")
    c.add_argument("--fail-on-regression", action="store_true",
                   help="exit with status 1 when a regression is flagged on the launch level")
    c.add_argument("--level", choices=("launch", "repetition"), default="launch",
                   help="launch (default): test launch medians against the between-launch"
                   " spread (t-test over launches; one launch per side: inconclusive unless"
                   " beyond the default spread); repetition: Mann-Whitney U / CI overlap on one"
                   " launch's repetitions, which launch-to-launch noise defeats")
    c.add_argument("--launch-spread", type=float, metavar="X",
                   help="between-launch spread (sd of log launch medians) assumed with one"
                   f" launch per side (default: {launches.DEFAULT_LAUNCH_SPREAD:g})")
    c.set_defaults(func=cmd_compare)

    pl = sub.add_parser("plot", help="one plot as PNG, SVG or PDF",
                        description="Write one plot. Kinds: " + "; ".join(
                            f"{k}: {v[2]}" for k, v in KINDS.items()) + ".", epilog=EPILOG)
    pl.add_argument("files", nargs="*", metavar="FILE",
                    help="result files; several are drawn in one plot (e.g. runs of two schemes)")
    pl.add_argument("--kind", help="plot kind (default: the first that fits the data);"
                    " --kind help lists them")
    pl.add_argument("--list-kinds", action="store_true", help="list the plot kinds and exit")
    pl.add_argument("-o", "--output", metavar="OUT",
                    help="output file; .png, .svg or .pdf (default: FILE-KIND.FORMAT here)")
    pl.add_argument("--format", choices=FORMATS, default="png",
                    help="format when -o is not given (default: png)")
    pl.add_argument("--stat", choices=("median", "mean"),
                    help="latency: the statistic plotted (default: median with an order-statistic"
                    " CI when raw repetitions are there, else mean with the Student's t CI)")
    pl.add_argument("--op", help="gantt: the operation (default: the first with raw data)")
    pl.add_argument("--size", help="gantt: the message size, e.g. 64K (default: the largest)")
    pl.add_argument("--reps", metavar="FIRST:END",
                    help="gantt: repetitions FIRST..END-1 (default: 0:4)")
    pl.set_defaults(func=cmd_plot)

    r = sub.add_parser("report", help="one self-contained HTML page with tables and plots",
                       description="Write DIR/index.html: the runs, every table, comparisons"
                       " between benchmark runs, and every plot the data allows, images"
                       " embedded. Prints the path of the page.", epilog=EPILOG)
    r.add_argument("files", nargs="+", metavar="FILE")
    r.add_argument("-o", "--output", metavar="DIR", required=True, help="output directory")
    r.add_argument("--trace", metavar="TRACE", help="also a trace of libisochron-trace.so (NAME.json):"
                   " the Gantt chart of one instance (--call, --instance)")
    r.add_argument("--call", default="MPI_Allreduce", help="with --trace: the call (default: MPI_Allreduce)")
    r.add_argument("--instance", type=int, default=0, help="with --trace: the instance (default: 0)")
    r.set_defaults(func=cmd_report)

    g = sub.add_parser("gantt", help="one call's N-th instance across ranks from a trace (paper Fig. 10)",
                       description="Read a trace of libisochron-trace.so (NAME.json, Perfetto Trace"
                       " Event JSON) and draw the N-th instance of --call on every rank, on the"
                       " global clock beside the ranks' local clocks; prints the instance's table.")
    g.add_argument("trace", metavar="TRACE", help="NAME.json written by libisochron-trace.so (or its directory)")
    g.add_argument("--call", default="MPI_Allreduce", help="MPI function (default: MPI_Allreduce)")
    g.add_argument("--instance", type=int, default=0, metavar="N", help="0-based instance (default: 0)")
    g.add_argument("-o", "--output", metavar="OUT", help="image file .png/.svg/.pdf"
                   " (default: NAME-CALL-N.FORMAT here)")
    g.add_argument("--format", choices=FORMATS, default="png", help="format when -o is not given")
    g.set_defaults(func=cmd_gantt)
    mo = sub.add_parser("models", help="Hockney and LogGP models per pair from an allpairs run;"
                        " predictions of linear/binomial Bcast, Scatter, Gather",
                        description="Fit Hockney (alpha, beta) and LogGP (L, o, g, G) per pair from"
                        " the 'pair' records of isochron-bench --ops allpairs (at least two sizes,"
                        " e.g. --sizes 0,1K,16K,64K), print them, and optionally write them as JSON,"
                        " predict isochron's linear/binomial Bcast, Scatter and Gather and compare"
                        " with their measurement (paper 001, sec. 4-5). FILE may also be a models"
                        " JSON written by --json.", epilog=EPILOG)
    mo.add_argument("file", metavar="FILE", help="allpairs JSON Lines, or a models .json")
    mo.add_argument("--mode", choices=("parallel", "sequential"),
                    help="which all-pairs records to fit when the file has both")
    mo.add_argument("--json", metavar="OUT", help="write the models to OUT (JSON)")
    mo.add_argument("--predict", metavar="MEASURED",
                    help="isochron-bench JSON Lines of " + ", ".join(_models_ops())
                    + ": table of predicted vs measured")
    mo.add_argument("--plot", metavar="OUT", help="with --predict: predicted vs measured plot")
    mo.add_argument("--heatmap", metavar="OUT", help="heatmap of the round-trip matrix")
    mo.add_argument("--heatmap-size", metavar="BYTES", type=int,
                    help="message size of the heatmap (default: the last matrix)")
    mo.set_defaults(func=cmd_models)
    guidelines.add_parser(sub)
    tune.add_parser(sub)
    return p


def _models_ops() -> tuple[str, ...]:
    from .models import PREDICTED_OPS
    return PREDICTED_OPS


def cmd_models(args: argparse.Namespace) -> int:
    from . import models as M
    for opt, out, formats in (("--json", args.json, None), ("--plot", args.plot, FORMATS),
                              ("--heatmap", args.heatmap, FORMATS)):
        if out is not None:
            try:
                check_output(out, formats)
            except IsochronError as exc:
                raise IsochronError(f"{opt} {exc}") from None
    if args.plot and not args.predict:
        raise IsochronError("--plot draws predictions: give --predict MEASURED too")
    if args.file.endswith(".json"):
        m = M.from_json(args.file)
        if args.heatmap:
            raise IsochronError("--heatmap needs the allpairs JSON Lines, not a models .json")
    else:
        ds = read(args.file)
        _warn(ds)
        m = M.fit(ds, args.mode)
        if args.heatmap:
            save(M.plot_heatmap(ds, args.heatmap_size, m["mode"]), args.heatmap)
            print(f"heatmap: {args.heatmap}")
    sys.stdout.write(M.models_table(m))
    if args.json:
        M.to_json(m, args.json)
        print(f"models: {args.json}")
    if args.predict:
        rows = M.compare(m, args.predict)
        sys.stdout.write("\n" + M.compare_table(rows))
        if args.plot:
            save(M.plot_predictions(rows), args.plot)
            print(f"plot: {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except IsochronError as exc:
        print(f"isochron: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:                  # `isochron show x | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:                 # a bug in isochron, not bad input
        if os.environ.get("ISOCHRON_DEBUG"):
            raise
        print(f"isochron: internal error in '{args.command}': {type(exc).__name__}: {exc}"
              " (ISOCHRON_DEBUG=1 shows the traceback; please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
