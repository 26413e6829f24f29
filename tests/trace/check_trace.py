#!/usr/bin/env python3
"""Check a trace written by libisochron-trace.so (issue 15); stdlib only.

usage: check_trace.py DIR NAME NP [--call MPI_Allreduce] [--expect-misaligned]

  - otf2-print reads DIR/NAME/NAME.otf2, shows NP locations and as many
    ENTER and LEAVE events as the JSON has calls;
  - DIR/NAME.json parses, names one track per rank (0..NP-1), and every
    call event sits on one of them;
  - collectives are named "MPI_Allreduce (world, NP ranks)" (communicator, size);
  - every rank's events are ordered, on the global and on the local clock;
  - every instance of --call (a collective on MPI_COMM_WORLD) lines up across
    ranks on the global clock: no rank leaves it before the last rank entered
    it, within the clock's error bound (2 x the larger of the accuracy
    check's figure and the tracker's bound, from the trace's metadata).
    With --expect-misaligned that check must FAIL (a trace taken with skew
    injected and no correction), proving the check can see bad clocks.
Prints "trace: PASS" or "trace: FAIL: ..." lines; exit status 0 / 1.
"""
import json
import math
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    expect_mis = "--expect-misaligned" in args
    if expect_mis:
        args.remove("--expect-misaligned")
    call = "MPI_Allreduce"
    if "--call" in args:
        i = args.index("--call")
        call = args[i + 1]
        del args[i:i + 2]
    d, name, np_ = args[0], args[1], int(args[2])
    fails = []

    data = json.load(open(f"{d}/{name}.json"))
    meta = data["isochron"]
    evs = [e for e in data["traceEvents"] if e.get("ph") == "X"]
    tracks = {e["tid"]: e["args"]["name"] for e in data["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"}
    if sorted(tracks) != list(range(np_)) or any(tracks[r] != f"rank {r}" for r in tracks):
        fails.append(f"tracks {tracks} are not one per rank 0..{np_ - 1}")
    if {e["tid"] for e in evs} != set(range(np_)):
        fails.append(f"events on tracks {sorted({e['tid'] for e in evs})}, expected 0..{np_ - 1}")
    for k in ("clock_correction", "sync_spec", "check_max_abs_measured_offset_s"):
        if k not in meta:
            fails.append(f"metadata lacks {k}")

    # otf2-print
    p = subprocess.run(["otf2-print", f"{d}/{name}/{name}.otf2"], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append(f"otf2-print failed ({p.returncode}): {p.stderr.strip()[:300]}")
    else:
        enters = re.findall(r"^ENTER\s+(\d+)\s+(\d+)", p.stdout, re.M)
        leaves = re.findall(r"^LEAVE\s+(\d+)\s+(\d+)", p.stdout, re.M)
        if len(enters) != len(evs) or len(leaves) != len(evs):
            fails.append(f"otf2-print shows {len(enters)} ENTER / {len(leaves)} LEAVE, the JSON {len(evs)} calls")
        if {int(l) for l, _ in enters} != set(range(np_)):
            fails.append(f"otf2-print locations {sorted({int(l) for l, _ in enters})}, expected 0..{np_ - 1}")
    g = subprocess.run(["otf2-print", "-G", f"{d}/{name}/{name}.otf2"], capture_output=True, text=True)
    if g.stdout.count("LOCATION_GROUP ") != np_:
        fails.append(f"otf2-print -G: {g.stdout.count('LOCATION_GROUP ')} location groups, expected {np_}")

    # collectives named with their communicator and its size
    for e in evs:
        a = e["args"]
        if e["cat"] in ("coll", "icoll") and a["comm"] != "-" and e["name"] != f"{a['call']} ({a['comm']}, {a['comm_size']} ranks)":
            fails.append(f"collective event named {e['name']!r} (args {a['call']}, {a['comm']}, {a['comm_size']})")
            break
        if a["comm"] == "world" and a["comm_size"] != np_:
            fails.append(f"{e['name']} on world of size {a['comm_size']}, expected {np_}")
            break

    # order per rank
    by_rank = {r: [e for e in evs if e["tid"] == r] for r in range(np_)}
    for r, lst in by_rank.items():
        for a, b in zip(lst, lst[1:]):
            ga0, ga1, gb0 = a["args"]["global_start_s"], a["args"]["global_end_s"], b["args"]["global_start_s"]
            la1, lb0 = a["args"]["local_end_s"], b["args"]["local_start_s"]
            if not (ga0 <= ga1 <= gb0) or not (la1 <= lb0):
                fails.append(f"rank {r}: {a['name']} #{a['args']['instance']} and {b['name']} #{b['args']['instance']} out of order")
                break

    # line-up of the collective's instances
    def num(k):
        v = meta.get(k)
        try:
            return float(v)
        except (TypeError, ValueError):
            return float("nan")
    # both bounds at finalize, and which one is stated (the hard one where the statistics failed)
    kind = meta.get("error_bound_kind")
    if kind not in ("stat", "hard", "none"):
        fails.append(f"metadata error_bound_kind {kind!r}: expected stat, hard or none")
    if kind != "none":
        stated, which = num("error_bound_at_finalize_s"), num(f"error_bound_{kind}_at_finalize_s")
        if not (stated == which and num("error_bound_hard_at_finalize_s") >= 0 and num("error_bound_stat_at_finalize_s") >= 0):
            fails.append(f"metadata: stated bound {stated} is not the {kind} bound {which} (stat {num('error_bound_stat_at_finalize_s')}, "
                 f"hard {num('error_bound_hard_at_finalize_s')})")
    err = max(x for x in (num("check_max_abs_measured_offset_s"), num("error_bound_at_finalize_s"), 0.0) if not math.isnan(x))
    tol = 2 * err
    inst = {}
    for e in evs:
        if e["args"]["call"] == call and e["args"]["comm"] == "world":
            inst.setdefault(e["args"]["instance"], {})[e["tid"]] = e["args"]
    if not inst:
        fails.append(f"no {call} on MPI_COMM_WORLD in the trace")
    worst, bad = -math.inf, 0
    for k, per in sorted(inst.items()):
        if len(per) != np_:
            fails.append(f"{call} #{k} seen on {len(per)} ranks, expected {np_}")
            break
        gap = max(a["global_start_s"] for a in per.values()) - min(a["global_end_s"] for a in per.values())
        worst = max(worst, gap)
        bad += gap > tol
    print(f"trace: {len(evs)} calls on {np_} ranks; {len(inst)} x {call}: latest entry - earliest exit, worst {worst * 1e6:.3f} us "
          f"(tolerance {tol * 1e6:.3f} us = 2 x clock error; {bad} instances beyond); correction: {meta.get('clock_correction')}")
    if expect_mis:
        if bad == 0:
            fails.append(f"expected misaligned {call} instances (uncorrected skewed clocks), found none")
    elif bad:
        fails.append(f"{bad} of {len(inst)} {call} instances do not line up: a rank left before another entered, by up to {worst * 1e6:.3f} us")
    for f in fails:
        print("trace: FAIL:", f)
    if not fails:
        print("trace: PASS")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
