#!/usr/bin/env bash
# Per-call cost and resolution of every timer (median-free: min of 5 runs of 1e6 calls), one rank.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/mpirun-local -np 1 "${BUILD:-build}/isochron-clock" --timer-cost
