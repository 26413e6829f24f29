"""Report of bench/papers/paper004.sh: the measurements of paper 004 (Seidel & Davis, iPSC/860
global synchronization) beside the paper's numbers, as text on stdout and one figure.

usage: paper004_report.py RESULTS.jsonl FIGURE.png TITLE   (the run's context is printed by the script)

The paper's numbers come from its text: Table I (a = 0.36 us/B, b_l = 136 us, b_s = 75 us,
s = 44 us), Table II's formulas evaluated with them, Table III, the cost/precision formulas of
sec. 3.1-3.3 and the success rates stated in sec. 4.2 and 5 (the figures' data points are not
in the text; where a value is read from the text's prose it says so).
"""
import math
import statistics as st

import report_common

PAPER = {"a": 0.36e-6, "b_l": 136e-6, "b_s": 75e-6, "s": 44e-6}
TABLE3 = {2: 645, 3: 1062, 4: 1478, 5: 1895, 6: 2312, 7: 2728}
WHERE = {"sim": "SimGrid, iPSC/860-calibrated crossbar", "real": "this machine, Open MPI shared memory",
         "cluster": "tools/cluster, 2 namespace nodes over TCP"}

recs, figpath, title = report_common.args()
wheres = [w for w in ("sim", "real", "cluster") if any(r["where"] == w for r in recs)]


def t(x):
    return report_common.fmt_time(x, ns=0, us=1)


def perbyte(x):
    return f"{x * 1e9:.3f} ns/B"


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    a = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return a, my - a * mx


# ---- Table I: the constants, fitted per platform ----
const = {}
print("\n== Table I: communication constants (fitted to one-way sends between ranks 0 and 1; medians) ==")
print(f"{'':<48} {'a (per byte)':>14} {'b_l':>10} {'b_s':>10} {'s':>10}")
print(f"{'paper, iPSC/860 (Table I)':<48} {'360 ns/B':>14} {'136 us':>10} {'75 us':>10} {'44 us':>10}")
for w in wheres:
    nul = [r for r in recs if r["where"] == w and r["type"] == "null"]
    snd = [r for r in recs if r["where"] == w and r["type"] == "send"]
    if not nul or not snd:
        continue
    f = sorted((r["bytes"], r["median"]) for r in snd if r["protocol"] == "forced")
    lg = sorted((r["bytes"], r["median"]) for r in snd if r["protocol"] == "long")
    af, bf = fit([x for x, _ in f], [y for _, y in f])
    al, bl = fit([x for x, _ in lg], [y for _, y in lg])
    c = {"a": af, "b_s": nul[0]["b_s"], "b_s_fit": bf, "b_l": bl, "a_long": al, "s": nul[0]["s"]}
    const[w] = c
    print(f"{WHERE[w]:<48} {perbyte(af):>14} {t(bl):>10} {t(c['b_s']):>10} {t(c['s']):>10}")
    print(f"{'  (long fit slope; forced fit intercept)':<48} {perbyte(al):>14} {'':>10} {t(bf):>10}")
print("b_s = null round trip / 2; s = time for a null send to return; a and b_s(fit) from forced sends of 0-64 KiB,\n"
      "b_l from the long protocol's sends (PROBE, REQUEST, data: written explicitly, so b_l ~ 3 b_s here where the\n"
      "iPSC's system-level PROBE/REQUEST made it 1.8 b_s). The simulated platform was calibrated to a and b_s; a send\n"
      "there returns at once (s ~ 0), and real MPI's s is a local copy.")

# ---- Table II ----
def shift_rec(w, p, barrier, proto, m, dl):
    for r in recs:
        if r["type"] == "shift" and (r["where"], r["p"], r["barrier"], r["protocol"], r["bytes"]) == (w, p, barrier, proto, m) \
                and r.get("delta_bs") == dl and "fig" not in r:
            return r
    return None


rows2 = [("send", "short", "b_s", None), ("send", "long", "am + b_l", None), ("send", "forced", "am + b_s", None),
         ("2-1 simple exchange", "long", "am + b_l + d", (2, "none", 0.5)),
         ("2-2 simple exchange", "long", "2am + 1.5 b_l", (2, "none", 2)),
         ("2-3 synch'd simple exch.", "long", "am + b_l + b_s + d", (2, "butterfly", 0.5)),
         ("2-4 synch'd simple exch.", "forced", "am + 2 b_s + d", (2, "butterfly", 0.5)),
         ("2-5 shift", "long", "am + b_l + d", (4, "none", 0.5)),
         ("2-6 shift", "long", "2am + 1.5 b_l", (4, "none", 2)),
         ("2-7 shift", "forced", "am + b_s + d", (4, "none", 2))]


