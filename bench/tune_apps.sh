#!/usr/bin/env bash
# An application, unmodified, under the tuning (docs/tuning.md): LAMMPS (Debian's lmp on
# bench/apps/in.melt, as bench/apps/apps.sh runs it) or, with APP=qe, Quantum ESPRESSO (Debian's pw.x
# on bench/apps/si.scf.in; Fortran, so the layer sees its calls through LD_AUDIT=libisochron-fortran.so
# as in bench/apps/apps.sh) at NP ranks in three modes per round, in a
# rotated order: default (the library's own decisions), rules (Open MPI's coll/tuned with the dynamic
# rules file isochron tune wrote: RULES) and layer (libisochron-tune.so with the profile isochron
# guidelines wrote: PROFILE; ISOCHRON_TUNE_VERBOSE=1 says how many calls it redirected). Time = the
# application's own timer (LAMMPS "Loop time", pw.x "PWSCF ... WALL"); per mode the median [min max]
# over rounds and the ratio to default per round; every run's output (LAMMPS thermo; pw.x energies,
# forces, stress) must equal the first default run's (tests/apps/app_output.py).
#   RULES=FILE PROFILE=FILE (both required: bench/results/tune_* say how they were made)
#   APP=lammps|qe NP=2 ROUNDS=3 CELLS=10 STEPS=500 (lammps) ECUT=18 K=4 (qe)
#   MODES="default rules layer" (default first; also: audit = qe under LD_AUDIT=libisochron-fortran.so
#   alone, no layer: what the Fortran interposition costs by itself)
set -uo pipefail
[ -n "${PY:-}" ] || PY=python3
here=$(cd "$(dirname "$0")/.." && pwd)
NP=${NP:-2} ROUNDS=${ROUNDS:-3} BUILD=${BUILD:-$here/build}
RULES=$(readlink -f "${RULES:?set RULES to a rules file written by isochron tune}")
PROFILE=$(readlink -f "${PROFILE:?set PROFILE to a profile written by isochron guidelines --profile}")
APP=${APP:-lammps}
case $APP in
  lammps) exe=$(command -v lmp) || { echo "tune_apps.sh: lmp not found (Debian package lammps)" >&2; exit 2; } ;;
  qe) exe=$(command -v pw.x) || { echo "tune_apps.sh: pw.x not found (Debian package quantum-espresso)" >&2; exit 2; }
      [ -r /usr/share/espresso/pseudo/Si.pz-vbc.UPF ] || { echo "tune_apps.sh: Si.pz-vbc.UPF missing (Debian package quantum-espresso-data)" >&2; exit 2; } ;;
  *) echo "tune_apps.sh: APP must be lammps or qe (got $APP)" >&2; exit 2 ;;
esac
layer=$BUILD/libisochron-tune.so
[ -e "$layer" ] || { echo "tune_apps.sh: $layer not built" >&2; exit 2; }
tmp=${KEEP:-$(mktemp -d)}; mkdir -p "$tmp"; [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fortran=()
if [ "$APP" = lammps ]; then
  sed -e "s/@CELLS@/${CELLS:-10}/g" -e "s/@STEPS@/${STEPS:-500}/g" "$here/bench/apps/in.melt" > input
  desc="LAMMPS $(dpkg-query -W -f='${Version}' lammps 2>/dev/null) lmp, LJ melt, $((4 * ${CELLS:-10} ** 3)) atoms, ${STEPS:-500} steps"
else
  sed -e "s/@ECUT@/${ECUT:-18}/g" -e "s/@K@/${K:-4}/g" "$here/bench/apps/si.scf.in" > input
  desc="Quantum ESPRESSO $(dpkg-query -W -f='${Version}' quantum-espresso 2>/dev/null) pw.x, Si2 SCF, ecutwfc ${ECUT:-18} Ry, ${K:-4}^3 k-points"
  fortran=(LD_AUDIT="$BUILD/libisochron-fortran.so")
fi
echo "# tune_apps: $desc, $NP ranks, $ROUNDS rounds; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # TAG ENV...
  local tag=$1; shift
  mkdir -p "$tag" && cp input "$tag/"
  if [ "$APP" = lammps ]; then
    (cd "$tag" && env OMP_NUM_THREADS=1 "$@" "$here/tools/mpirun-local" -np "$NP" "$exe" -in input -log out -screen none > stdout 2> stderr)
  else
    (cd "$tag" && env OMP_NUM_THREADS=1 "$@" "$here/tools/mpirun-local" -np "$NP" "$exe" -in input > out 2> stderr)
  fi
  echo $? > "$tag/rc"
}
read -ra modes <<< "${MODES:-default rules layer}"
nm=${#modes[@]}
for r in $(seq 1 "$ROUNDS"); do
  for k in $(seq 0 $((nm - 1))); do
    m=${modes[$(( (k + r) % nm ))]}
    case $m in
      default) run "default.$r" ;;
      rules) run "rules.$r" OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename="$RULES" ;;
      audit) run "audit.$r" "${fortran[@]}" ;;
      layer) run "layer.$r" "${fortran[@]}" LD_PRELOAD="$layer" ISOCHRON_TUNE_PROFILE="$PROFILE" ISOCHRON_TUNE_VERBOSE=1 ;;
    esac
  done
done
"$PY" - "$tmp" "$ROUNDS" "$here" "$APP" "${modes[@]}" <<'PY'
import os, re, statistics, subprocess, sys
tmp, rounds, here, app, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
sys.path.insert(0, os.path.join(here, "bench"))
from tune_ratio import ratio_line
bad = 0
def loop(d):
    try:
        text = open(os.path.join(tmp, d, "out")).read()
    except OSError:
        return None
    if app == "lammps":
        m = re.search(r"Loop time of ([0-9.eE+-]+)", text)
        return float(m.group(1)) if m else None
    m = re.search(r"PWSCF\s*:.*CPU\s+(?:(\d+)h\s*)?(?:(\d+)m\s*)?([0-9.]+)s WALL", text)
    return (int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))) if m else None
t = {m: [loop(f"{m}.{r}") for r in range(1, rounds + 1)] for m in modes}
print(f"{'mode':8} {'own timer (s): median [min max]':34} output; ratio to default per round")
for m, v in t.items():
    out = []
    for r in range(1, rounds + 1):
        if open(os.path.join(tmp, f"{m}.{r}", "rc")).read().strip() != "0":
            out.append(f"run {r} failed"); bad += 1; continue
        p = subprocess.run(["python3", f"{here}/tests/apps/app_output.py", app, f"{tmp}/default.1/out",
                            f"{tmp}/{m}.{r}/out"], capture_output=True, text=True)
        if p.returncode:
            out.append(f"run {r}: {p.stdout.strip()}"); bad += 1
    ok = [x for x in v if x]
    ratios = ratio_line(list(zip(v, t["default"]))) if m != "default" else ""
    cell = f"{statistics.median(ok):.3f} [{min(ok):.3f} {max(ok):.3f}]" if ok else "-"
    print(f"{m:8} {cell:34} {'identical' if not out else '; '.join(out)}{'; ' + ratios if ratios else ''}")
red = [l.strip() for r in range(1, rounds + 1) if "layer" in modes
       for l in open(os.path.join(tmp, f"layer.{r}", "stderr")) if l.startswith("isochron-tune:")]
print("layer: " + (red[0] if red else "no report on stderr"))
sys.exit(1 if bad else 0)
PY
rc=$?
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
