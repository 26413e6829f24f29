#!/usr/bin/env bash
# The tuning layer where a guideline is violated (docs/tuning.md): the guideline of COLL (scan:
# MPI_Scan <= MPI_Exscan + the local op; reduce_scatter_block: <= MPI_Reduce + MPI_Scatter; ...) is
# measured at NP processes, `isochron guidelines --profile` turns its violations into
# libisochron-tune.so's profile; then COLL is measured by isochron-bench without and with the layer
# (LD_PRELOAD + ISOCHRON_TUNE_PROFILE), in one interleaved launch set, and `isochron compare` states
# the ratio per size on the launch level. Sizes outside the profile's range must stay the same
# within noise (the layer passes them on). Both measurements write the send buffers before every
# repetition (VALIDATE=2), as a program computes a new contribution before every call: on buffers
# that never change, Open MPI's scan looked 3x slower than its mock-up and is not (docs/tuning.md).
#   COLL=scan NP=2 LAUNCHES=4 SIZES=1K,32K,64K,256K BUDGET=0.3 VALIDATE=2 PROFILE=FILE (default: from
#   GUIDELINES)  GUIDELINES=DIR: the guideline launch set at NP (default: measure one, COLL only, 3 launches)
set -euo pipefail
[ -n "${PY:-}" ] || PY=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
. "$(dirname "$0")/common.sh"
bench_init COLL=scan NP=2 LAUNCHES=4 SIZES=1K,32K,64K,256K BUDGET=0.3 VALIDATE=2 PROFILE= GUIDELINES=
layer=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")/libisochron-tune.so  # BUILD relative to the repository or absolute
[ -f "$layer" ] || { echo "tune_layer.sh: no $layer (build it first)" >&2; exit 2; }
echo "# tune_layer: $COLL at $NP processes, --validate $VALIDATE, sizes $SIZES, $LAUNCHES launches per configuration; $(bench_cores)"
if [ -z "$PROFILE" ]; then
  if [ -z "$GUIDELINES" ]; then
    "$PY" -m isochron.cli guidelines --run "$OUT/gl" --np "$NP" --colls "$COLL" --launches 3 --sizes "$SIZES" \
      --bench "$BUILD/isochron-bench" --bench-args "--budget $BUDGET --validate $VALIDATE" > "$OUT/gl.txt" 2> "$OUT/gl.log"
    GUIDELINES=$OUT/gl/np$NP
  fi
  PROFILE=$OUT/profile.txt
  "$PY" -m isochron.cli guidelines "$GUIDELINES" --profile "$PROFILE" --profile-np "$NP" > "$OUT/gl2.txt"
fi
echo "# the profile:"; cat "$PROFILE"
mkdir -p "$OUT/cfg"
echo "--ops $COLL --sizes $SIZES --budget $BUDGET --validate $VALIDATE" > "$OUT/cfg/default.args"
{ echo "--ops $COLL --sizes $SIZES --budget $BUDGET --validate $VALIDATE"
  echo "launcher-args: -x LD_PRELOAD=$layer -x ISOCHRON_TUNE_PROFILE=$(cd "$(dirname "$PROFILE")" && pwd)/$(basename "$PROFILE")"; } > "$OUT/cfg/layer.args"
"$PY" -m isochron.cli run --launches "$LAUNCHES" -o "$OUT/set" --configs "$OUT"/cfg/*.args -- \
  tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" 2> "$OUT/run.log" >/dev/null || { cat "$OUT/run.log" >&2; exit 1; }
echo
"$PY" -m isochron.cli compare "$OUT/set:default" "$OUT/set:layer"
echo "# load at end: $(bench_load)"
