"""Report of bench/papers/paper002.sh: isochron-shmem's measurements of paper 002 (Coti & Malony,
SKaMPI-OpenSHMEM) beside what the paper reports, as text on stdout and one figure.

usage: paper002_report.py RESULTS.jsonl FIGURE.png TITLE   (the run's context is printed by the script)

The paper's Figs. 4-9 are plots whose data are not in its text (measured on Summit: IBM Spectrum
MPI/OpenSHMEM 10.3, InfiniBand EDR); what the text says about each figure is quoted as the
paper's result, and each is checked against the measurement here ("holds" / "does not hold" /
"n/a" when the run lacks the data). No number is read off the plots.
"""
import report_common

recs, figpath, title = report_common.args()
WHERE = {"intra": "single node (2 PEs, shared memory)", "inter": "two nodes (tools/cluster, 1 PE each, UCX over TCP)"}


def t(x):
    return report_common.fmt_time(x, ns=1, us=2)


def sz(b):
    return f"{b} B" if b < 1024 else f"{b // 1024} KiB" if b < 1 << 20 else f"{b >> 20} MiB"


def pick(where, fig, op, size=None, np_=None):
    for r in recs:
        if r["where"] == where and r["fig"] == fig and r["op"] == op and (size is None or r["bytes"] == size) \
                and (np_ is None or r["nprocs"] == np_):
            return r
    return None


def val(r, key="mean_s"):
    """a point's time, or None (no time: a library defect, or nothing valid)"""
    if r is None or r.get(key) is None:
        return None
    return r[key]


def cell(r, key="mean_s"):
    if r is None:
        return "-"
    if r.get("library_defect"):
        return "defect"
    x, res = r.get(key), r.get("resolution_s")
    if x is None:
        return "-"
    return f"<= {t(res)}" if res and x < res else t(x)


def verdict(ok):
    return "n/a" if ok is None else "holds" if ok else "does not hold"


def sizes_of(where, fig):
    return sorted({r["bytes"] for r in recs if r["where"] == where and r["fig"] == fig and r["bytes"]})


def places(fig, header):
    """each place with sizes measured for fig, as (where, sizes), once its heading and the table's header
    (header, then a column per size) are printed"""
    for w in wheres:
        ss = sizes_of(w, fig)
        if ss:
            print(f"\n{WHERE[w]}")
            print(header + "".join(f"{sz(s):>14}" for s in ss))
            yield w, ss


wheres = [w for w in ("intra", "inter") if any(r["where"] == w for r in recs)]
print("\nThe paper's Figs. 4-9 are plots with no values in its text (and the plots themselves are not in the text this\n"
      "project has), so no value is read off them: the paper's column is what its text states about each figure.")
print("Times are per operation, means of the repetitions' per-operation times (loops timed outside unless said),\n"
      "'<= R': below the point's timing resolution R (a subtraction within its parts' resolution).")

# ---- Fig. 4 ----
print("\n== Fig. 4: loop-timing granularity on put_nbi + quiet (Alg. 6 outside, 7 inside, 8 around quiet, 9 subtraction) ==")
print('paper (sec. 4.1): "iteration-level measurement introduce a very significant latency, which is not visible for longer\n'
      'measurements that are not latency-bound (higher buffer sizes)"; Fig. 4(a) single node, 4(b) two nodes.')
claims = []
for w, ss in places("4", f"{'variant':<15} {'paper':<7} {'measures':<9}"):
    for op, alg, what in (("loop_outside", "Alg. 6", "full"), ("loop_inside", "Alg. 7", "full"), ("loop_quiet", "Alg. 8", "quiet"),
                          ("loop_subtract", "Alg. 9", "quiet")):
        print(f"{op:<15} {alg:<7} {what:<9}" + "".join(f"{cell(pick(w, '4', op, s)):>14}" for s in ss))
    ratio = []
    for s in ss:
        o, i = val(pick(w, "4", "loop_outside", s)), val(pick(w, "4", "loop_inside", s))
        ratio.append(i / o if o and i and o > 0 else None)
    print(f"{'inside/outside':<33}" + "".join(f"{(f'{x:.2f}x' if x else '-'):>14}" for x in ratio))
    ok = None
    if ratio[0] and ratio[-1]:
        ok = ratio[0] > 1.2 and ratio[-1] < ratio[0] and ratio[-1] < 1.2
    claims.append(("Fig. 4", w, "timer per iteration inflates small sizes, not large", ok,
                   f"inside/outside {ratio[0]:.2f}x at {sz(ss[0])}, {ratio[-1]:.2f}x at {sz(ss[-1])}" if ratio[0] and ratio[-1] else ""))

