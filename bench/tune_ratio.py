"""The per-round ratio of bench/tune_prefix.sh and bench/tune_apps.sh: the geometric mean of the
ratios of a mode's time to the same round's default time, with a Student t 95 % interval on the log
ratios across rounds (rounds are the unit: launch-to-launch variation is the largest there is,
docs/reproducibility.md)."""
import math
import statistics

T975 = {1: 12.71, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def ratio_line(pairs):
    """PAIRS: (mode time, default time) per round -> 'r1 r2 ...; geometric mean G [95 % CI lo, hi]'."""
    logs = [math.log(a / b) for a, b in pairs if a and b]
    if not logs:
        return "-"
    mean = sum(logs) / len(logs)
    line = " ".join(f"{math.exp(x):.3f}" for x in logs) + f"; geometric mean {math.exp(mean):.3f}"
    if len(logs) > 1:
        h = T975.get(len(logs) - 1, 2.0) * statistics.stdev(logs) / math.sqrt(len(logs))
        line += f" [95 % CI {math.exp(mean - h):.3f}, {math.exp(mean + h):.3f}]"
    return line