def formula(name, c, m, dl):
    a, bl, bs = c["a"], c["b_l"], c["b_s"]
    d = dl * bs if dl is not None else 0
    return {"b_s": bs, "am + b_l": a * m + bl, "am + b_s": a * m + bs, "am + b_l + d": a * m + bl + d,
            "2am + 1.5 b_l": 2 * a * m + 1.5 * bl, "am + b_l + b_s + d": a * m + bl + bs + d,
            "am + 2 b_s + d": a * m + 2 * bs + d, "am + b_s + d": a * m + bs + d}[name]


if "sim" in const:
    c = const["sim"]
    print("\n== Table II: costs of message passing operations (first start to last end; d = the late node's delay) ==")
    print("paper = the formula with Table I's constants; model = the formula with the simulated platform's fitted constants;")
    print("sim = measured in SimGrid (the exchange is a shift in a ring of 2; the shift a ring of 4; the last rank late by d)")
    for m in (4096, 32768):
        print(f"\n{'m = ' + str(m) + ' B':<26} {'protocol':<8} {'cost':<20} {'d':>6} {'paper':>11} {'model':>11} {'sim':>11}")
        for name, proto, fml, spec in rows2:
            dl = spec[2] if spec else None
            paper = formula(fml, PAPER, m if fml != "b_s" else 0, dl)
            model = formula(fml, c, m if fml != "b_s" else 0, dl)
            if spec is None:
                if fml == "b_s":
                    meas = c["b_s"]
                else:
                    meas = next(r["median"] for r in recs if r["where"] == "sim" and r["type"] == "send" and r["protocol"] == proto and r["bytes"] == m)
            else:
                r = shift_rec("sim", spec[0], spec[1], proto, m, dl)
                meas = st.median(r["total"]) if r and r["total"] else float("nan")
            print(f"{name:<26} {proto:<8} {fml:<20} {('' if dl is None else str(dl) + ' b_s'):>6} {t(paper):>11} {t(model):>11} {t(meas):>11}")
    print("Rows 2-2 and 2-6 (a late node makes the long-protocol messages sequential) need the iPSC's single receive port:\n"
          "SimGrid's links share bandwidth instead, so the simulated cost stays am + b_l + d there (no contention).")

# ---- Table III ----
print("\n== Table III: minimum message length (bytes) for which RDS before a long-protocol shift pays off: m >= (2 d b_s - b_l/2) / a ==")
print(f"{'':<44}" + "".join(f"{'d=' + str(d):>8}" for d in range(2, 8)))
print(f"{'paper (Table III)':<44}" + "".join(f"{TABLE3[d]:>8}" for d in range(2, 8)))


def mmin(c, d):
    return max(0.0, (2 * d * c["b_s"] - c["b_l"] / 2) / c["a"])


print(f"{'formula with Table I (check of the transcription)':<44}" + "".join(f"{math.ceil(mmin(PAPER, d)):>8}" for d in range(2, 8)))
for w in wheres:
    if w in const:
        print(f"{'formula with ' + w + ' constants':<44}" + "".join(f"{math.ceil(mmin(const[w], d)):>8}" for d in range(2, 8)))
print("(the paper offers no empirical confirmation; neither does this script: the crossover needs the non-concurrent\n"
      " shift of rows 2-2/2-6, which the simulated network does not produce)")

# ---- single delayed node ----
print("\n== Sec. 3.1-3.3: one node (the last rank) late by d; cost = first entry to last exit, precision = last exit - first exit ==")
print("paper's formulas with the platform's b_s, s and d = log2 p: gsync cost d b_s + d' (d' < b_s), ~2 d b_s (b_s <= d' <= d b_s),\n"
      "d b_s + d' beyond; precision d' then d (b_s - s); sync0 (d+1) b_s + d' (d' < b_s), (2d+1) b_s at d' = b_s, precision\n"
      "likewise; RDS 2 d b_s + d', precision 0. Medians of the repetitions.")


