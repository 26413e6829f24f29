#!/usr/bin/env bash
# Algorithm tuning of a collective under MPICH 4.0 (Debian's 4.0.2): bench/tune_ompi.sh with
# MPI=mpich, the driver of an MPICH build (BUILD=build-mpich: tools/test-mpich.sh makes it) and
# mpirun.mpich. isochron tune writes MPICH's JSON selection files (rules.json for
# MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE and, for allreduce, bcast and reduce, rules.ch4.json for
# MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE) from the library's own trees; docs/tuning.md.
#   COLL=allreduce NP=2 SIZES=... LAUNCHES=4 VLAUNCHES=4 KEEP=DIR as bench/tune_ompi.sh
set -euo pipefail
export MPI=mpich BUILD=${BUILD:-build-mpich} MPIRUN=${MPIRUN:-mpirun.mpich}
exec bash "$(dirname "$0")/tune_ompi.sh" "$@"
