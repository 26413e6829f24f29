#!/usr/bin/env bash
# Real MPI applications from Debian, unmodified, under isochron's PMPI layers (issue 28; paper 003
# section 5.2, Fig. 5 and Table 1, at the scale of one machine).
#   usage: bench/apps/apps.sh lammps|qe [NP (default 2)] [ROUNDS (default 3)]
#   env:   BUILD (default build/); LAMMPS: CELLS (fcc cells per side, default 10: 4000 atoms), STEPS (500);
#          QE: ECUT (Ry, default 18), K (k-point grid K^3, default 4); INTERVAL (s between checkpoints; default:
#          a quarter of the first native run's own time, at least 0.01 s, so that a run of any length takes
#          checkpoints: LAMMPS's 500 default steps take 0.46 s here, shorter than the 0.5 s that was the default)
#          BENCH_QUICK=1: the defaults shrink to one round, 100 steps (LAMMPS), ecutwfc 12 Ry and 2^3 k-points (QE)
# Applications: lammps = Debian's lmp on bench/apps/in.melt (Lennard-Jones melt, paper 003's LJ liquid);
# qe = Debian's Quantum ESPRESSO pw.x on bench/apps/si.scf.in (SCF of bulk Si, 2 atoms, LDA, the
# Si.pz-vbc.UPF pseudopotential that Debian's quantum-espresso-data ships in /usr/share/espresso/pseudo),
# standing in for paper 003's VASP (plane-wave DFT too). pw.x is Fortran: Open MPI's Fortran bindings call
# PMPI_X, so the layers see its calls only with LD_AUDIT=libisochron-fortran.so (set for every qe run).
# Per round, in a rotated order (the machine's state changes within seconds), one run in each mode:
#   native   the application alone
#   native2  the application alone again: its ratio to native is the noise of the machine in that round
#   cc       libisochron-cc.so, ISOCHRON_CC_MODE=cc, no checkpoint requested
#   2pc      libisochron-cc.so, ISOCHRON_CC_MODE=2pc (an MPI_Ibarrier + test loop before each collective)
#   trace    libisochron-trace.so recording every call, FORMATS=none (nothing written: the recording's cost)
# Time = the application's own timer (LAMMPS "Loop time", pw.x "PWSCF ... WALL": MPI startup and the
# tracer's clock sync in MPI_Init excluded) and the launch's wall time. Ratios: per round against that
# round's native run; median [min max] over rounds. Then, once each:
#   ckpt     cc with a checkpoint every INTERVAL s and the state log: number taken, request -> safe state and
#            request -> resume times (tests/cc/check_cc_log.py --latency, on the requesting rank's clock),
#            the log's invariants checked;
#   ckpt2pc  the same in 2pc mode (MANA's two-phase commit: aborts and retries until every rank votes yes)
#   traced   the tracer writing OTF2 + Perfetto JSON: tests/trace/check_trace.py (otf2-print reads the archive)
#            and the calls per rank per second by kind (paper 003's Table 1 columns);
# every run's results are compared with the first native run (tests/apps/app_output.py: thermo table,
# or pw.x's energies, forces, stress) and the script exits 1 if any differs or any run fails.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD:-$here/build}" && pwd)
app=${1:-}
NP=${2:-2}
if [ -n "${BENCH_QUICK:-}" ]; then ROUNDS=${3:-1} STEPS=${STEPS:-100} ECUT=${ECUT:-12} K=${K:-2}; else ROUNDS=${3:-3}; fi
case $app in
  lammps) exe=$(command -v lmp) || { echo "apps.sh: lmp not found (Debian package lammps)" >&2; exit 2; } ;;
  qe) exe=$(command -v pw.x) || { echo "apps.sh: pw.x not found (Debian package quantum-espresso)" >&2; exit 2; }
      [ -r /usr/share/espresso/pseudo/Si.pz-vbc.UPF ] || { echo "apps.sh: /usr/share/espresso/pseudo/Si.pz-vbc.UPF missing (Debian package quantum-espresso-data)" >&2; exit 2; } ;;
  *) echo "apps.sh: APP '$app': expected lammps or qe" >&2; exit 2 ;;
esac
cc_lib=$build/libisochron-cc.so tr_lib=$build/libisochron-trace.so audit=$build/libisochron-fortran.so
for f in "$cc_lib" "$tr_lib" "$audit"; do
  [ -e "$f" ] || { echo "apps.sh: $f not built (cmake --build $build)" >&2; exit 2; }