def predict(bar, dl, bs, s, d):
    dd = dl * bs
    if bar == "butterfly":
        if dd < bs:
            return d * bs + dd, dd
        return (2 * d * bs if dd <= d * bs else d * bs + dd), d * (bs - s)
    if bar == "sync0":
        if dd < bs:
            return (d + 1) * bs + dd, dd
        if abs(dd - bs) < 1e-12:
            return (2 * d + 1) * bs, d * (bs - s)
        return None, d * (bs - s)
    return 2 * d * bs + dd, 0.0


for w in wheres:
    dr = [r for r in recs if r["where"] == w and r["type"] == "delayed"]
    for p in sorted({r["p"] for r in dr}):
        d = math.ceil(math.log2(p))
        s = const.get(w, {}).get("s", 0.0)
        rows = [r for r in dr if r["p"] == p]
        bs = rows[0]["b_s"]
        print(f"\n{WHERE[w]}, p = {p} (d = {d}), b_s = {t(bs)}, s = {t(s)}")
        print(f"{'barrier':<10} {'delay':>8} {'cost':>11} {'paper':>11} {'precision':>11} {'paper':>11} {'valid':>7}")
        for r in rows:
            pc, pp = predict(r["barrier"], float(r["delta_bs"]), bs, s, d)
            print(f"{r['barrier']:<10} {str(r['delta_bs']) + ' b_s':>8} {t(r['cost_median']):>11} {t(pc):>11} "
                  f"{t(r['precision_median']):>11} {t(pp):>11} {str(r['valid']) + '/' + str(r['reps']):>7}")

# ---- Figs. 4-1..4-4 and success rates ----
fig_recs = [r for r in recs if r["type"] == "shift" and r.get("fig") == "4-1"]
BARS = ["clock", "none", "butterfly", "sync0", "rds"]
LABEL = {"clock": "clock (all at once)", "none": "none", "butterfly": "gsync (butterfly)", "sync0": "sync0", "rds": "RDS"}


def ref_min(w, p, proto, m):
    """the predicted minimum (concurrent) shift cost: the formula with the platform's constants (sim), or the
    measured concurrent reference, the median of 'clock' (real, cluster: 2-rank constants do not describe 4 ranks)"""
    if w == "sim":
        c = const["sim"]
        return c["a"] * m + (c["b_l"] if proto == "long" else c["b_s"])
    r = [x for x in fig_recs if (x["where"], x["p"], x["barrier"], x["protocol"], x["bytes"]) == (w, p, "clock", proto, m)]
    return st.median(r[0]["cost"]) if r and r[0]["cost"] else float("nan")


def threshold(w, p):
    """failure: cost > minimum + threshold. The paper's 1 ms (sec. 4.2) is 64.5 % of its predicted 4 KiB forced shift
    (1.55 ms); the simulated platform has the paper's constants, so 1 ms; elsewhere the same 64.5 % of the 4 KiB
    forced reference"""
    if w == "sim":
        return 1e-3
    return (1e-3 / 1.55e-3) * ref_min(w, p, "forced", 4096)


def mean_cost(rs, b, proto, key, c):
    """the mean shift cost of the trials in rs with barrier b, protocol proto and key (bytes, p) c, or None"""
    r = [x for x in rs if x["barrier"] == b and x["protocol"] == proto and x[key] == c]
    return st.mean(r[0]["cost"]) if r and r[0]["cost"] else None


def cost_rows(rs, key, cols, width):
    """a row per barrier and protocol: the mean shift cost of rs's trials with that key (bytes, p) in each column"""
    for b in BARS:
        for proto in ("forced", "long"):
            print(f"{LABEL[b]:<20} {proto:<8}" + "".join(f"{t(mean_cost(rs, b, proto, key, c)):>{width}}" for c in cols))


def cost_lines(ax, rs, key, cols, xs, labels=True):
    """a line per barrier and protocol (solid forced, dashed long): the mean shift cost (ms) of rs's trials
    with that key (bytes, p) at each column, drawn at xs"""
    for b in BARS:
        for proto, ls in (("forced", "-"), ("long", "--")):
            ys = [float("nan") if v is None else v * 1e3 for v in (mean_cost(rs, b, proto, key, c) for c in cols)]
            ax.plot(xs, ys, ls, color=style[b][0], marker=style[b][1], ms=4, label=f"{LABEL[b]}, {proto}" if labels else None)


