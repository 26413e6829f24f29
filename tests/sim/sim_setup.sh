# Sourced by the SimGrid tests after `src=SOURCE_DIR work=WORK_DIR`: skips (exit 77) where SimGrid's
# SMPI is missing, else builds isochron for SimGrid into WORK_DIR/sim-build (sim/build.sh, incremental).
if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
  echo "SKIPPED: smpicc/smpirun not found (SimGrid SMPI; install libsimgrid-dev: EXTRA_PKGS=libsimgrid-dev tools/install-deps.sh)"
  exit 77
fi
mkdir -p "$work"
export SIM_BUILD=$work/sim-build
bash "$src/sim/build.sh" >/dev/null
