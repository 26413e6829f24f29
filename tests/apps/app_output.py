#!/usr/bin/env python3
"""Compare what an application computed in two runs (issue 28: the layers must not change it).

usage: app_output.py lammps|qe REFERENCE OTHER

The application's own results, as text lines, must be identical (character for character,
the precision the application prints):
  lammps  every row of every thermo table (the lines between a header starting with "Step"
          and "Loop time": step, temperature, energies, pressure as `thermo` prints them);
  qe      pw.x's SCF history and results: every "total energy" line (each iteration's and the
          final "!" one), "estimated scf accuracy", "highest occupied"/"Fermi energy", the
          per-atom forces, "Total force", the stress tensor (header and its 3 rows) and the
          "convergence has been achieved in N iterations" line.
Timings, dates, process counts and paths differ between runs and are not compared. Fewer than
2 result lines in the reference is an error (the run did not get far enough to compare).
Prints "output: N lines compared, identical" (exit 0) or the first difference (exit 1).
Standard library only.
"""
import re
import sys


def lammps_lines(text):
    out, inside = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("Step "):
            inside = True
            out.append(" ".join(s.split()))
        elif s.startswith("Loop time"):
            inside = False
        elif inside and s and not s.startswith("WARNING"):
            out.append(" ".join(s.split()))
    return out


QE_PATTERNS = [r"^!?\s+total energy\s+=", r"estimated scf accuracy", r"highest occupied", r"Fermi energy",
               r"^\s+atom\s+\d+\s+type\s+\d+\s+force\s+=", r"Total force =", r"total\s+stress",
               r"convergence has been achieved"]


def qe_lines(text):
    lines, out = text.splitlines(), []
    i = 0
    while i < len(lines):
        line = lines[i]
        if any(re.search(p, line) for p in QE_PATTERNS):
            out.append(" ".join(line.split()))
            if re.search(r"total\s+stress", line):  # the three rows of the tensor follow
                out.extend(" ".join(l.split()) for l in lines[i + 1:i + 4])
                i += 3
        i += 1
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("lammps", "qe"):
        print("usage: app_output.py lammps|qe REFERENCE OTHER", file=sys.stderr)
        return 2
    pick = lammps_lines if sys.argv[1] == "lammps" else qe_lines
    try:
        ref, other = (pick(open(p, errors="replace").read()) for p in sys.argv[2:4])
    except OSError as e:
        print(f"output: FAIL: {e}")
        return 1
    if len(ref) < 2:
        print(f"output: FAIL: {sys.argv[2]} has {len(ref)} result lines ({sys.argv[1]}), expected at least 2")
        return 1
    for k, (a, b) in enumerate(zip(ref, other)):
        if a != b:
            print(f"output: FAIL: result line {k + 1} differs:\n  {sys.argv[2]}: {a}\n  {sys.argv[3]}: {b}")
            return 1
    if len(ref) != len(other):
        print(f"output: FAIL: {len(ref)} result lines in {sys.argv[2]}, {len(other)} in {sys.argv[3]}")
        return 1
    print(f"output: {len(ref)} lines compared, identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
