#!/usr/bin/env bash
# bench/spack.sh: build isochron with Spack from this checkout, offline, against the machine's own
# packages, and run the recipe's stand-alone tests (issue 39). Not a CI stage: a Spack build takes
# minutes and needs a Spack checkout, which this script never downloads.
#
# Design. Everything Spack writes (configuration, caches, the environment, the install tree) goes
# under WORK, never into ~/.spack or the checkout: SPACK_USER_CONFIG_PATH, SPACK_USER_CACHE_PATH and
# SPACK_DISABLE_LOCAL_CONFIG keep the user's and the site's configuration out. The sources are a
# `git archive` of HEAD (the committed tree) in WORK/src, given to Spack with `spack develop`, so a
# build directory never lands in the repository. The concretizer needs clingo: Spack imports it from
# the Python it runs under before it would bootstrap (download) one, so WORK/venv gets PyPI's
# `clingo` (pip; SPACK_PYTHON points Spack at that venv). Compilers (`spack compiler find`) and
# externals (`spack external find --not-buildable`: MPI, CMake, hwloc, OTF2, Python, make, pkgconf)
# are the machine's, and the mirror list is emptied: nothing may be fetched, so a package Spack would
# have to build from source is an error naming it, not a download. Each spec (the default, +otf2,
# +shmem) is installed and `spack test run` executed; a spec that fails is reported with the last
# lines of its log and the script goes on. References: Spack's documentation (environments, `spack
# develop`, external packages, stand-alone tests), packaging/spack/packages/isochron/package.py.
#   [VARIANTS="+hwloc +hwloc+otf2 ..."] bench/spack.sh SPACK_PATH [WORK]
#        (WORK default: /tmp/isochron-spack; the transcript goes to bench/results/spack.txt, or
#         bench/results/spack-TAG.txt with TAG=...)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: bench/spack.sh SPACK_PATH [WORK]   (a Spack checkout; this script never downloads one)" >&2; exit 2; }
SPACK_ROOT=$(readlink -f "$1")
[ -x "$SPACK_ROOT/bin/spack" ] || { echo "bench/spack.sh: $1 is not a Spack checkout (no bin/spack)" >&2; exit 2; }
cd "$(dirname "$0")/.."
ROOT=$PWD
W=${2:-/tmp/isochron-spack}
OUT=$ROOT/bench/results/spack${TAG:+-$TAG}.txt
# a fresh WORK, but Spack's package index cache (minutes to rebuild on a loaded host) is kept
find "$W" -mindepth 1 -maxdepth 1 ! -name user-cache -exec rm -rf {} + 2>/dev/null
mkdir -p "$W/src" "$ROOT/bench/results"
exec > >(tee "$OUT") 2>&1
t0=$SECONDS
say() { echo "== $* ($((SECONDS - t0)) s)"; }

export SPACK_USER_CONFIG_PATH=$W/user-config SPACK_USER_CACHE_PATH=$W/user-cache SPACK_DISABLE_LOCAL_CONFIG=1
python3 -m venv "$W/venv" && "$W/venv/bin/pip" install -q --disable-pip-version-check clingo ||
  { echo "bench/spack.sh: cannot install clingo (PyPI) into $W/venv: Spack's concretizer needs it"; exit 1; }
export SPACK_PYTHON=$W/venv/bin/python
S() { echo "\$ spack $*"; "$SPACK_ROOT/bin/spack" "$@"; }

say "Spack $(cd "$SPACK_ROOT" && git describe --always --tags 2>/dev/null || echo '(no git)'), $("$SPACK_ROOT/bin/spack" --version), isochron $(git describe --always --dirty)"
git archive HEAD | tar -x -C "$W/src"

S env create -d "$W/env" >/dev/null
E() { S -e "$W/env" "$@"; }
cat >"$W/env/spack.yaml" <<EOF
spack:
  specs: []
  view: false
  concretizer:
    unify: false
    reuse: true
  mirrors: {}
  config:
    install_tree:
      root: $W/opt
    build_stage: [$W/stage]
    test_stage: $W/test-stage
    source_cache: $W/source-cache
    misc_cache: $W/misc-cache
  repos: [$ROOT/packaging/spack]
EOF
E compiler find
# the system's directories only: a pyenv shim (/root/.pyenv/shims here) is no Python prefix, and Spack's
# python package then fails the dependent build ("Unable to locate python command in .../shims/bin")
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  E external find --not-buildable openmpi cmake hwloc otf2 python gmake pkgconf ninja
# OTF2 has no detection in Spack's package: Debian's, declared by hand (its otf2-config says the version)
if command -v otf2-config >/dev/null; then
  printf 'packages:\n  otf2:\n    externals:\n    - spec: otf2@%s\n      prefix: /usr\n    buildable: false\n' \
    "$(otf2-config --version | awk '{print $NF}')" >"$W/otf2.yaml"
  E config add -f "$W/otf2.yaml"
fi
E config get packages | sed -n '1,60p'
E develop --no-clone --path "$W/src" isochron@main
say "externals found"

status=0
for v in ${VARIANTS:-+hwloc +hwloc+otf2 +hwloc+shmem}; do
  spec="isochron@main$v"
  E add "$spec" >/dev/null
  say "concretize $spec"
  E concretize -f 2>&1 | grep -v '^ *$' | tail -n 25
  say "install $spec"
  if E install --fail-fast "$spec" 2>&1 | tail -n 30; then
    say "installed $spec"
  else
    echo "bench/spack.sh: FAIL: spack install $spec"; status=1
  fi
  say "spack test run $spec"
  if E test run --alias "smoke${v//+/_}" "$spec"; then
    E test results -l "smoke${v//+/_}" 2>&1 | tail -n 25
  else
    E test results -l "smoke${v//+/_}" 2>&1 | tail -n 40
    echo "bench/spack.sh: FAIL: spack test run $spec"; status=1
  fi
  E remove "$spec" >/dev/null
done
E find -lv isochron
say "done (status $status)"
exit $status
