#!/usr/bin/env python3
"""check_bind: --bind auto and off, on any machine.
  check_bind.py AUTO.jsonl OFF.jsonl
AUTO was run with --bind auto, OFF with the default --bind off, same ranks.
  - OFF: isochron bound nothing (options.bound_by_isochron false);
  - AUTO on an oversubscribed node whose ranks OFF shows unbound: every rank is
    bound to one CPU, ranks spread round-robin (no CPU holds more than
    ceil(ranks / CPUs)), and the record says bound_by_isochron;
  - AUTO otherwise (not oversubscribed, or the launcher bound): isochron bound
    nothing and the binding is the launcher's (the same as OFF's).
Prints "check_bind: PASS" or the first problem."""
import math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import context, fail  # noqa: E402



auto, off = context(sys.argv[1]), context(sys.argv[2])
ranks = auto["run"]["ranks"]
b_auto, b_off = auto["run"]["binding"], off["run"]["binding"]
print(f"  {ranks} ranks, oversubscribed {auto['oversubscribed']}; binding auto {b_auto}, off {b_off};"
      f" bound_by_isochron auto {auto['options']['bound_by_isochron']}, off {off['options']['bound_by_isochron']}")
if off["options"]["bound_by_isochron"] or off["options"]["bind"] != "off":
    fail("the default (--bind off) bound the ranks, or did not record it")
if auto["options"]["bind"] != "auto":
    fail("--bind auto is not recorded")
if auto["oversubscribed"] and b_off == "unbound":
    if not auto["options"]["bound_by_isochron"]:
        fail("an oversubscribed node with unbound ranks was not bound")
    if not isinstance(b_auto, list) or len(b_auto) != ranks:
        fail(f"binding {b_auto}: expected one CPU per rank")
    if any(not c.isdigit() for c in b_auto):
        fail(f"binding {b_auto}: a rank is bound to more than one CPU")
    cpus = len(set(b_auto))
    worst = max(b_auto.count(c) for c in set(b_auto))
    if worst > math.ceil(ranks / cpus):
        fail(f"binding {b_auto}: {worst} ranks on one CPU, round-robin gives at most {math.ceil(ranks / cpus)}")
else:
    if auto["options"]["bound_by_isochron"]:
        fail("isochron bound ranks of a node that is not oversubscribed or that the launcher bound")
    if b_auto != b_off:
        fail(f"binding {b_auto} with auto differs from the launcher's {b_off}")
print("check_bind: PASS")
