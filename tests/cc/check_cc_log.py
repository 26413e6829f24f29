#!/usr/bin/env python3
"""Check the per-rank state logs of libisochron-cc.so (ISOCHRON_CC_LOG=DIR,
DIR/cc-log.RANK.jsonl) against the safe-state invariants of paper 003
(sections 4.2-4.3) and the checkpoint contract of include/isochron/cc.h.

At every safe state (event "safe", one per rank per checkpoint):
  * every group: all its members logged it, with the same member list and the
    same seq, and seq == target (Invariant 2: every started collective is
    finished everywhere; no rank is behind its group's target);
  * no rank inside a collective (Invariant 1): in_collective is false;
  * no non-blocking collective pending: pending_icoll == 0;
  * no point-to-point message in flight: sent[i->j] == recvd[j<-i], all pairs.
Sequence: checkpoint numbers are consecutive (from restarted+1 after a
restart), identical on all ranks, each appears exactly once per rank, and on
every rank safe N is followed by saved N and then resume N, before safe N+1.
Requests: a request event on a rank is served by the checkpoint in progress
on that rank when it was logged (merged: logged between safe N and resume N)
or else by the next safe state in that rank's log; a request with neither is
lost (failure). Every checkpoint must serve at least one request logged on
some rank (unless --interval: periodic checkpoints need none). With
--requests K, the number of distinct requests (by "id" when the log has one,
else request events on the rank that issued them, "origin"/"from"/"rank",
else all request events) must be K.

--partial (a killed job): the last checkpoint may lack ranks or its saved and
resume events, and requests after the last safe state may be unserved.
--latency prints, per checkpoint, the time from the request to the safe event
and to the resume event on the rank that made the request (seconds, that
rank's log clock "t": clocks of different ranks need not share an origin). Standard library only. Exit status 0 when every check passes.
"""
import argparse
import glob
import json
import os
import re
import sys


def load(logdir):
    logs = {}
    for path in glob.glob(os.path.join(logdir, "cc-log.*.jsonl")):
        m = re.search(r"cc-log\.(\d+)\.jsonl$", path)
        if not m:
            continue
        evs = []
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    evs.append(json.loads(line))
                except ValueError as e:
                    raise SystemExit(f"check_cc_log: {path}:{n}: not JSON ({e}): {line[:80]}")
        logs[int(m.group(1))] = evs
    return logs


def origin(ev):
    for k in ("origin", "from", "rank", "src_rank"):
        if isinstance(ev.get(k), int):
            return ev[k]
    return None