# ---- Fig. 5 ----
print("\n== Fig. 5: the overlap measurement (post + computation + quiet; time in the two calls), loop timed outside vs inside ==")
print('paper (sec. 4.1): "the latency introduced by the iteration-level measurement strategy is such that the numbers\n'
      'returned by this method are too far from reality for small messages"')
for w, ss in places("5in", f"{'operation':<17} {'loop':<8}"):
    for op in ("put_nbi_overlap", "get_nbi_overlap"):
        for lab, fig in (("outside", "6"), ("inside", "5in")):
            print(f"{op:<17} {lab:<8}" + "".join(f"{cell(pick(w, fig, op, s)):>14}" for s in ss))
    o, i = val(pick(w, "6", "put_nbi_overlap", ss[0])), val(pick(w, "5in", "put_nbi_overlap", ss[0]))
    ol, il = val(pick(w, "6", "put_nbi_overlap", ss[-1])), val(pick(w, "5in", "put_nbi_overlap", ss[-1]))
    ok = None if not (o and i and ol and il and o > 0 and ol > 0) else (i / o > 1.2 and il / ol < i / o)
    claims.append(("Fig. 5", w, "iteration timers distort the overlap measurement at small sizes", ok,
                   f"put inside/outside {i / o:.2f}x at {sz(ss[0])}, {il / ol:.2f}x at {sz(ss[-1])}" if ok is not None else ""))

# ---- Fig. 6 ----
P6 = ["get", "put", "put_nbi_post", "put_nbi_quiet", "put_nbi_full", "get_nbi_post", "get_nbi_quiet", "get_nbi_full"]
print("\n== Fig. 6: point-to-point breakdown: blocking vs non-blocking post / quiet / full (PE 0 -> PE 1) ==")
print('paper (sec. 4.2): "blocking communications have a smaller latency than a non-blocking communication followed by a\n'
      'shmem_quiet"; the figure breaks the non-blocking time into posting and waiting (intra: time spent in quiet, sec. 4.3)')
for w, ss in places("6", f"{'operation':<15}"):
    for op in P6 + ["quiet", "quiet_empty"]:
        if any(pick(w, "6", op, s) for s in ss) or op.startswith("quiet"):
            line = f"{op:<15}"
            for s in ss:
                r = pick(w, "6", op, s) or (pick(w, "6", op) if op.startswith("quiet") and s == ss[0] else None)
                line += f"{cell(r):>14}"
            print(line)
    for kind in ("put", "get"):
        wins = []
        for s in ss:
            b, f = val(pick(w, "6", kind, s)), val(pick(w, "6", kind + "_nbi_full", s))
            if b is not None and f is not None:
                wins.append(b <= f)
        ok = None if not wins else sum(wins) > len(wins) / 2
        claims.append(("Fig. 6", w, f"blocking {kind} < {kind}_nbi + quiet", ok, f"{sum(wins)} of {len(wins)} sizes" if wins else ""))

# ---- Fig. 7 ----
print("\n== Fig. 7: overlap: the full non-blocking operation vs the time in post + quiet around a computation of twice it ==")
print('paper (sec. 4.3): inter-node (Summit\'s InfiniBand progresses in the background) "achieves good overlap"; intra-node\n'
      '"communications cannot progress in the background": the time in the calls equals the back-to-back time, spent in quiet')
for w in wheres:
    ss = sizes_of(w, "6")
    print(f"\n{WHERE[w]}")
    print(f"{'':<26}" + "".join(f"{sz(s):>14}" for s in ss))
    for kind in ("put", "get"):
        print(f"{kind + '_nbi_full':<26}" + "".join(f"{cell(pick(w, '6', kind + '_nbi_full', s)):>14}" for s in ss))
        print(f"{kind + '_nbi_overlap (calls)':<26}" + "".join(f"{cell(pick(w, '6', kind + '_nbi_overlap', s)):>14}" for s in ss))
        ovs = []
        line = f"{'  overlap':<26}"
        for s in ss:
            r = pick(w, "6", kind + "_nbi_overlap", s)
            ov = r.get("overlap") if r else None
            line += f"{(f'{100 * ov:.0f}%' if ov is not None else '-'):>14}"
            if ov is not None and s >= 4096:
                ovs.append(ov)
        print(line)
        if ovs:
            m = sum(ovs) / len(ovs)
            if w == "intra":
                claims.append(("Fig. 7", w, f"{kind}: no overlap within a node", m < 0.3, f"mean overlap {100 * m:.0f}% at >= 4 KiB"))
            else:
                claims.append(("Fig. 7", w, f"{kind}: good overlap between nodes", m > 0.7, f"mean overlap {100 * m:.0f}% at >= 4 KiB"))

# ---- Fig. 8 ----
print("\n== Fig. 8: the broadcast measurement algorithms (median; root 0) ==")
print('paper (sec. 4.4), at 1344 and 2016 processes: "we expect the in round approach to give a smaller value" (pipelining);\n'
      '"the broadcast separated by barriers can give smaller measurement values"; "the other algorithms give very similar results"')
