#!/usr/bin/env python3
"""check_late: Round-Time's late-start rule, proven deterministically. The run
was made with ISOCHRON_TEST_LATE=R:K (rank R starts every K-th repetition late
on purpose) and --raw:
  check_late.py FILE K MAX_REPS [ATTEMPTS]
Without ATTEMPTS: every K-th repetition is invalid, the point has exactly
MAX_REPS valid repetitions (Alg. 5 counts valid ones) and stopped for max_reps,
and the lateness does not spill over: at most half of the repetitions right
after a late one are invalid (a spill-over makes all of them invalid; how many
of the others a busy machine invalidates is the machine's, not the rule's: a
fresh-clone CI run saw 7 of 57, in bursts of 2-3 while a rank was
descheduled, so a validity quota is a benchmark target, not a test). With ATTEMPTS (K = 1,
every repetition late): no repetition is valid, exactly ATTEMPTS were tried,
the point stopped for max_attempts and has no statistics; with RETRIES too
(the run had --retries RETRIES): the point was tried RETRIES + 1 times, each
discarded try recorded with a valid share of 0.
  check_late.py FILE K --widen D
The hooked lateness D (seconds) is within --late-cap x the run time: the
tolerance must widen to at least D (recorded in the point, adapted >= 1) and
at least half of the hooked repetitions of the second half must then be valid
(without the widening none is).
  check_late.py FILE 1 --budget N
Every repetition of every point is late and the run had --retries N: each
point's retries follow the run's retry budget (a retry only while the run's
retried tries are fewer than 12 + 0.25 x the points before), recomputed here
point by point, and every discarded share is 0.
Prints "check_late: PASS" or the first problem."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, of_type, read  # noqa: E402


path, k = sys.argv[1], int(sys.argv[2])
pts = of_type(read(path), "point")
if sys.argv[3] == "--budget":
    n, made, got, want = int(sys.argv[4]), 0, [], []
    for i, p in enumerate(pts):
        r = 0
        while r < n and made < 12 + 0.25 * i:
            r += 1
            made += 1
        want.append(r)
        got.append(p.get("retries"))
        if (p.get("retry_valid_share") or []) != [0] * (p.get("retries") or 0): fail(f"point {i}: discarded shares {p.get('retry_valid_share')}")
        if p["valid"] != 0: fail(f"point {i}: {p['valid']} valid repetitions, every one was made late")
    print(f"  retries per point {got}, the budget allows {want}")
    if len(pts) < 12: fail(f"{len(pts)} points: too few to see the budget")
    if got != want: fail(f"retries per point {got}, expected {want}")
    print("check_late: PASS")
    sys.exit(0)
if len(pts) != 1: fail(f"expected one point, found {len(pts)}")
p = pts[0]
valid = p["raw"]["valid"]
if len(valid) != p["reps"]: fail(f"raw validity for {len(valid)} of {p['reps']} repetitions")
hooked = [i for i in range(len(valid)) if i % k == 0]
if sys.argv[3] == "--widen":
    d = float(sys.argv[4])
    late = [i for i in hooked if i >= len(valid) // 2]
    ok = sum(valid[i] for i in late)
    print(f"  {p['reps']} repetitions, {p['valid']} valid, tolerance {p['late_tolerance_s']} s (adapted {p['adapted']} times), median {p['median_s']} s; hooked in the second half valid: {ok} of {len(late)}")
    if not p["adapted"] or p["late_tolerance_s"] < d: fail(f"the tolerance did not widen to the hooked lateness {d} s")
    if len(late) < 4: fail("too few hooked repetitions in the second half")
    if 2 * ok < len(late): fail(f"only {ok} of {len(late)} hooked repetitions in the second half are valid after widening")
    print("check_late: PASS")
    sys.exit(0)
max_reps = int(sys.argv[3])
attempts = int(sys.argv[4]) if len(sys.argv) > 4 else None
retries = int(sys.argv[5]) if len(sys.argv) > 5 else 0
if p.get("retries") != retries or len(p.get("retry_valid_share") or []) != retries:
    fail(f"retries {p.get('retries')} with shares {p.get('retry_valid_share')}, expected {retries} discarded tries")
if any(x != (0 if attempts else x) for x in p.get("retry_valid_share") or []):
    fail(f"a discarded try of a point whose every repetition is late has a valid share: {p.get('retry_valid_share')}")
if any(valid[i] for i in hooked): fail(f"a repetition made late is valid: {[i for i in hooked if valid[i]]}")
print(f"  {p['reps']} repetitions, {p['valid']} valid, stop {p['stop']}, slack {p.get('slack')}, tolerance {p.get('late_tolerance_s')} (adapted {p.get('adapted')} times)")
if attempts is None:
    if p["valid"] != max_reps or sum(valid) != max_reps: fail(f"{p['valid']} valid repetitions, max-reps {max_reps} counts valid ones")
    if p["stop"] != "max_reps": fail(f"stop {p['stop']}, expected max_reps")
    after = [i for i in range(len(valid)) if i % k == 1]
    bad = [i for i in after if not valid[i]]
    others = [i for i in range(len(valid)) if i % k > 1 and not valid[i]]
    print(f"  invalid right after a late one: {bad} of {len(after)}; invalid elsewhere: {others}")
    if k < 3: fail("K must be at least 3 to tell a spill-over from the late repetitions")
    if len(after) < 4: fail(f"only {len(after)} repetitions follow a late one: too few to judge")
    if 2 * len(bad) > len(after): fail(f"the lateness spills over: {len(bad)} of the {len(after)} repetitions right after a late one are invalid")
else:
    if p["valid"] != 0 or p["reps"] != attempts: fail(f"{p['valid']} valid of {p['reps']}, expected 0 of {attempts}")
    if p["stop"] != "max_attempts": fail(f"stop {p['stop']}, expected max_attempts")
    if p["median_s"] is not None: fail("a point without valid repetitions has statistics")
print("check_late: PASS")
