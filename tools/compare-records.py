#!/usr/bin/env python3
"""Compare two drivers' JSON Lines record by record (issue 37 item 6: records unchanged by a refactoring).

usage: tools/compare-records.py BEFORE.jsonl AFTER.jsonl [--new KEY,...] [--vary KEY,...]

Two runs of the same driver with the same options can only differ where the machine decides: measured
times and the counts and verdicts that follow from them. So this checks, for every record in turn:
  - the same number of records, the same "type" in the same order;
  - the same keys in the same order, recursively (the record structure and field order), but for keys a
    record carries only after a measured outcome (COND below) when one side lacks them;
  - the same JSON type for every value (a number may be null on one side only where it is measured);
  - every string, boolean and integer the same, byte for byte, except the keys named inherently varying
    below (VARY) or with --vary, and keys documented as new (--new: present after, absent before);
  - numbers that are not integers are measurements: their values are not compared (their presence,
    place and type are); a measurement (a key ending in _s, _ppm) may be null on one side.
Prints one line per difference and a summary; exit 0 when nothing but varying values differ, 1 otherwise.
"""
import json
import sys

# Values a second run of the same command may change (each follows from measured times on a loaded machine):
VARY = {
    "stop",            # why a point stopped: ci, max_reps or budget, by how fast its CI narrowed
    "bound_kind",      # the clock bound stated: statistical or hard, by whether the premises held
    "kind",            # a clock model's kind: linear or offset, by whether the fitted slope was significant
    "slope_kept",      # likewise
    "valid", "reps", "attempts", "retries", "refreshes", "updates", "set_aside", "points", "used",
    "loop_k", "rounds_measured", "windows", "below_resolution", "uncertain", "adapted", "invalid",
    "late", "recv_late", "slow", "widened", "trials", "calls_measured", "n", "count", "cut_pairs",
    "retry_share", "measured_min_bytes", "pays_off", "wins", "outliers", "resync", "refits",
    "validated",       # repetitions whose data was checked (0,1,2,4,8,...: follows the repetition count)
    "slack",           # roundtime's slack B, doubled while starts arrive late
    "successes",       # isochron-barrier: trials whose shift succeeded
}
# Measurements (seconds, ppm) may be null on one side: a statistic that needs more valid repetitions than
# the run got (e.g. the median's CI below 6), or a fit the points did not support.
MEASURED_SUFFIXES = ("_s", "_ppm", "_ppm_s")


# Keys a record has only when a measured outcome calls for them (either side may lack them):
COND = {
    "retry_valid_share",  # only for a point that was retried (its valid share fell below --retry-below)
}


def walk(a, b, path, vary, new, out):
    if isinstance(a, dict) and isinstance(b, dict):
        ka = [k for k in a if k not in COND or k in b]
        kb = [k for k in b if not (k in new and k not in a) and (k not in COND or k in a)]
        if ka != kb:
            out.append(f"{path}: keys differ: before {ka} after {kb}")
            return
        for k in ka:
            walk(a[k], b[k], f"{path}.{k}", vary, new, out)
        return
    key = path.rsplit(".", 1)[-1].split("[")[0]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            if key in vary or all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in a + b):
                return
            out.append(f"{path}: {len(a)} elements before, {len(b)} after")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", vary, new, out)
        return
    num = (int, float)
    if (a is None or isinstance(a, num)) and (b is None or isinstance(b, num)) and not isinstance(a, bool) and not isinstance(b, bool):
        if key in vary:
            return
        if (a is None) != (b is None):
            if key.endswith(MEASURED_SUFFIXES):
                return
            out.append(f"{path}: {a!r} before, {b!r} after")
            return
        if isinstance(a, float) or isinstance(b, float):
            if isinstance(a, float) and isinstance(b, float):
                return  # a measurement
            if not (float(a).is_integer() and float(b).is_integer()):
                return
        if a != b:
            out.append(f"{path}: {a!r} before, {b!r} after")
        return
    if type(a) is not type(b):
        out.append(f"{path}: type {type(a).__name__} before, {type(b).__name__} after")
        return
    if a != b and key not in vary:
        out.append(f"{path}: {a!r} before, {b!r} after")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opt = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
    args = [a for a in args if a not in opt.values()]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    vary = VARY | set(filter(None, opt.get("--vary", "").split(",")))
    new = set(filter(None, opt.get("--new", "").split(",")))
    recs = []
    for f in args:
        with open(f, encoding="utf-8") as fh:
            recs.append([json.loads(line) for line in fh if line.strip()])
    a, b = recs
    out = []
    if len(a) != len(b):
        out.append(f"{len(a)} records before, {len(b)} after")
    for i, (x, y) in enumerate(zip(a, b)):
        if x.get("type") != y.get("type"):
            out.append(f"record {i + 1}: type {x.get('type')!r} before, {y.get('type')!r} after")
            continue
        walk(x, y, f"record {i + 1} ({x.get('type')})", vary, new, out)
    for line in out:
        print(line)
    print(f"{args[0]} vs {args[1]}: {min(len(a), len(b))} records compared, {len(out)} difference(s)"
          + (" (structure, order and every non-measured value identical)" if not out else ""))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