done
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
if [ "$app" = lammps ]; then
  sed -e "s/@CELLS@/${CELLS:-10}/g" -e "s/@STEPS@/${STEPS:-500}/g" "$here/bench/apps/in.melt" > input
  fortran=()
  desc="LAMMPS $(dpkg-query -W -f='${Version}' lammps 2>/dev/null) lmp, LJ melt, $((4 * ${CELLS:-10} ** 3)) atoms, ${STEPS:-500} steps"
else
  sed -e "s/@ECUT@/${ECUT:-18}/g" -e "s/@K@/${K:-4}/g" "$here/bench/apps/si.scf.in" > input
  fortran=(LD_AUDIT="$audit")
  desc="Quantum ESPRESSO $(dpkg-query -W -f='${Version}' quantum-espresso 2>/dev/null) pw.x, Si2 SCF, ecutwfc ${ECUT:-18} Ry, ${K:-4}^3 k-points"
fi
# run TAG [ENV...]: one launch in its own directory TAG/, the application's output in TAG/out; prints nothing
run() {
  local tag=$1; shift
  mkdir -p "$tag" && cp input "$tag/" || return 1
  local t0 t1 rc
  t0=$(date +%s.%N)
  if [ "$app" = lammps ]; then
    (cd "$tag" && env OMP_NUM_THREADS=1 "$@" "$here/tools/mpirun-local" -np "$NP" "$exe" -in input -log out -screen none > stdout 2> stderr)
  else
    (cd "$tag" && env OMP_NUM_THREADS=1 "$@" "$here/tools/mpirun-local" -np "$NP" "$exe" -in input > out 2> stderr)
  fi
  rc=$?
  t1=$(date +%s.%N)
  echo "$rc $t0 $t1" > "$tag/status"
  [ "$rc" -eq 0 ] || { echo "apps.sh: $tag exited with status $rc:" >&2; tail -5 "$tag/stderr" >&2; }
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
modes=(native cc 2pc trace native2)
for r in $(seq 1 "$ROUNDS"); do
  for k in 0 1 2 3 4; do
    m=${modes[$(( (k + r) % 5 ))]}
    case $m in
      native) run "native.$r" ;;
      native2) run "native2.$r" ;;
      cc) run "cc.$r" ISOCHRON_CC_MODE=cc "${fortran[@]}" LD_PRELOAD="$cc_lib" ;;
      2pc) run "2pc.$r" ISOCHRON_CC_MODE=2pc "${fortran[@]}" LD_PRELOAD="$cc_lib" ;;
      trace) run "trace.$r" ISOCHRON_TRACE_FORMATS=none ISOCHRON_TRACE_MAX_EVENTS=20000000 "${fortran[@]}" LD_PRELOAD="$tr_lib" ;;
    esac
  done
done
# the checkpoint interval: INTERVAL, or a quarter of the first native run's own time (its timer, else its
# launch's wall time), at least 0.01 s (ISOCHRON_CC_INTERVAL's lower bound)
if [ -z "${INTERVAL:-}" ]; then
  INTERVAL=$(python3 - "$app" native.1 <<'PY'
import re, sys
app, d = sys.argv[1:]
text = open(f"{d}/out", errors="replace").read()
if app == "lammps":
    m = re.search(r"Loop time of ([0-9.eE+-]+)", text)
    t = float(m.group(1)) if m else None
else:
    m = re.search(r"PWSCF\s*:.*CPU\s+(?:(\d+)h\s*)?(?:(\d+)m\s*)?([0-9.]+)s WALL", text)
    t = (int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))) if m else None
if t is None:
    rc, t0, t1 = open(f"{d}/status").read().split()
    t = float(t1) - float(t0)
print(f"{max(0.01, t / 4):.3g}")
PY
) || INTERVAL=0.5
fi
run ckpt ISOCHRON_CC_MODE=cc ISOCHRON_CC_DIR=ck ISOCHRON_CC_LOG=log ISOCHRON_CC_INTERVAL="$INTERVAL" "${fortran[@]}" LD_PRELOAD="$cc_lib"
run ckpt2pc ISOCHRON_CC_MODE=2pc ISOCHRON_CC_DIR=ck ISOCHRON_CC_LOG=log ISOCHRON_CC_INTERVAL="$INTERVAL" "${fortran[@]}" LD_PRELOAD="$cc_lib"
run traced ISOCHRON_TRACE_DIR=tr ISOCHRON_TRACE_MAX_EVENTS=20000000 "${fortran[@]}" LD_PRELOAD="$tr_lib"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
for d in ckpt ckpt2pc; do
  python3 "$here/tests/cc/check_cc_log.py" $d/log --np "$NP" --interval --latency > $d/check 2>&1
