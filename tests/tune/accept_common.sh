# shellcheck shell=bash
# Sourced by the acceptance tests of isochron tune's rules files (rules_accept.sh: Open MPI,
# mpich_json_accept.sh: MPICH): accept_init SRC PATTERN NAME sets py (the checkout's venv Python,
# else python3), mpirun (MPIRUN, else mpirun) and tmp (removed at exit), and skips (exit 77)
# unless `$mpirun --version` matches the extended regex PATTERN (the library NAME).
accept_init() {
  py=$1/.venv/bin/python
  [ -x "$py" ] || py=python3
  mpirun=${MPIRUN:-mpirun}
  "$mpirun" --version 2>/dev/null | grep -Eq "$2" || { echo "SKIP: not $3 ($mpirun)"; exit 77; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}
