#!/usr/bin/env python3
"""doc-pictures: the pictures of the documentation (issue 36), drawn with matplotlib.

  roundtime.png  Round-Time (paper 000, Alg. 5) as a timeline, from a real run: each rank's start
                 and end of consecutive repetitions on the global clock, read from an
                 isochron-bench JSON Lines file written with --raw (one point, the scheme roundtime).
  sync-tree.png  the hierarchical synchronization H2HCA (paper 000, Alg. 4; --sync hca3+prop or
                 hca3+hca3): HCA3 among the node leaders, then within each node. A scheme, no data.

  .venv/bin/python tools/doc-pictures.py BENCH_RAW.jsonl [OUTDIR]    (default docs/img)
Regenerate after a change to the scheme or the sync: e.g.
  tools/mpirun-local -np 4 build/isochron-bench --ops allreduce --sizes 1K --raw --jsonl rt.jsonl
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

src = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "img")
os.makedirs(out, exist_ok=True)

point = ctx = None
for line in open(src, encoding="utf-8"):
    r = json.loads(line)
    if r.get("type") == "context":
        ctx = r
    if r.get("type") == "point" and r.get("scheme", "roundtime") == "roundtime" and isinstance(r.get("raw"), dict):
        point = r
        break
if point is None:
    sys.exit(f"doc-pictures: {src}: no roundtime point with raw repetitions (--raw)")
raw = point["raw"]
starts, ends, valid = raw["start_s"], raw["end_s"], raw["valid"]
n = min(6, len(starts))
k0 = next((i for i in range(len(valid) - n + 1) if 0 in valid[i:i + n]), 0)   # show an invalid one if any
reps = range(k0, k0 + n)
t0 = min(starts[k0])
nranks = len(starts[k0])
fig, ax = plt.subplots(figsize=(10, 0.55 * nranks + 1.9), dpi=110)
colors = plt.get_cmap("tab10")
for j, k in enumerate(reps):
    first = (min(starts[k]) - t0) * 1e6
    ax.axvline(first, color="0.4", lw=0.8, ls="--")
    ax.text(first, nranks - 0.35, f"start {k}" + ("" if valid[k] else " (invalid)"), fontsize=8,
            color="0.2" if valid[k] else "#b00", ha="left", va="bottom")
    for rank in range(nranks):
        s, e = (starts[k][rank] - t0) * 1e6, (ends[k][rank] - t0) * 1e6
        ax.barh(rank, e - s, left=s, height=0.6, color=colors(j % 10),
                hatch=None if valid[k] else "///", edgecolor="#b00" if not valid[k] else "none")
ax.set_yticks(range(nranks), [f"rank {r}" for r in range(nranks)])
ax.set_ylim(-0.6, nranks + 0.2)
ax.invert_yaxis()
ax.set_xlabel("time on the global clock since the first start shown [µs]")
mpi = (ctx or {}).get("run", {}).get("mpi_library", "MPI").split(",")[0]
ax.set_title(f"Round-Time: {point['op']} {point['bytes']} B, repetitions {k0}-{k0 + n - 1} of {len(starts)}"
             f" ({nranks} ranks, {mpi}; a real run)\n"
             "each repetition starts at an instant of the global clock (dashed: the first rank's start);"
             " between them rank 0 announces the next instant", fontsize=9)
ax.grid(axis="x", color="0.9")
fig.tight_layout()
fig.savefig(os.path.join(out, "roundtime.png"))
plt.close(fig)

# the hierarchical sync: 2 nodes x 4 ranks
fig, ax = plt.subplots(figsize=(8, 3.6), dpi=110)
ax.axis("off")
ax.set_aspect("equal")
nodes, per = 2, 4
pos = {}
for nd in range(nodes):
    x0 = nd * 5.0
    ax.add_patch(plt.Rectangle((x0 - 0.4, -0.5), per - 0.2, 1.9, fill=False, ec="0.6", ls="--"))
    ax.text(x0 + (per - 1) / 2 - 0.1, 1.25, f"node {nd}", ha="center", fontsize=9, color="0.3")
    for i in range(per):
        rank = nd * per + i
        pos[rank] = (x0 + i * 0.9, 0.0)
        ax.add_patch(plt.Circle(pos[rank], 0.28, color="#4c72b0" if i == 0 else "#a6bddb"))
        ax.text(*pos[rank], str(rank), ha="center", va="center", color="white" if i == 0 else "black", fontsize=9)
        if i:
            ax.annotate("", xy=(pos[rank][0] - 0.3, 0.15), xytext=(pos[nd * per][0] + 0.3, 0.15),
                        arrowprops=dict(arrowstyle="->", color="#2a9d8f", lw=1, connectionstyle="arc3,rad=-0.4"))
ax.annotate("", xy=(pos[per][0], 0.35), xytext=(pos[0][0], 0.35),
            arrowprops=dict(arrowstyle="<->", color="#c44e52", lw=2, connectionstyle="arc3,rad=-0.25"))
ax.text((pos[0][0] + pos[nodes * per - 1][0]) / 2, 2.05, "level 1: HCA3 among the node leaders (ranks 0 and 4), over the network",
        ha="center", color="#c44e52", fontsize=9)
ax.text((pos[0][0] + pos[nodes * per - 1][0]) / 2, -1.25, "level 2, within each node: hca3 (HCA3 among the node's ranks)\n"
        "or prop (copy the leader's model: needs one time source per node)", ha="center", color="#2a9d8f", fontsize=9)
ax.set_xlim(-1.2, nodes * 5.0 - 0.6)
ax.set_ylim(-1.9, 2.4)
ax.set_title("--sync hca3+prop (H2HCA, paper 000 Alg. 4): the global clock is rank 0's", fontsize=10)
fig.tight_layout()
fig.savefig(os.path.join(out, "sync-tree.png"))
plt.close(fig)
print(f"doc-pictures: {out}/roundtime.png (from {os.path.basename(src)}), {out}/sync-tree.png")