nps = sorted({r["nprocs"] for r in recs if r["fig"] == "8"})
bss = sorted({r["bytes"] for r in recs if r["fig"] == "8"})
M8 = (("bcast_barrier", "Alg. 1 barrier"), ("bcast_sync", "Alg. 2 clock sync"), ("bcast_rounds", "Alg. 3 in rounds"), ("bcast_ack", "Alg. 4-5 ack"),
      ("bcast_busy", "SK, busy-separated"))
if nps:
    print(f"{'method':<20}" + "".join(f"{str(n) + ' PEs ' + sz(s):>17}" for n in nps for s in bss))
    for op, lab in M8:
        print(f"{lab:<20}" + "".join(f"{cell(pick('intra', '8', op, s, n), 'median_s'):>17}" for n in nps for s in bss))
    rounds_min, barrier_lt, n_cmp = 0, 0, 0
    for n in nps:
        for s in bss:
            v = {op: val(pick("intra", "8", op, s, n), "median_s") for op, _ in M8[:4]}
            if all(x is not None for x in v.values()):
                n_cmp += 1
                rounds_min += v["bcast_rounds"] <= min(v.values())
                barrier_lt += v["bcast_barrier"] < min(v["bcast_sync"], v["bcast_ack"])
    claims.append(("Fig. 8", "intra", "in rounds gives the smallest value", rounds_min > n_cmp / 2 if n_cmp else None, f"{rounds_min} of {n_cmp} points"))
    claims.append(("Fig. 8", "intra", "barrier-separated below sync and ack", barrier_lt > n_cmp / 2 if n_cmp else None, f"{barrier_lt} of {n_cmp} points"))
sim = [r for r in recs if r["where"] == "sim"]
if sim:
    print("\nnearest at scale: the same four methods on MPI_Bcast in SimGrid (isochron-bench, fat tree, 1 us links; no OpenSHMEM there)")
    snp = sorted({r["nprocs"] for r in sim})
    sbs = sorted({r["bytes"] for r in sim})
    SIMC = (("8-alg1", "Alg. 1 analog: --scheme barrier --method max"), ("8-alg2", "Alg. 2 analog: --scheme roundtime (global clock)"),
            ("8-alg3", "Alg. 3 analog: back to back, root rotating"), ("8-alg45", "Alg. 4-5 analog: --method ack (de Supinski-Karonis)"))
    print(f"{'configuration':<52}" + "".join(f"{str(n) + ' ranks ' + sz(s):>18}" for n in snp for s in sbs))
    for fig, lab in SIMC:
        line = f"{lab:<52}"
        for n in snp:
            for s in sbs:
                r = next((x for x in sim if x["fig"] == fig and x["nprocs"] == n and x["bytes"] == s), None)
                line += f"{cell(r, 'median_s'):>18}"
        print(line)
    for n in snp:
        for s in sbs:
            v = {f: next((x["median_s"] for x in sim if x["fig"] == f and x["nprocs"] == n and x["bytes"] == s and x.get("median_s") is not None), None) for f, _ in SIMC}
            if all(x is not None for x in v.values()):
                claims.append(("Fig. 8", f"sim {n}", f"in rounds smallest ({sz(s)})", v["8-alg3"] <= min(v.values()), ""))

# ---- Fig. 9 ----
print("\n== Fig. 9: global locks (mean per operation) vs PEs ==")
print('paper (sec. 4.5): (a) acquisition and release, (b) test, and their scalability (no number in the text)')
L9 = (("lock", "set + clear, uncontended"), ("lock_contended", "set + increment + clear, all PEs"), ("lock_roundrobin", "turns in rank order, per turn"),
      ("test_lock", "test_lock (free) + clear"), ("test_lock_busy", "test_lock on a held lock, PE 0"),
      ("test_lock_busy_all", "held lock, all others test at once"), ("test_lock_busy_turns", "held lock, others test in turn"),
      ("test_lock_busy_round", "each PE holds in turn, others test"))
cols = [(w, n) for w in wheres for n in sorted({r["nprocs"] for r in recs if r["where"] == w and r["fig"] == "9"})]
print(f"{'operation':<21} {'':<36}" + "".join(f"{w + ' ' + str(n) + ' PEs':>16}" for w, n in cols))
for op, lab in L9:
    print(f"{op:<21} {lab:<36}" + "".join(f"{cell(pick(w, '9', op, None, n)):>16}" for w, n in cols))

# ---- atomics ----
amo = [r for r in recs if r["fig"] == "amo"]
if amo:
    print("\n== Atomics (measured by the paper's SKaMPI-OpenSHMEM, no figure): 8 B, mean per operation ==")
    for n in sorted({r["nprocs"] for r in amo}):
        rs = [r for r in amo if r["nprocs"] == n]
        print(f"{n} PEs: " + ", ".join(f"{r['op']} {cell(r)}" for r in rs))

