#!/usr/bin/env python3
"""Check what libisochron-trace.so recorded of tests/trace/trace_calls.c (issue 15); stdlib only.

usage: check_calls.py DIR NAME NP [--only SEL]

Every rank's events (the Perfetto JSON) must carry, per call of trace_calls.c,
the bytes (count x type size; the block received for MPI_Scatter), the peer,
the root, the communicator's label and size, and collectives must be named
"MPI_Bcast (comm1, 3 ranks)". With --only SEL (the ISOCHRON_TRACE_CALLS value
of the run, function names and mpi.tbl categories) exactly the selected calls
must be there. Prints "calls: PASS" or "calls: FAIL: ..." lines.
"""
import json
import sys


def expected(r, n):
    half = n // 2 if r < n // 2 else n - n // 2
    # call: (bytes, peer, root, comm label or None (any non-world), comm size)
    return {
        "MPI_Scatter": (16, -1, 1, "world", n),
        "MPI_Gather": (12, -1, 2, "world", n),
        "MPI_Comm_dup": (-1, -1, -1, "world", n),
        "MPI_Bcast": (20, -1, 0, None, n),
        "MPI_Comm_split": (-1, -1, -1, "world", n),
        "MPI_Allreduce": (8, -1, -1, None, half),
        "MPI_Irecv": (16, (r + n - 1) % n, -1, "world", n),
        "MPI_Isend": (16, (r + 1) % n, -1, "world", n),
        "MPI_Waitall": (-1, -1, -1, "-", 0),
        "MPI_Win_create": (-1, -1, -1, "world", n),
        "MPI_Win_fence": (-1, -1, -1, "-", 0),
        "MPI_Put": (12, (r + 1) % n, -1, "-", 0),
        "MPI_Get": (8, (r + 2) % n, -1, "-", 0),
        "MPI_Win_free": (-1, -1, -1, "-", 0),
    }


RMA = {"MPI_Win_create", "MPI_Win_fence", "MPI_Put", "MPI_Get", "MPI_Win_free"}


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1].split(",")
        del args[i:i + 2]
    d, name, n = args[0], args[1], int(args[2])
    fails = []
    evs = [e for e in json.load(open(f"{d}/{name}.json"))["traceEvents"] if e.get("ph") == "X"]
    for r in range(n):
        mine = [e for e in evs if e["tid"] == r]
        calls = {e["args"]["call"] for e in mine}
        if only is not None:
            want = {c for c in expected(r, n) if c in only or ("rma" in only and c in RMA)}
            want |= {"MPI_Comm_free"} if "commfree" in only else set()
            if calls != want:
                fails.append(f"rank {r}: ISOCHRON_TRACE_CALLS={','.join(only)} traced {sorted(calls)}, expected {sorted(want)}")
            continue
        for call, (nbytes, peer, root, comm, csize) in expected(r, n).items():
            got = [e for e in mine if e["args"]["call"] == call]
            if not got:
                fails.append(f"rank {r}: no {call} in the trace")
                continue
            a = got[0]["args"]  # MPI_Allreduce: the first is on the half (the program's last is on world)
            have = (a["bytes"], a["peer"], a["root"], a["comm"] if comm is not None else None, a["comm_size"])
            if have != (nbytes, peer, root, comm, csize):
                fails.append(f"rank {r}: {call}: (bytes, peer, root, comm, comm_size) = {have}, expected {(nbytes, peer, root, comm, csize)}")
            if comm is None and a["comm"] in ("world", "-"):
                fails.append(f"rank {r}: {call} on {a['comm']}, expected a communicator of its own")
            cat = got[0]["cat"]
            if cat in ("coll", "icoll") and got[0]["name"] != f"{call} ({a['comm']}, {csize} ranks)":
                fails.append(f"rank {r}: {call} named {got[0]['name']!r}")
        fence = [e for e in mine if e["args"]["call"] == "MPI_Win_fence"]
        if len(fence) != 4 or any(e["cat"] != "rma" for e in fence):
            fails.append(f"rank {r}: {len(fence)} MPI_Win_fence events (category {fence[0]['cat'] if fence else '-'}), expected 4 (rma)")
        frees = [e["args"]["comm"] for e in mine if e["args"]["call"] == "MPI_Comm_free"]
        bcast = [e["args"]["comm"] for e in mine if e["args"]["call"] == "MPI_Bcast"]
        if len(frees) != 2 or not bcast or frees[0] != bcast[0]:
            fails.append(f"rank {r}: MPI_Comm_free on {frees}, expected twice, first on the Bcast's communicator {bcast}")
    for f in fails:
        print("calls: FAIL:", f)
    print(f"calls: {len(evs)} events on {n} ranks checked{' (selection ' + ','.join(only) + ')' if only else ''}: "
          + ("PASS" if not fails else f"{len(fails)} failures"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