print("\n== Figs. 4-1..4-3: ring shift cost after each synchronization (mean of each trial's last end - first exit) ==")
print("paper: predicted minimum am + b_s (Table I) = " + ", ".join(f"{m // 1024}K {t(PAPER['a'] * m + PAPER['b_s'])}" for m in (4096, 8192, 16384, 32768, 65536)) +
      ";\nobserved (from the text, approximate): RDS + forced agrees well with am + b_s; gsync/sync0 cost several ms more for large\n"
      "messages, more with the ring size; with the long protocol no algorithm reaches the minimum consistently, RDS is best.")
for w in wheres:
    for p in sorted({r["p"] for r in fig_recs if r["where"] == w}):
        rs = [r for r in fig_recs if r["where"] == w and r["p"] == p]
        sizes = sorted({r["bytes"] for r in rs})
        spread = rs[0]["spread"]
        print(f"\n{WHERE[w]}, ring of {p}, arrivals spread over {t(spread)}; {rs[0]['trials']} trials")
        print(f"{'sync':<20} {'protocol':<8}" + "".join(f"{str(m // 1024) + 'K':>12}" for m in sizes))
        for proto in ("forced", "long"):
            print(f"{'minimum (' + ('formula' if w == 'sim' else 'clock median') + ')':<20} {proto:<8}" + "".join(f"{t(ref_min(w, p, proto, m)):>12}" for m in sizes))
        cost_rows(rs, "bytes", sizes, 12)

f44 = [r for r in recs if r["type"] == "shift" and r.get("fig") == "4-4"]
if f44:
    print("\n== Fig. 4-4: 32 KiB shifts vs cube dimension d (SimGrid; mean cost) ==")
    print(f"paper (predicted, Table I): concurrent forced am + b_s = {t(PAPER['a'] * 32768 + PAPER['b_s'])}, concurrent long am + b_l = "
          f"{t(PAPER['a'] * 32768 + PAPER['b_l'])}, non-concurrent 2am + 1.5 b_l = {t(2 * PAPER['a'] * 32768 + 1.5 * PAPER['b_l'])};\n"
          "observed (from the text): consistent performance only with RDS + forced protocol")
    ps = sorted({r["p"] for r in f44})
    print(f"{'sync':<20} {'protocol':<8}" + "".join(f"{'d=' + str(int(math.log2(p))):>11}" for p in ps))
    cost_rows(f44, "p", ps, 11)

print("\n== Figs. 4-5..4-7: success rate (concurrent shifts: cost <= minimum + threshold) ==")
print("paper (sec. 4.2 and 5, from the text; the plots are not in the text this project has, so no point is read off them):\n"
      "RDS + forced > 99 % for every cube size\n"
      "and message >= 4 KiB; gsync + forced ~90 % at d = 2 falling to < 5 % at d = 7; sync0 between gsync and RDS; with the long\n"
      "protocol RDS's rate is erratic and lower, but above gsync's and sync0's. Threshold: 1 ms in the paper (kept for the\n"
      "iPSC-calibrated simulation); elsewhere the same 64.5 % of the 4 KiB forced concurrent shift.")
cols = []
for w in wheres:
    for p in sorted({r["p"] for r in fig_recs if r["where"] == w}):
        cols.append((w, p))
print(f"{'sync':<20} {'protocol':<8} {'size':>6}" + "".join(f"{w[:4] + ' p=' + str(p):>13}" for w, p in cols))
for b in BARS:
    for proto in ("forced", "long"):
        sizes = sorted({r["bytes"] for r in fig_recs})
        for m in sizes:
            line = f"{LABEL[b]:<20} {proto:<8} {str(m // 1024) + 'K':>6}"
            anyv = False
            for w, p in cols:
                r = [x for x in fig_recs if (x["where"], x["p"], x["barrier"], x["protocol"], x["bytes"]) == (w, p, b, proto, m)]
                if not r or not r[0]["cost"]:
                    line += f"{'-':>13}"
                    continue
                anyv = True
                lim = ref_min(w, p, proto, m) + threshold(w, p)
                n = len(r[0]["cost"])
                ok = sum(1 for v in r[0]["cost"] if v <= lim)
                cell = f"{100 * ok / n:.0f}% ({n})"
                line += f"{cell:>13}"
            if anyv:
                print(line)
