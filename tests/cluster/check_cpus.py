#!/usr/bin/env python3
"""Each rank ran on its node's CPUs (tests/cluster/run.sh).

usage: check_cpus.py CPUS_FILE NODES_FILE PROBE_OUTPUT LABEL

CPUS_FILE is tools/cluster's state `cpus` ("K cpulist shared_with" per node, "# ..." comments),
NODES_FILE its `nodes` (hostname per node), PROBE_OUTPUT cluster_probe's rank lines (host=, cpus=:
the rank's Cpus_allowed_list). Fails when a rank may run on a CPU outside its node's, or when two
nodes the state says share no CPU had ranks on a common CPU. Truth is the kernel's affinity mask as
each rank read it, compared with what the tool configured.
"""
import sys


def expand(cpulist):
    out = set()
    for part in cpulist.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out


def main():
    cpus_file, nodes_file, out_file, label = sys.argv[1:5]
    host_k = {}
    for line in open(nodes_file):
        if line.strip() and not line.startswith("#"):
            f = line.split()
            host_k[f[1]] = f[0]
    node = {}
    for line in open(cpus_file):
        if line.strip() and not line.startswith("#"):
            k, cpus, shared = line.split()[:3]
            node[k] = (expand(cpus), shared)
    bad, seen = [], {}
    for line in open(out_file):
        if not line.startswith("rank="):
            continue
        kv = dict(f.split("=", 1) for f in line.split())
        if "cpus" not in kv or kv["host"] not in host_k:
            bad.append(f"rank {kv.get('rank')}: no cpus field or host '{kv.get('host')}' not a node")
            continue
        k = host_k[kv["host"]]
        c = expand(kv["cpus"])
        seen.setdefault(k, set()).update(c)
        if not c <= node[k][0]:
            bad.append(f"rank {kv['rank']} on node {k} may run on CPUs {kv['cpus']}, not within the node's {sorted(node[k][0])}")
    if not seen:
        bad.append(f"no rank lines in {out_file}")
    for k in seen:
        for j in seen:
            if j < k and node[k][1] == "-" and seen[k] & seen[j]:
                bad.append(f"nodes {j} and {k} share no CPU by the state, but their ranks ran on {sorted(seen[k] & seen[j])}")
    if bad:
        print(f"{label}: FAIL: " + "; ".join(bad))
        return 1
    print(f"{label}: ok: ranks' CPUs by node {dict((k, sorted(v)) for k, v in sorted(seen.items()))}, as the state's cpus file says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
