#!/usr/bin/env python3
"""Negative controls for check_cc_log.py: a consistent synthetic 3-rank log
passes, and each violation of a safe-state invariant or of the event sequence
(one mutation at a time) is reported. Standard library only."""
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_cc_log as ccl  # noqa: E402


def good():
    logs = {}
    groups = [(11, [0, 1, 2], 7), (22, [0, 2], 3), (33, [2, 1], 5)]
    for r in range(3):
        ev = []
        if r == 1:
            ev.append({"ev": "request", "origin": 1, "t": 1.0})
        for n, t in ((1, 2.0), (2, 4.0)):
            if n == 2 and r == 0:
                ev.append({"ev": "request", "origin": 0, "t": 3.0})
            ev.append({"ev": "target", "ckpt": n, "ggid": 11, "target": 7, "t": t})
            ev.append({"ev": "safe", "ckpt": n, "groups": [
                {"ggid": g, "seq": s + n, "target": s + n, "members": m} for g, m, s in groups if r in m],
                "pending_icoll": 0, "sent": [5 * r + j + n for j in range(3)],
                "recvd": [5 * i + r + n for i in range(3)], "in_collective": False, "call": "MPI_Recv", "t": t + 0.1})
            ev.append({"ev": "saved", "ckpt": n, "t": t + 0.2})
            ev.append({"ev": "resume", "ckpt": n, "t": t + 0.3})
        logs[r] = ev
    return logs


def safe_of(logs, r, n):
    return [e for e in logs[r] if e["ev"] == "safe" and e["ckpt"] == n][0]


def mutations():
    def m(name, f):
        return name, f
    def seq(l):
        safe_of(l, 2, 1)["groups"][0]["seq"] += 1
        safe_of(l, 2, 1)["groups"][0]["target"] += 1
    def target(l):
        safe_of(l, 0, 2)["groups"][1]["target"] += 1
    def incoll(l):
        safe_of(l, 1, 1)["in_collective"] = True
    def icoll(l):
        safe_of(l, 0, 1)["pending_icoll"] = 1
    def flight(l):
        safe_of(l, 0, 2)["sent"][2] += 1
    def members(l):
        safe_of(l, 1, 2)["groups"][1]["members"] = [1, 2]
    def missing_group(l):
        s = safe_of(l, 0, 1)
        s["groups"] = [g for g in s["groups"] if g["ggid"] != 22]
    def missing_safe(l):
        l[2] = [e for e in l[2] if not (e["ev"] in ("safe", "saved", "resume") and e["ckpt"] == 2)]
    def no_resume(l):
        l[1] = [e for e in l[1] if not (e["ev"] == "resume" and e["ckpt"] == 1)]
    def order(l):
        i = [k for k, e in enumerate(l[0]) if e["ev"] == "saved" and e["ckpt"] == 1][0]
        l[0][i], l[0][i - 1] = l[0][i - 1], l[0][i]
    def gap(l):
        for r in l:
            for e in l[r]:
                if e.get("ckpt") == 2:
                    e["ckpt"] = 3
    def lost_request(l):
        l[2].append({"ev": "request", "origin": 2, "t": 9.0})
    def no_request(l):
        l[0] = [e for e in l[0] if e["ev"] != "request"]
    def twice(l):
        l[0] += [copy.deepcopy(e) for e in l[0] if e.get("ckpt") == 2 and e["ev"] != "target"]
    return [m("seq differs", seq), m("seq != target", target), m("in collective", incoll),
            m("pending icoll", icoll), m("message in flight", flight), m("member lists differ", members),
            m("member did not log group", missing_group), m("rank without safe", missing_safe),
            m("no resume", no_resume), m("saved before safe", order), m("numbers not consecutive", gap),
            m("request lost", lost_request), m("checkpoint without request", no_request),
            m("two safe states", twice)]


def run(logs, **kw):
    lines = []
    with tempfile.TemporaryDirectory() as d:
        for r, ev in logs.items():
            with open(os.path.join(d, f"cc-log.{r}.jsonl"), "w") as f:
                for e in ev:
                    f.write(json.dumps(e) + "\n")
        ok, n, _ = ccl.check(ccl.load(d), 3, out=lines.append, **kw)
    return ok, n, lines


def main():
    bad = 0
    ok, n, lines = run(good(), nrequests=2)
    if not ok or n != 2:
        print("FAIL consistent log rejected:", *lines, sep="\n  ")
        bad += 1
    ok, _, _ = run(good(), nrequests=3)
    if ok:
        print("FAIL wrong request count accepted")
        bad += 1
    for name, f in mutations():
        logs = good()
        f(logs)
        ok, _, lines = run(logs, nrequests=2 if name != "checkpoint without request" else None)
        print(f"{name:28s} {'accepted' if ok else 'rejected'}: {lines[0] if lines else ''}")
        if ok:
            print(f"FAIL violation '{name}' accepted")
            bad += 1
    print("test_check_cc_log: " + ("PASS" if not bad else f"{bad} FAIL"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
