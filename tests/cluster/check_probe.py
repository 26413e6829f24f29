#!/usr/bin/env python3
"""Check cluster_probe's output (tests/cluster/probe.c) against the cluster's state file.

Design. The truth is what tools/cluster configured and the kernel confirmed at `up` (the state file
/run/isochron-cluster/NAME/nodes: hostname and CLOCK_MONOTONIC offset per node), plus this host's
boot_id; the probe's lines are what MPI ranks saw. Every rank must sit on a node of the cluster,
read that node's offset in /proc/self/timens_offsets, and show it in its clocks: CLOCK_MONOTONIC -
CLOCK_REALTIME (REALTIME is not namespaced) differs from node 0's by the offset difference, to
within TOL_NS (the probe reads both clocks within ~0.1 µs; the margin covers NTP slewing of
REALTIME during the run). The MPI library must see the nodes: MPI_Comm_split_type(SHARED) size
equals the number of ranks with that hostname, and the ranks span at least MIN_NODES nodes.

usage: check_probe.py NODES_FILE PROBE_OUTPUT NRANKS MIN_NODES LABEL
"""
import sys

TOL_NS = 50_000_000  # 50 ms: REALTIME slewed by NTP (at most 500 ppm) over a run of seconds, with margin


def main():
    nodes_file, out_file, nranks, min_nodes, label = sys.argv[1:6]
    nranks, min_nodes = int(nranks), int(min_nodes)
    errors = []

    def fail(msg):
        errors.append(f"{label}: {msg}")

    nodes = {}
    for line in open(nodes_file):
        if line.startswith("#") or not line.strip():
            continue
        k, host, addr, off, pid, ns = line.split()
        nodes[host] = {"k": int(k), "offset_s": int(off), "addr": addr}
    with open("/proc/sys/kernel/random/boot_id") as f:
        boot_id = f.read().strip()

    ranks = {}
    pingpong = None
    for line in open(out_file):
        line = line.strip()
        if line.startswith("rank="):
            kv = dict(f.split("=", 1) for f in line.split())
            ranks[int(kv["rank"])] = kv
        elif line.startswith("pingpong "):
            pingpong = dict(f.split("=", 1) for f in line.split()[1:])

    if sorted(ranks) != list(range(nranks)):
        fail(f"expected rank lines 0..{nranks - 1}, got {sorted(ranks)}")
        report(errors)
    node0 = min(nodes, key=lambda h: nodes[h]["k"])
    ref = None
    for r, kv in sorted(ranks.items()):
        host = kv["host"]
        if host not in nodes:
            fail(f"rank {r} runs on host '{host}', not a node of the cluster ({', '.join(sorted(nodes))})")
            continue
        if kv["boot_id"] != boot_id:
            fail(f"rank {r} boot_id {kv['boot_id']} differs from this kernel's {boot_id}")
        want = nodes[host]["offset_s"]
        if int(kv["timens_monotonic_s"]) != want:
            fail(f"rank {r} on {host}: /proc/self/timens_offsets monotonic {kv['timens_monotonic_s']} s, configured {want} s")
        if host == node0 and ref is None:
            ref = int(kv["mono_minus_real_ns"]) - want * 1_000_000_000
    if ref is None:
        # no rank on node 0: refer to the first rank's node instead
        r0 = ranks[min(ranks)]
        ref = int(r0["mono_minus_real_ns"]) - nodes[r0["host"]]["offset_s"] * 1_000_000_000
    for r, kv in sorted(ranks.items()):
        host = kv["host"]
        if host not in nodes:
            continue
        got = int(kv["mono_minus_real_ns"]) - ref
        want_ns = nodes[host]["offset_s"] * 1_000_000_000
        if abs(got - want_ns) > TOL_NS:
            fail(f"rank {r} on {host}: CLOCK_MONOTONIC - CLOCK_REALTIME is {got / 1e9:.6f} s from the reference, "
                 f"configured offset {want_ns / 1e9:.0f} s (tolerance {TOL_NS / 1e9} s)")
        same = sum(1 for v in ranks.values() if v["host"] == host)
        if int(kv["node_size"]) != same:
            fail(f"rank {r} on {host}: MPI_Comm_split_type(SHARED) size {kv['node_size']}, but {same} rank(s) run on {host}")
    hosts = {kv["host"] for kv in ranks.values()}
    if len(hosts) < min_nodes:
        fail(f"ranks ran on {len(hosts)} node(s) ({', '.join(sorted(hosts))}), expected at least {min_nodes}")
    if pingpong is not None:
        if pingpong["peer_host"] == ranks[0]["host"] and len(hosts) > 1:
            fail(f"ping-pong peer {pingpong['peer']} is on rank 0's host {pingpong['peer_host']}")
        print(f"{label}: ping-pong rank 0 ({ranks[0]['host']}) <-> rank {pingpong['peer']} ({pingpong['peer_host']}), "
              f"8 B, n={pingpong['n']}: median {pingpong['rtt_median_us']} us, min {pingpong['rtt_min_us']} us, "
              f"max {pingpong['rtt_max_us']} us")
    report(errors, label, nranks, hosts, nodes)


def report(errors, label="", nranks=0, hosts=(), nodes=None):
    if errors:
        for e in errors:
            print("FAIL " + e)
        sys.exit(1)
    offs = ", ".join(f"{h}={nodes[h]['offset_s']} s" for h in sorted(hosts))
    print(f"ok {label}: {nranks} ranks on {len(hosts)} nodes; hostnames, timens offsets ({offs}), "
          f"monotonic-realtime differences, boot_id and split_type(SHARED) sizes as configured")


if __name__ == "__main__":
    main()