done
(cd traced && python3 "$here/tests/trace/check_trace.py" tr isochron-trace "$NP" > check 2>&1; echo $? > check.rc)
python3 - "$tmp" "$app" "$NP" "$ROUNDS" "$here" "$desc" "$load0" "$load1" "$(nproc)" "$INTERVAL" <<'PY'
import json, os, re, statistics, subprocess, sys
tmp, app, np_, rounds, here, desc, load0, load1, ncpu, interval = sys.argv[1:]
rounds = int(rounds)
bad = []

def status(d):
    rc, t0, t1 = open(f"{tmp}/{d}/status").read().split()
    return int(rc), float(t1) - float(t0)

def app_time(d):
    text = open(f"{tmp}/{d}/out", errors="replace").read()
    if app == "lammps":
        m = re.search(r"Loop time of ([0-9.eE+-]+)", text)
        return float(m.group(1)) if m else None
    m = re.search(r"PWSCF\s*:.*CPU\s+(?:(\d+)h\s*)?(?:(\d+)m\s*)?([0-9.]+)s WALL", text)
    return (int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))) if m else None

def same(d):
    p = subprocess.run(["python3", f"{here}/tests/apps/app_output.py", app, f"{tmp}/native.1/out", f"{tmp}/{d}/out"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        bad.append(f"{d}: {p.stdout.strip()}")
    return p.returncode == 0, p.stdout.strip()

print(f"# bench/apps/apps.sh {app}: {desc}")
print(f"# machine: {ncpu} cores ({open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}), "
      f"{np_} ranks, {subprocess.run(['mpirun', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}; "
      f"load average (1, 5, 15 min) before {load0}, after {load1}")
t, w = {}, {}
order = ("native", "native2", "cc", "2pc", "trace")
for m in order:
    for r in range(1, rounds + 1):
        d = f"{m}.{r}"
        rc, wall = status(d)
        if rc != 0:
            bad.append(f"{d}: exit status {rc}")
            continue
        ok, _ = same(d) if d != "native.1" else (True, "")
        t.setdefault(m, {})[r], w.setdefault(m, {})[r] = app_time(d), wall
print(f"\n## runtime, {rounds} rounds interleaved (median [min max] over rounds; ratio to the same round's native run)")
print(f"{'mode':<8}{'app time s':>12}{'ratio':>8}{'[min':>8}{'max]':>8}{'launch s':>11}{'ratio':>8}{'[min':>8}{'max]':>8}  results vs native.1")
for m in order:
    if m not in t:
        print(f"{m:<8} failed"); continue
    rs = sorted(set(t[m]) & set(t.get("native", {})))
    ra = [t[m][r] / t["native"][r] for r in rs if t[m][r] and t["native"][r]]
    rw = [w[m][r] / w["native"][r] for r in rs]
    res = "identical" if not any(b.startswith(m + ".") for b in bad) else "DIFFERENT"
    print(f"{m:<8}{statistics.median([x for x in t[m].values() if x]):>12.3f}"
          + (f"{statistics.median(ra):>8.3f}{min(ra):>8.3f}{max(ra):>8.3f}" if ra else f"{'-':>24}")
          + f"{statistics.median(w[m].values()):>11.2f}"
          + (f"{statistics.median(rw):>8.3f}{min(rw):>8.3f}{max(rw):>8.3f}" if rw else f"{'-':>24}") + f"  {res}")

# checkpoints
for d, mode in (("ckpt", "cc"), ("ckpt2pc", "2pc")):
    rc, wall = status(d)
    chk = open(f"{tmp}/{d}/check").read().strip().splitlines() or ["no output"]
    lat = [tuple(map(float, l.split()[6::2])) for l in chk if l.startswith("latency")]
    nck = len([c for c in os.listdir(f"{tmp}/{d}/ck") if os.path.exists(f"{tmp}/{d}/ck/{c}/complete")]) if os.path.isdir(f"{tmp}/{d}/ck") else 0
    ok, msg = same(d) if rc == 0 else (False, f"exit status {rc}")
    if rc != 0: bad.append(f"{d}: exit status {rc}")
    if "PASS" not in chk[-1]: bad.append(f"{d}: state log: {chk[-1]}")
    if nck == 0: bad.append(f"{d}: no checkpoint completed (a run shorter than INTERVAL={interval} s? set INTERVAL lower)")
    print(f"\n## {mode} with a checkpoint every {interval} s (ISOCHRON_CC_INTERVAL), state log checked")
    print(f"checkpoints complete: {nck}; app time {app_time(d) or float('nan'):.3f} s (native median "
          f"{statistics.median([x for x in t['native'].values() if x]):.3f} s); results vs native.1: {msg}")
    print(f"state log: {chk[-1]}")
    if lat:
        s = sorted(x[0] for x in lat); u = sorted(x[1] for x in lat)
        print(f"request -> safe state   ms: median {1e3 * statistics.median(s):.2f}  min {1e3 * s[0]:.2f}  max {1e3 * s[-1]:.2f}  (n={len(s)})")
        print(f"request -> resume       ms: median {1e3 * statistics.median(u):.2f}  min {1e3 * u[0]:.2f}  max {1e3 * u[-1]:.2f}")

# trace
rc, wall = status("traced")
chk = open(f"{tmp}/traced/check").read().strip().splitlines()
if rc != 0: bad.append(f"traced: exit status {rc}")
if not chk or chk[-1] != "trace: PASS": bad.append(f"traced: check_trace.py: {chk[-1] if chk else 'no output'}")
ok, msg = same("traced") if rc == 0 else (False, f"exit status {rc}")
print(f"\n## traced (OTF2 + Perfetto JSON written), tests/trace/check_trace.py: {chk[-1] if chk else '-'}; results vs native.1: {msg}")
try:
    d = json.load(open(f"{tmp}/traced/tr/isochron-trace.json"))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    at = app_time("traced")
    cats = {}
    for e in ev:
        cats.setdefault(e["cat"], {}).setdefault(e["tid"], 0)
        cats[e["cat"]][e["tid"]] += 1
    per_rank = len(ev) / int(np_)
    print(f"calls per rank: {per_rank:.0f} in {at:.3f} s of application time; by kind (mean per rank, per second):")
    kinds = {"coll": "blocking collectives", "icoll": "non-blocking collectives", "p2p": "blocking point-to-point",
             "ip2p": "non-blocking point-to-point", "wait": "Wait/Test", "commcreate": "communicator creation",
             "commfree": "communicator free", "group": "groups", "probe": "probes", "rma": "RMA", "persist": "persistent"}
    for c, byr in sorted(cats.items(), key=lambda x: -sum(x[1].values())):
        n = sum(byr.values()) / int(np_)
        print(f"  {kinds.get(c, c):<30}{n:>10.0f}{n / at:>10.1f}/s")
    top = {}
    for e in ev:
        top[e["args"]["call"]] = top.get(e["args"]["call"], 0) + 1
    # the interval between blocking collectives bounds how soon cc can stop (paper 003: a safe state
    # falls in a collective, or a blocking receive): rank 0's gaps, entry to entry, on the global clock
    cs = sorted(e["ts"] for e in ev if e["tid"] == 0 and e["cat"] == "coll")
    gaps = sorted(b - a for a, b in zip(cs, cs[1:]))
    if gaps:
        print(f"  gap between blocking collectives on rank 0 (ms): median {statistics.median(gaps) / 1e3:.2f}, "
              f"90th percentile {gaps[int(0.9 * (len(gaps) - 1))] / 1e3:.2f}, max {gaps[-1] / 1e3:.2f}")
    print("  most frequent: " + ", ".join(f"{k} {v / int(np_):.0f}" for k, v in sorted(top.items(), key=lambda x: -x[1])[:8]))
    m = d["isochron"]
    print(f"  clock: {m.get('clock_correction')}, check {float(m.get('check_max_abs_measured_offset_s', 'nan')) * 1e9:.1f} ns, "
          f"error bound at finalize {float(m.get('error_bound_at_finalize_s', 'nan')) * 1e9:.1f} ns, dropped {m.get('dropped_events')}")
    # overhead per call: (traced-without-writing - native) app time per round / calls per rank
    rs = sorted(set(t.get("trace", {})) & set(t.get("native", {})))
    per = [(t["trace"][r] - t["native"][r]) / per_rank * 1e9 for r in rs if t["trace"][r] and t["native"][r]]
    if per:
        print(f"tracer overhead per call (trace - native app time, same round, / calls per rank): median {statistics.median(per):.0f} ns"
              f" [min {min(per):.0f}, max {max(per):.0f}] over {len(per)} rounds")
    rs = sorted(set(t.get("cc", {})) & set(t.get("native", {})))
    per = [(t["cc"][r] - t["native"][r]) / per_rank * 1e9 for r in rs if t["cc"][r] and t["native"][r]]
    if per:
        print(f"cc overhead per call, the same way: median {statistics.median(per):.0f} ns [min {min(per):.0f}, max {max(per):.0f}]")
except (OSError, ValueError, KeyError) as e:
    bad.append(f"traced: {e}")
if bad:
    print("\nFAILED:\n  " + "\n  ".join(bad))
    sys.exit(1)
print("\nall runs exited 0 with the native run's results")
PY