print("(n) = valid trials: a trial is invalid when a rank was already late for its start (descheduled).")

# ---- the figure ----
fig, axs = report_common.panels()
style = {"clock": ("k", "o"), "none": ("0.6", "x"), "butterfly": ("tab:red", "s"), "sync0": ("tab:orange", "^"), "rds": ("tab:blue", "D")}
panels = [("sim", 4, axs[0][0], "Fig. 4-1 analog: sim, 4-node ring"), ("sim", 32, axs[0][1], "Fig. 4-2 analog: sim, 32-node ring"),
          ("sim", 128, axs[0][2], "Fig. 4-3 analog: sim, 128-node ring")]
for w, p, ax, ptitle in panels:
    rs = [r for r in fig_recs if r["where"] == w and r["p"] == p]
    if not rs:
        ax.set_visible(False)
        continue
    sizes = sorted({r["bytes"] for r in rs})
    cost_lines(ax, rs, "bytes", sizes, [m / 1024 for m in sizes])
    ax.plot([m / 1024 for m in sizes], [(PAPER["a"] * m + PAPER["b_s"]) * 1e3 for m in sizes], ":", color="green", lw=2, label="paper: am + b_s")
    report_common.axes(ax, "message (KiB)", "shift cost (ms)", ptitle, size=10)
axs[0][0].legend(fontsize=6, ncol=2)
ax = axs[1][0]
if f44:
    ps = sorted({r["p"] for r in f44})
    cost_lines(ax, f44, "p", ps, [int(math.log2(p)) for p in ps], labels=False)
    ax.axhline((PAPER["a"] * 32768 + PAPER["b_s"]) * 1e3, color="green", ls=":", lw=2)
    ax.axhline((2 * PAPER["a"] * 32768 + 1.5 * PAPER["b_l"]) * 1e3, color="purple", ls=":", lw=1)
    report_common.axes(ax, "cube dimension d", "shift cost (ms)", "Fig. 4-4 analog: 32 KiB shifts vs d (sim); green am+b_s, purple 2am+1.5b_l")
ax = axs[1][1]
xs, labels = 0, []
for w, p in cols:
    for i, b in enumerate(["butterfly", "sync0", "rds"]):
        for j, proto in enumerate(("forced", "long")):
            r = [x for x in fig_recs if (x["where"], x["p"], x["barrier"], x["protocol"], x["bytes"]) == (w, p, b, proto, 4096)]
            if r and r[0]["cost"]:
                lim = ref_min(w, p, proto, 4096) + threshold(w, p)
                rate = 100 * sum(1 for v in r[0]["cost"] if v <= lim) / len(r[0]["cost"])
                ax.bar(xs + i * 0.28 + j * 0.13, rate, 0.12, color=style[b][0], alpha=1.0 if proto == "forced" else 0.45)
    labels.append(f"{w}\np={p}")
    xs += 1
ax.set_xticks([k + 0.35 for k in range(len(labels))])
ax.set_xticklabels(labels, fontsize=7)
report_common.axes(ax, None, "success rate at 4 KiB (%)", "Figs. 4-5..4-7 analog: success (red gsync, orange sync0, blue RDS; pale = long)")
ax = axs[1][2]
dr = [r for r in recs if r["type"] == "delayed"]
for w, mk in (("sim", "-"), ("real", "--"), ("cluster", ":")):
    for b in ("butterfly", "sync0", "rds"):
        rows = [r for r in dr if r["where"] == w and r["p"] == (32 if w == "sim" else 4) and r["barrier"] == b]
        if rows:
            ax.plot([float(r["delta_bs"]) for r in rows], [r["cost_median"] / r["b_s"] for r in rows], mk, color=style[b][0], marker=style[b][1], ms=4,
                    label=f"{w} p={rows[0]['p']} {b}")
report_common.axes(ax, "delay of one node (units of b_s)", "barrier cost (units of b_s, log)", "Sec. 3.1-3.3: one delayed node (sim p=32; real, cluster p=4)",
                   ylog=True, legend=dict(fontsize=6))
report_common.save(fig, figpath, "paper 004 reproduced: " + title)