# ---- summary ----
print("\n== The paper's claims, checked here ==")
print(f"{'figure':<8} {'where':<10} {'claim':<66} {'here':<14} evidence")
for fig, w, claim, ok, ev in claims:
    print(f"{fig:<8} {w:<10} {claim:<66} {verdict(ok):<14} {ev}")

# ---- figure ----
fig, axs = report_common.panels()


def series(ax, w, figtag, op, label, style, key="mean_s", color=None):
    ss = sizes_of(w, figtag)
    xs, ys = [], []
    for s in ss:
        v = val(pick(w, figtag, op, s), key)
        if v is not None and v > 0:
            xs.append(s)
            ys.append(v * 1e6)
    if xs:
        ax.plot(xs, ys, style, label=label, ms=4, **({"color": color} if color else {}))


for k, w in enumerate(wheres[:2]):
    ax = axs[0][k]
    for op, st_ in (("loop_outside", "k-o"), ("loop_inside", "r-s"), ("loop_quiet", "b--^"), ("loop_subtract", "g--D")):
        series(ax, w, "4", op, op, st_)
    series(ax, w, "6", "put_nbi_overlap", "put_nbi_overlap (outside)", "m-x")
    series(ax, w, "5in", "put_nbi_overlap", "put_nbi_overlap (inside)", "m:+")
    report_common.axes(ax, "bytes", "us per operation", f"Figs. 4-5: loop granularity, {w}", xlog=2, ylog=True, legend=dict(fontsize=6))
ax = axs[0][2]
for w, ls in (("intra", "-"), ("inter", "--")):
    for op, c in (("put", "k"), ("put_nbi_post", "tab:blue"), ("put_nbi_quiet", "tab:orange"), ("put_nbi_full", "tab:red"), ("get", "0.5"), ("get_nbi_full", "tab:purple")):
        series(ax, w, "6", op, f"{op} {w}", ls, "mean_s", c)
report_common.axes(ax, "bytes", "us per operation", "Fig. 6: breakdown (solid intra, dashed inter)", xlog=2, ylog=True,
                   legend=dict(fontsize=5, ncol=2))
ax = axs[1][0]
for w, ls in (("intra", "-"), ("inter", "--")):
    for kind, c in (("put", "tab:red"), ("get", "tab:blue")):
        ss = sizes_of(w, "6")
        xs, ys = [], []
        for s in ss:
            r = pick(w, "6", kind + "_nbi_overlap", s)
            if r and r.get("overlap") is not None:
                xs.append(s)
                ys.append(100 * r["overlap"])
        if xs:
            ax.plot(xs, ys, ls, color=c, marker="o", ms=4, label=f"{kind} {w}")
ax.set_ylim(-5, 105)
report_common.axes(ax, "bytes", "overlap (%)", "Fig. 7: overlap of non-blocking put/get with computation", xlog=2, legend=dict(fontsize=7))
ax = axs[1][1]
for (op, lab), c in zip(M8, ("tab:red", "tab:green", "tab:blue", "k", "tab:purple")):
    for s, ls in zip(bss, ("-", "--", ":", "-.")):
        xs = [n for n in nps if val(pick("intra", "8", op, s, n), "median_s")]
        ys = [val(pick("intra", "8", op, s, n), "median_s") * 1e6 for n in xs]
        ys = [max(y, 1e-3) for y in ys]
        if xs:
            ax.plot(xs, ys, ls, color=c, marker="o", ms=4, label=f"{lab} {sz(s)}")
report_common.axes(ax, "PEs (single node)", "us (median)", "Fig. 8: broadcast measurement algorithms", ylog=True, legend=dict(fontsize=5, ncol=2))
ax = axs[1][2]
for (op, lab), c in zip(L9, ("tab:red", "tab:orange", "tab:blue", "k", "tab:green", "tab:olive", "tab:cyan", "tab:purple")):
    xs = [n for w, n in cols if w == "intra" and val(pick("intra", "9", op, None, n))]
    if xs:
        ax.plot(xs, [val(pick("intra", "9", op, None, n)) * 1e6 for n in xs], "-o", color=c, ms=4, label=f"{op} (single node)")
    xi = [n for w, n in cols if w == "inter" and val(pick("inter", "9", op, None, n))]
    if xi:
        ax.plot(xi, [val(pick("inter", "9", op, None, n)) * 1e6 for n in xi], "s", color=c, ms=6, mfc="none", label=f"{op} (two nodes)")
report_common.axes(ax, "PEs", "us per operation", "Fig. 9: global locks", ylog=True, legend=dict(fontsize=6))
report_common.save(fig, figpath, "paper 002 reproduced: " + title)
