#!/usr/bin/env python3
"""schema-doc: writes docs/output.md, the reference of isochron's JSON Lines records, from the one
source of the format, the JSON Schema python/src/isochron/results-1.schema.json (issue 27).

Every record type the schema lists gets a table of its fields: JSON type, whether it is required,
and the field's description. The description is the schema's own where it has one; for the fields
it does not describe yet, a short one from GLOSSARY below (a description added to the schema
replaces it). Units follow the suffix convention stated in the page.

  tools/schema-doc.py --write [SCHEMA]                  # rewrites docs/output.md, keeping its hand-written part
  tools/schema-doc.py --check [SCHEMA] docs/output.md   # exit 1 when the page is not what the schema gives

The page ends with a part written by hand, the legend of the tables the drivers, `isochron show` and
the HTML report print (issue 36): it starts at the line HAND_MARK; the check compares the part before
it, and a write keeps it (read from docs/output.md).
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SCHEMA = os.path.join(ROOT, "python", "src", "isochron", "results-1.schema.json")
DEFAULT_PAGE = os.path.join(ROOT, "docs", "output.md")
HAND_MARK = "<!-- Below: written by hand (the tables' legend); tools/schema-doc.py keeps it. -->"


def split_page(text):
    """(generated part, hand-written part starting at HAND_MARK or '')."""
    i = text.find(HAND_MARK)
    return (text, "") if i < 0 else (text[:i], text[i:])

# Descriptions of fields the schema has none for (by name, any record type; "type.field" for one type).
GLOSSARY = {
    "schema": "schema version of the record (1)",
    "type": "record type (the section names of this page)",
    "tool": "the driver that wrote the run: isochron-clock, isochron-bench, isochron-barrier, isochron-shmem",
    "run": "where and how the run was made: isochron version, host(s), MPI library and version, ranks, binding, command line",
    "options": "the driver's options as used (defaults filled in)",
    "clock_sync": "the clock synchronization: spec, duration, rounds, nodes, node_size, measured and true largest offset after it, tracking",
    "nprocs": "ranks in the communicator measured",
    "nodes": "shared-memory nodes (or --node-size blocks) of the run",
    "oversubscribed": "a node runs more ranks than it has cores",
    "ranks": "ranks of the run",
    "hosts": "host names of the ranks' nodes",
    "skew": "the injected skew (--skew): the spec and each rank's offset, drift, drift change, jitter; null when none",
    "op": "operation name (`--list-ops`)",
    "family": "operation family (collective, p2p, rma, ...)",
    "bytes": "message size in bytes",
    "dtype": "MPI datatype of the buffers",
    "redop": "reduction operation (reductions only)",
    "root": "root rank (rooted operations), -1 with --root rotate",
    "in_place": "MPI_IN_PLACE used",
    "active_ranks": "ranks that take part in the operation (pairwise operations: 2)",
    "scheme": "synchronization scheme of the repetitions: roundtime, window, barrier, none",
    "method": "timing method: global, max, root, ack (OpenSHMEM: the loop timing)",
    "reps": "repetitions attempted",
    "valid": "repetitions valid (they alone enter the statistics)",
    "invalid": "repetitions invalid (a rank late for its start, outside the window, ...)",
    "validated": "repetitions whose received data were checked",
    "stop": "why the repetitions stopped: ci (interval within --rel-ci), max_reps, max_attempts, budget, watchdog, ...",
    "adapted": "times Round-Time widened its slack or tolerance in this point",
    "mean_s": "mean of the valid repetitions' times",
    "median_s": "median of the valid repetitions' times",
    "min_s": "smallest valid time",
    "max_s": "largest valid time",
    "stddev_s": "standard deviation of the valid times",
    "ci_lo_s": "lower end of the confidence interval of the mean (Student's t)",
    "ci_hi_s": "upper end of the confidence interval of the mean",
    "median_ci_lo_s": "lower end of the distribution-free confidence interval of the median (order statistics)",
    "median_ci_hi_s": "upper end of that interval",
    "ci_level": "confidence level of both intervals (0.95)",
    "start_spread_s": "median spread of the ranks' start times over the repetitions",
    "correction_s": "time subtracted by the timing method (root method: the confirmation)",
    "scheme_param_s": "the scheme's parameter: Round-Time's slack period, the window length",
    "late_tolerance_s": "the widest lateness a start was allowed (Round-Time)",
    "clock_bound_s": "the clock's error bound at the end of the point, largest over ranks (clock_bound_kind says which bound)",
    "clock_true_s": "the true largest clock error at the end of the point, when a truth exists; else null",
    "elapsed_s": "wall time the point took",
    "slack": "Round-Time's slack multiplier used",
    "quantiles": "the requested quantiles of the valid times (--quantiles), by level",
    "raw": "every repetition's per-rank start and end and its validity (--raw)",
    "complete": "the run ended normally (false: interrupted; signal says by what)",
    "wall_s": "wall time of the run",
    "signal": "the signal that ended the run, when interrupted",
    "checks": "accuracy checks done (isochron-clock)",
    "refreshes": "clock-tracker refreshes in the run",
    "cost_s": "time spent in them",
    "sync_spec": "the sync spec as run",
    "rank": "the rank",
    "wait_s": "seconds after the sync at which the check was made",
    "timer": "timer name (`--list-timers`)",
    "barrier": "barrier algorithm (`--list-barriers`)",
    "b_s_s": "RDS constant b_s: one-way latency of a null message",
    "s_s": "RDS constant s: time for MPI_Send of a null message to return",
    "end.points": "points measured (isochron-bench)",
    "end.steps": "experiment steps done (isochron-barrier)",
    "end.interrupted": "what was under way when the run was interrupted",
    "track.per_rank": "each rank's tracker state: drift and drift-change estimates, noise, refreshes set aside",
    "track.wall_s": "wall time of the tracked run",
    "sync.duration_s": "time the synchronization took",
    "sync.rounds": "pairwise rounds of the synchronization",
    "sync.tracking": "the clock is tracked after the sync (--track on)",
    "model.kind": "linear (offset and drift) or offset (offset only)",
    "model.slope": "the model's slope (the drift against the reference clock)",
    "model.intercept_s": "the model's intercept",
    "model.fit": "the fit against the partner: partner, points, used, slope, slope_se, slope_kept, r2, resid_rms_s, span_s, attempts; null for rank 0",
    "accuracy.measured_offset_s": "offset to rank 0 measured by ping-pong (paper 000, Alg. 6)",
    "accuracy.bound_s": "the clock's error bound stated at that wait",
    "summary.sync_spec": "the sync spec as run",
    "summary.duration_s": "time the synchronization took",
    "summary.max_abs_measured_offset_s": "largest |measured offset| over the ranks at that wait",
    "summary.max_abs_true_offset_s": "largest |true offset| over the ranks at that wait (null without truth)",
    "summary.max_bound_s": "largest stated error bound over the ranks at that wait",
    "timer_cost.available": "the timer can be used on this machine",
    "timer_cost.ns_per_call": "cost of one read",
    "timer_cost.resolution_ns": "smallest step the timer shows",
    "timer_cost.tsc_hz": "TSC frequency (tsc timer only)",
    "rds_constants.d": "ceil(log2 p), the rounds of RDS",
    "rds_constants.max_wait_s": "the longest busy wait of a rank",
    "rds_constants.samples": "round trips measured",
    "rds_constants.pair": "the ranks measured between",
    "calls": "barrier calls made",
    "exit_skew_s": "statistics of exit skew (last exit - first exit) over the valid calls",
    "skew.cost_s": "statistics of the barrier's cost over the valid calls",
    "spread_s": "arrival spread: random per-rank delays up to this before the barrier",
    "samples_s": "every valid sample",
    "trials": "trials made",
    "successes": "trials whose shift cost was within the threshold",
    "success_rate": "successes / valid",
    "threshold": "success: shift cost <= (1 + threshold) x the concurrent reference",
    "shift.reference_s": "the concurrent reference: median of the shift started at one instant of the global clock",
    "shift_cost_s": "statistics of the shift cost (first start to last end)",
    "sizes": "message sizes measured",
    "payoff.d": "ceil(log2 p)",
    "a_s_per_byte": "a of the concurrent shift's fit a m + b_l",
    "b_l_s": "b_l of that fit",
    "payoff.b_s_s": "RDS constant b_s used in the paper's formula",
    "measured_min_bytes": "smallest size at which synchronizing first was cheaper (null: none)",
    "model_min_bytes": "that size by paper 004's formula m >= (2 d b_s - b_l/2)/a",
    "payoff.reference_s": "per size, the concurrent reference",
    "synced_s": "per size, median cost of RDS + shift from the first arrival",
    "unsynced_s": "per size, median cost of the shift alone from the first arrival",
}

CONVENTIONS = """\
Conventions: one JSON object per line; a field ending in `_s` is in seconds, `_ns` in nanoseconds,
`_Bps` in bytes per second, `_MBps` in 10^6 bytes per second; a number that is NaN or infinite is
written as `null`; numbers are the shortest decimal that reads back as the same double. Fields and
record types not listed are allowed (newer drivers add them); a reader ignores what it does not
know."""


def type_text(p):
    t = p.get("type")
    if "const" in p:
        return f"`{json.dumps(p['const'])}`"
    if "enum" in p:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in p["enum"])
    if isinstance(t, list):
        text = " or ".join(t)
    elif t:
        text = t
    elif "$ref" in p:
        text = p["$ref"].split("/")[-1]
    else:
        text = "any"
    if (t == "array" or (isinstance(t, list) and "array" in t)) and isinstance(p.get("items"), dict):
        it = p["items"].get("type")
        if it:
            text += f" (of {' or '.join(it) if isinstance(it, list) else it})"
    lo, hi = p.get("minimum"), p.get("maximum")
    if lo is not None and hi is not None:
        text += f", {lo}..{hi}"
    elif lo is not None:
        text += f", >= {lo}"
    return text


def describe(rtype, name, p):
    d = p.get("description") or GLOSSARY.get(f"{rtype}.{name}") or GLOSSARY.get(name) or ""
    return d.replace("|", "\\|").replace("\n", " ")


def render(schema, schema_rel):
    out = [
        "# The output format: isochron's JSON Lines records",
        "",
        "[docs index](README.md) · [front page](../README.md)",
        "",
        f"Generated by `tools/schema-doc.py` from `{schema_rel}` (the test `docs_output_current` checks",
        "that this page is what the schema gives: change the schema, then run",
        "`python3 tools/schema-doc.py --write`). Each driver's guide says which records it writes.",
        "The tables the drivers, `isochron show` and the HTML report print are explained column by column",
        "[at the end of this page](#the-tables-column-by-column), with the drivers' [exit statuses](#exit-statuses).",
        "",
        schema.get("description", ""),
        "",
        CONVENTIONS,
        "",
        "## Fields of every record",
        "",
        "| field | type | required | description |",
        "|---|---|---|---|",
    ]
    req = set(schema.get("required", []))
    for name, p in schema.get("properties", {}).items():
        out.append(f"| `{name}` | {type_text(p)} | {'yes' if name in req else ''} | {describe('', name, p)} |")
    defs = schema.get("$defs", {})
    listed = []
    for a in schema.get("allOf", []):
        try:
            listed.append((a["if"]["properties"]["type"]["const"], a["then"]["$ref"].split("/")[-1]))
        except (KeyError, TypeError):
            continue
    out += ["", "## Record types", "", ", ".join(f"[`{t}`](#{t.replace('_', '_')})" for t, _ in listed)]
    for rtype, ref in listed:
        d = defs.get(ref, {})
        out += ["", f"### {rtype}", ""]
        if d.get("description"):
            out += [d["description"], ""]
        req = set(d.get("required", []))
        extra = [r for r in d.get("required", []) if r not in ("schema", "type")]
        if extra:
            out += ["Required: " + ", ".join(f"`{r}`" for r in extra) + ".", ""]
        out += ["| field | type | required | description |", "|---|---|---|---|"]
        for name, p in d.get("properties", {}).items():
            out.append(f"| `{name}` | {type_text(p)} | {'yes' if name in req else ''} | {describe(rtype, name, p)} |")
    return "\n".join(out) + "\n"


def main(argv):
    check, write = "--check" in argv, "--write" in argv
    args = [a for a in argv if a not in ("--check", "--write")]
    schema_path = args[0] if args else DEFAULT_SCHEMA
    with open(schema_path) as f:
        schema = json.load(f)
    rel = os.path.relpath(os.path.abspath(schema_path), ROOT)
    page = render(schema, rel)
    if not check:
        hand = ""
        if os.path.exists(DEFAULT_PAGE):
            with open(DEFAULT_PAGE) as f:
                hand = split_page(f.read())[1]
        if write:
            with open(DEFAULT_PAGE, "w") as f:
                f.write(page + hand)
        else:
            sys.stdout.write(page + hand)
        return 0
    target = args[1] if len(args) > 1 else DEFAULT_PAGE
    with open(target) as f:
        have = split_page(f.read())[0]
    if have != page:
        print(f"schema-doc: FAIL: {target} is not what {rel} gives; regenerate: python3 tools/schema-doc.py --write")
        return 1
    print(f"schema-doc: PASS ({target} matches {rel})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
