#!/usr/bin/env python3
"""check_rates: throughput points written by isochron-bench carry their unit and
the factor that turns times into rates, consistently in JSON Lines and CSV.
Usage: check_rates.py FILE.jsonl FILE.csv NPROCS WINDOW. For every point of
bw, bibw, mbw_mr, bw_fan_in, bw_fan_out and the one-sided put/get_bw and
put/get_bibw under fence, pscw, lockall: unit "B/s", msg_window = WINDOW,
bytes_per_run = (senders x messages per sender) x bytes for the operation's
pattern at NPROCS ranks, bw_median_Bps = bytes_per_run / median_s, its interval
the median's interval in time inverted (lo = bytes / median_ci_hi_s),
msg_rate = msgs_per_run / median_s; the CSV row says the same in MB/s (1e6).
Latency-type points (pingping, multi_lat, pingpong) say unit "s" and carry no
rate. The context records the window. Exits nonzero with the reason."""
import csv, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, load  # noqa: E402


def close(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b))

jsonl, csvf, p, w = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
msgs_of = {"bw": w, "bibw": 2 * w, "mbw_mr": (p // 2) * w, "bw_fan_in": (p - 1) * w, "bw_fan_out": (p - 1) * w}
# one-sided: one way (rank 0 the only origin) W messages, both ways 2 W
for sync in ("fence", "pscw", "lockall"):
    for acc in ("put", "get"):
        msgs_of[f"{acc}_bw_{sync}"], msgs_of[f"{acc}_bibw_{sync}"] = w, 2 * w
recs = load(jsonl)
if recs[0].get("options", {}).get("msg_window") != w: fail(f"context options lack msg_window {w}")
pts = [r for r in recs if r.get("type") == "point"]
rows = list(csv.DictReader(l for l in open(csvf) if not l.startswith("#")))
if len(rows) != len(pts): fail(f"{len(rows)} CSV rows, {len(pts)} points")
nrate = nlat = 0
for pt, row in zip(pts, rows):
    op, b = pt["op"], pt["bytes"]
    if row["op"] != op or int(row["bytes"]) != b: fail("CSV and JSONL points differ in order")
    if row["unit"] != pt["unit"]: fail(f"{op}: unit {pt['unit']} in JSONL, {row['unit']} in CSV")
    if op not in msgs_of:
        if pt["unit"] != "s" or "bw_median_Bps" in pt or row["bw_median_MBps"] != "": fail(f"{op}: a latency point with a rate")
        nlat += 1
        continue
    if pt["unit"] != "B/s": fail(f"{op}: unit {pt['unit']!r}, expected 'B/s'")
    if pt["msg_window"] != w or int(row["msg_window"]) != w: fail(f"{op}: window {pt['msg_window']}, expected {w}")
    m = msgs_of[op]
    if pt["msgs_per_run"] != m or pt["bytes_per_run"] != m * b: fail(f"{op} {b} B: {pt['msgs_per_run']} messages / "
                                                                     f"{pt['bytes_per_run']} bytes per run, expected {m} / {m * b}")
    if pt["valid"] < 1: fail(f"{op} {b} B: no valid repetition")
    med = pt["median_s"]
    if not close(pt["bw_median_Bps"], m * b / med): fail(f"{op} {b} B: bandwidth {pt['bw_median_Bps']} != {m * b / med}")
    if not close(pt["msg_rate_median_per_s"], m / med): fail(f"{op}: message rate wrong")
    if pt["median_ci_hi_s"] is not None and pt["median_ci_lo_s"] is not None:
        if not close(pt["bw_ci_lo_Bps"], m * b / pt["median_ci_hi_s"]) or not close(pt["bw_ci_hi_Bps"], m * b / pt["median_ci_lo_s"]):
            fail(f"{op} {b} B: the rate interval is not the time interval inverted")
        if not pt["bw_ci_lo_Bps"] <= pt["bw_median_Bps"] <= pt["bw_ci_hi_Bps"]: fail(f"{op}: rate interval misses the median")
    if not close(float(row["bw_median_MBps"]) * 1e6, pt["bw_median_Bps"], 1e-6): fail(f"{op}: CSV MB/s differs from JSONL B/s")
    if not close(float(row["msg_rate_median_per_s"]), pt["msg_rate_median_per_s"], 1e-6): fail(f"{op}: CSV message rate differs")
    nrate += 1
if nrate == 0 or nlat == 0: fail(f"{nrate} throughput and {nlat} latency points: expected some of each")
print(f"check_rates: PASS ({nrate} throughput points, {nlat} latency points, window {w}, {p} ranks)")
