#!/bin/bash
# A Slurm batch job: clock-sync accuracy check, the default sweep, the barrier
# experiments, and the HTML report of the three. Submit from an installed
# isochron (bin/ on PATH, the Python package installed with pip):
#   sbatch --nodes=2 --ntasks-per-node=16 examples/slurm-isochron.sh
# Results go to isochron-<jobid>/ in the submission directory.
#SBATCH --job-name=isochron
#SBATCH --time=00:30:00
#SBATCH --exclusive
set -euo pipefail
out=${SLURM_SUBMIT_DIR:-$PWD}/isochron-${SLURM_JOB_ID:-local}
mkdir -p "$out"
launch() { srun --cpu-bind=cores "$@"; }   # or: mpirun --hostfile hosts -np N --bind-to core
# 1. how true is the global clock across the nodes, right after sync and later (tracked)
# (prop, within a node, needs one time source per node: Open MPI's MPI_Wtime has one origin per
# process, so the timer is monotonic; docs/running.md)
launch isochron-clock --sync hca3+prop --timer monotonic --wait 0,10,60 --jsonl "$out/clock.jsonl"
# 2. every blocking collective, 8 B..1 MiB, Round-Time on the tracked global clock
launch isochron-bench --jsonl "$out/bench.jsonl" --csv "$out/bench.csv"
# 3. barrier algorithms: exit skew and the cost of synchronizing
launch isochron-barrier --jsonl "$out/barrier.jsonl"
isochron report "$out/clock.jsonl" "$out/bench.jsonl" "$out/barrier.jsonl" -o "$out/report"
echo "report: $out/report/index.html"