def check(logs, np_, restarted=0, nrequests=None, interval=False, latency=False, partial=False, out=print):
    fails = []

    def fail(msg):
        fails.append(msg)
        out("FAIL " + msg)

    ranks = sorted(logs)
    if np_ is not None and ranks != list(range(np_)):
        fail(f"logs for ranks {ranks}, expected 0..{np_ - 1}")
    np_ = len(ranks) if np_ is None else np_
    safe = {}      # ckpt -> rank -> event
    for r in ranks:
        seqs = [e for e in logs[r] if e.get("ev") in ("safe", "saved", "resume")]
        # per-rank order: safe N, saved N, resume N, safe N+1 ...
        state, cur = "idle", None
        for e in seqs:
            ev, n = e["ev"], e.get("ckpt")
            if ev == "resume" and state == "idle" and cur is None and n == restarted and restarted:
                continue   # resume logged after a restart from checkpoint n
            if ev == "safe":
                if state != "idle":
                    fail(f"rank {r}: safe {n} while checkpoint {cur} is at '{state}'")
                if cur is not None and n != cur + 1:
                    fail(f"rank {r}: checkpoint {n} follows {cur} (not consecutive)")
                if n in safe and r in safe[n]:
                    fail(f"rank {r}: two safe states for checkpoint {n}")
                safe.setdefault(n, {})[r] = e
                state, cur = "safe", n
            elif ev == "saved":
                if state != "safe" or n != cur:
                    fail(f"rank {r}: saved {n} not right after safe {n} (state {state}, checkpoint {cur})")
                state = "saved"
            elif ev == "resume":
                if state != "saved" or n != cur:
                    fail(f"rank {r}: resume {n} not right after saved {n} (state {state}, checkpoint {cur})")
                state = "idle"
        if state != "idle" and not partial:
            fail(f"rank {r}: log ends with checkpoint {cur} at '{state}' (no resume)")
    nums = sorted(safe)
    if nums and nums != list(range(restarted + 1, restarted + 1 + len(nums))):
        fail(f"checkpoint numbers {nums} are not {restarted + 1}..{restarted + len(nums)}")
    for n in nums:
        miss = [r for r in ranks if r not in safe[n]]
        if miss and not (partial and n == nums[-1]):
            fail(f"checkpoint {n}: no safe state on ranks {miss}")
        groups = {}   # ggid -> list of (rank, entry)
        for r, e in safe[n].items():
            if e.get("in_collective") is not False:
                fail(f"checkpoint {n} rank {r}: in_collective={e.get('in_collective')} (call {e.get('call')})")
            if e.get("pending_icoll") != 0:
                fail(f"checkpoint {n} rank {r}: pending_icoll={e.get('pending_icoll')}")
            for g in e.get("groups", []):
                groups.setdefault(g["ggid"], []).append((r, g))
                if g.get("seq") != g.get("target"):
                    fail(f"checkpoint {n} rank {r} ggid {g['ggid']} members {g.get('members')}: "
                         f"seq {g.get('seq')} != target {g.get('target')}")
                if r not in g.get("members", []):
                    fail(f"checkpoint {n} rank {r} logged ggid {g['ggid']} whose members {g.get('members')} exclude it")
        for gid, ents in groups.items():
            mem = ents[0][1].get("members", [])
            seqv = {r: g.get("seq") for r, g in ents}
            if any(g.get("members") != mem for _, g in ents):
                fail(f"checkpoint {n} ggid {gid}: member lists differ: {[(r, g.get('members')) for r, g in ents]}")
            absent = [m for m in mem if m not in seqv and m in safe[n]]
            if absent:
                fail(f"checkpoint {n} ggid {gid} members {mem}: ranks {absent} did not log it (seq elsewhere {seqv})")
            if len(set(seqv.values())) > 1:
                fail(f"checkpoint {n} ggid {gid} members {mem}: seq differs across members {seqv}")
        for i in ranks:
            for j in ranks:
                if i not in safe[n] or j not in safe[n]:
                    continue
                si, rj = safe[n][i].get("sent", []), safe[n][j].get("recvd", [])
                if len(si) != np_ or len(rj) != np_:
                    fail(f"checkpoint {n}: sent of rank {i} or recvd of rank {j} has not {np_} entries")
                    continue
                if si[j] != rj[i]:
                    fail(f"checkpoint {n}: in flight {i}->{j}: sent {si[j]} recvd {rj[i]}")
    # requests
    served = {n: [] for n in nums}
    reqs = []
    for r in ranks:
        cur, inprog = None, False
        pendreq = []
        for e in logs[r]:
            ev = e.get("ev")
            if ev == "request":
                if inprog:
                    served.setdefault(cur, []).append((r, e))
                else:
                    pendreq.append(e)
                reqs.append((r, e))
            elif ev == "safe":
                cur, inprog = e.get("ckpt"), True
                for q in pendreq:
                    served.setdefault(cur, []).append((r, q))
                pendreq = []
            elif ev == "resume" and inprog:
                inprog = False
        for q in pendreq if not partial else []:
            fail(f"rank {r}: request at t={q.get('t')} ({json.dumps(q)}) led to no safe state")
    if not interval:
        for n in nums:
            if not served.get(n):
                fail(f"checkpoint {n}: no request precedes it on any rank")
    if nrequests is not None:
        ids = {e["id"] for _, e in reqs if "id" in e}
        if ids:
            k = len(ids)
        elif any(origin(e) is not None for _, e in reqs):
            k = sum(1 for r, e in reqs if origin(e) == r)
        else:
            k = len(reqs)
        if k != nrequests:
            fail(f"{k} requests in the logs, the program issued {nrequests}")
    # latency on the requesting rank's own clock: "t" need not be comparable across ranks
    # (Open MPI's MPI_Wtime counts from a per-process origin)
    lat = []
    for n in nums:
        for r, e in served.get(n, []):
            if origin(e) != r or e.get("joined") or not isinstance(e.get("t"), (int, float)):
                continue
            own = {x.get("ev"): x.get("t") for x in logs[r] if x.get("ckpt") == n and x.get("ev") in ("safe", "resume")}
            if isinstance(own.get("safe"), (int, float)) and isinstance(own.get("resume"), (int, float)):
                lat.append((n, own["safe"] - e["t"], own["resume"] - e["t"]))
                if latency:
                    out(f"latency ckpt {n} rank {r} request_to_safe {own['safe'] - e['t']:.6f} "
                        f"request_to_resume {own['resume'] - e['t']:.6f}")
            break
    ok = not fails
    out(f"check_cc_log: ranks {len(ranks)} checkpoints {len(nums)} requests {len(reqs)}: {'PASS' if ok else 'FAIL'}")
    return ok, len(nums), lat


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logdir")
    ap.add_argument("--np", type=int, help="number of ranks (all logs must be present)")
    ap.add_argument("--restarted", type=int, default=0, help="checkpoint the run restarted from (0: none)")
    ap.add_argument("--requests", type=int, help="number of requests the program issued")
    ap.add_argument("--min-checkpoints", type=int, default=0)
    ap.add_argument("--interval", action="store_true", help="periodic checkpoints need no request")
    ap.add_argument("--partial", action="store_true",
                    help="the job was killed: the last checkpoint may be incomplete and late requests unserved")
    ap.add_argument("--latency", action="store_true", help="print request-to-safe/resume per checkpoint")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.logdir):
        print(f"check_cc_log: {a.logdir} is not a directory")
        return 2
    logs = load(a.logdir)
    if not logs:
        print(f"FAIL no cc-log.RANK.jsonl in {a.logdir}")
        return 1
    ok, n, _ = check(logs, a.np, a.restarted, a.requests, a.interval, a.latency, a.partial)
    if n < a.min_checkpoints:
        print(f"FAIL {n} checkpoints, expected at least {a.min_checkpoints}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
