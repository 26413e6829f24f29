#!/usr/bin/env python3
"""Check libisochron-cc.so state logs (format: header of src/cc/cc_ckpt.h)
against the safe-state invariants of paper 003 for every checkpoint:
  - every rank logged exactly one request, safe, saved and resume for it, in
    that order, and no safe state without a request;
  - at the safe state SEQ == TARGET for every group on every rank, members
    agree on SEQ, and every member of a group logged that group;
  - no application message in flight: sent[i][j] == recvd[j][i] for all pairs
    and the totals agree; nobody inside a collective.
usage: check_ckpt_log.py LOGDIR NP (--expect N | --min N)
Prints one line per checkpoint and exits non-zero with FAIL lines on a violation."""
import json
import os
import sys


def main():
    logdir, np = sys.argv[1], int(sys.argv[2])
    mode, want = sys.argv[3], int(sys.argv[4])
    ev = {}
    fails = []
    for r in range(np):
        path = os.path.join(logdir, f"cc-log.{r}.jsonl")
        if not os.path.exists(path):
            fails.append(f"rank {r}: no log {path}")
            continue
        with open(path) as f:
            ev[r] = [json.loads(line) for line in f if line.strip()]
    ckpts = sorted({e["ckpt"] for r in ev for e in ev[r] if e["ev"] == "safe"})
    if mode == "--expect" and len(ckpts) != want:
        fails.append(f"{len(ckpts)} checkpoints, expected {want}")
    if mode == "--min" and len(ckpts) < want:
        fails.append(f"{len(ckpts)} checkpoints, expected at least {want}")
    for n in ckpts:
        safe = {}
        for r in ev:
            kinds = [e["ev"] for e in ev[r] if e.get("ckpt") == n and e["ev"] in ("request", "safe", "saved", "resume")
                     and not e.get("joined")]
            if kinds != ["request", "safe", "saved", "resume"]:
                fails.append(f"ckpt {n} rank {r}: events {kinds}, expected request, safe, saved, resume")
            s = [e for e in ev[r] if e["ev"] == "safe" and e["ckpt"] == n]
            if s:
                safe[r] = s[0]
        if len(safe) != np:
            fails.append(f"ckpt {n}: safe state logged by ranks {sorted(safe)}, expected all {np}")
            continue
        seqs = {}
        for r, s in safe.items():
            if s["in_collective"]:
                fails.append(f"ckpt {n} rank {r}: inside a collective")
            for g in s["groups"]:
                if g["seq"] != g["target"]:
                    fails.append(f"ckpt {n} rank {r}: ggid {g['ggid']} SEQ {g['seq']} != TARGET {g['target']}")
                if r not in g["members"]:
                    fails.append(f"ckpt {n} rank {r}: logged ggid {g['ggid']} without being a member")
                seqs.setdefault((g["ggid"], tuple(g["members"])), {})[r] = g["seq"]
        for (gg, members), by in seqs.items():
            if sorted(by) != sorted(members):
                fails.append(f"ckpt {n}: ggid {gg} members {list(members)} but logged by {sorted(by)}")
            if len(set(by.values())) != 1:
                fails.append(f"ckpt {n}: ggid {gg} SEQ differs between members: {by}")
        for i in range(np):
            for j in range(np):
                if safe[i]["sent"][j] != safe[j]["recvd"][i]:
                    fails.append(f"ckpt {n}: rank {i} sent {safe[i]['sent'][j]} to {j}, "
                                 f"which received {safe[j]['recvd'][i]} (a message in flight)")
        st = sum(s["sent_total"] for s in safe.values())
        rt = sum(s["recvd_total"] for s in safe.values())
        if st != rt:
            fails.append(f"ckpt {n}: {st} messages sent, {rt} received")
        t_req = min(e["t"] for r in ev for e in ev[r] if e["ev"] == "request" and e["ckpt"] == n)
        calls = sorted({s["call"] for s in safe.values()})
        pend = sum(s["pending_icoll"] for s in safe.values())
        print(f"ckpt {n}: {np} ranks safe, {len(seqs)} groups at SEQ=TARGET, calls {','.join(calls)}, "
              f"pending icoll {pend}, messages {st}/{rt}")
    for f in fails:
        print("FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
