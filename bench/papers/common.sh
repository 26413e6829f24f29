# shellcheck shell=bash
# Helpers shared by the paper reproductions (bench/papers/paperNNN.sh, issue 28): sourced, not run.
# A paper script regenerates the paper's key tables and figures at the scales this machine has
# (real ranks, tools/cluster's namespace nodes, SimGrid), prints each result beside the paper's
# published number, and saves a results file and figures under bench/results/papers/.
#
#   papers_cli "$@"                 --help/-h prints the script's leading comment block and exits 0;
#                                   any argument is refused (settings are environment variables)
#   papers_parts ALL                PARTS (default ALL, the parts a script has): each must be one of ALL
#   papers_np [DEFAULT]             NP (default DEFAULT, 4): a rank count >= 2
#   papers_init NAME [--deferred]   cd to the repository, check MODE (quick|full) and BUILD, set ROOT
#                                   BUILD PY RES_DIR RES (results file) FIG_PREFIX, then papers_start
#                                   at once (stdout copied to RES); with --deferred nothing is written
#                                   until the script calls papers_start after its own checks
#   papers_start                    WORK directory; stdout copied to RES (deferred: to RES.partial)
#   papers_cluster_up NAME ARGS...  tools/cluster up ARGS as cluster NAME; a cluster still up at exit
#   papers_cluster_down             goes down then (papers_cluster_down takes it down before)
#   papers_finish                   (deferred) RES.partial becomes RES: a failed or interrupted run
#                                   leaves the previous results file untouched
#   papers_context                  the run's context: date, commit, cores, MPI, load average, and
#                                   "UNDER LOAD" when the 1-minute load exceeds the cores
#   papers_load                     "load a b c on N cores[ (under load)]" (call before each experiment)
#   papers_peers                    build OSU, IMB, ReproMPI from source paths the user gives, outside
#                                   the repository, once (see below); sets OSU_DIR IMB REPROMPI
#   papers_mpirun NP ARGS...        tools/mpirun-local (Open MPI flags for root/oversubscription)
#   papers_row EXP PAPER HERE NOTE  one row of the side-by-side table (markdown), also kept in $RES
#   papers_die MSG                  one-line error on stderr, exit 2
#
# Peers (never committed, never vendored, never downloaded by these scripts). Give either built
# binaries or their sources; sources are built once into PEERS_BUILD (default /var/tmp/isochron-peers,
# outside /tmp so that tools/cluster's nodes, which have a private /tmp, see them too):
#   OSU_DIR       OSU 7.x's libexec/osu-micro-benchmarks/mpi     or OSU_SRC   (its configure script)
#   IMB           IMB-MPI1                                       or IMB_SRC   (intel/mpi-benchmarks)
#   REPROMPI      ReproMPI's bin/mpibenchmark (REPROMPI_LIBS:    or REPROMPI_SRC + MPITS_SRC (hunsa/reprompi
#                 the directory of its libmpits.so)                 and hunsa/mpi-time-sync, which its
#                                                                   CMake would otherwise git-clone)
# A peer given neither way is skipped, and its columns say "-".

papers_die() { echo "$(basename "$0"): $*" >&2; exit 2; }

papers_cli() { # "$@" of the paper script
  if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
  fi
  [ $# -eq 0 ] || { echo "$(basename "$0"): unexpected argument '$1' (settings are environment variables; see --help)" >&2; exit 2; }
}

papers_parts() { # ALL: the script's parts, space-separated
  local p
  PARTS=${PARTS:-$1}
  for p in $PARTS; do
    case " $1 " in *" $p "*) ;; *) papers_die "PARTS: '$p' is not a part; choose from $1";; esac
  done
}

papers_np() { # [DEFAULT]
  NP=${NP:-${1:-4}}
  case "$NP" in ''|*[!0-9]*) papers_die "NP='$NP': give a rank count >= 2";; esac
  [ "$NP" -ge 2 ] || papers_die "NP='$NP': give a rank count >= 2"
}

papers_init() { # NAME [--deferred]
  PAPER=$1 PAPERS_DEFERRED=0
  [ "${2:-}" = --deferred ] && PAPERS_DEFERRED=1
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cd "$ROOT"
  BUILD=$(readlink -f "${BUILD:-build}")
  MODE=${MODE:-quick}
  case "$MODE" in quick|full) ;; *) papers_die "MODE='$MODE': choose quick (minutes) or full (the paper's repetition counts, longer)";; esac
  [ -x "$BUILD/isochron-bench" ] || papers_die "BUILD='$BUILD': no isochron-bench there; build first (cmake -S . -B build && cmake --build build)"
  PY=${PY:-}
  if [ -z "$PY" ]; then
    for c in "$ROOT/.venv/bin/python" /work/main/.venv/bin/python python3; do
      if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then PY=$c; break; fi
    done
    PY=${PY:-python3}
  fi
  RES_DIR=${RES_DIR:-$ROOT/bench/results/papers}
  mkdir -p "$RES_DIR"
  local mpi
  mpi=$(mpirun --version 2>/dev/null | head -1 | grep -o '[0-9][0-9.]*' | head -1 | tr -d .)
  TAG=${TAG:-$(nproc)cores-ompi${mpi:-x}-$MODE}
  RES=${RES:-$RES_DIR/$PAPER-$TAG.txt}
  FIG_PREFIX=${FIG_PREFIX:-$RES_DIR/$PAPER-$TAG}
  [ "$PAPERS_DEFERRED" = 1 ] || papers_start
}

papers_start() {
  WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/isochron-$PAPER.XXXXXX")
  trap papers_cleanup EXIT
  if [ "$PAPERS_DEFERRED" = 1 ]; then exec > >(tee "$RES.partial"); else : > "$RES"; exec > >(tee -a "$RES"); fi
}

papers_cleanup() { # at exit: a cluster left up goes down; WORK is removed unless KEEP is given
  [ -z "${PAPERS_CLUSTER:-}" ] || ISOCHRON_CLUSTER=$PAPERS_CLUSTER "$ROOT/tools/cluster" down >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}

papers_cluster_up() { # NAME ARGS...
  PAPERS_CLUSTER=$1
  ISOCHRON_CLUSTER=$1 "$ROOT/tools/cluster" up "${@:2}" >/dev/null
}

papers_cluster_down() {
  ISOCHRON_CLUSTER=$PAPERS_CLUSTER "$ROOT/tools/cluster" down >/dev/null
  PAPERS_CLUSTER=
}

papers_rel() {  # a path inside the repository relative to it; one outside by its name only
  case "$1" in "$ROOT"/*) echo "${1#"$ROOT"/}" ;; *) echo "$(basename "$1") (outside the repository)" ;; esac
}

papers_finish() {
  echo "results: $(papers_rel "$RES")"
  [ "$PAPERS_DEFERRED" = 1 ] || return 0
  sleep 0.2  # let tee write the last lines
  mv -f "$RES.partial" "$RES"
}

papers_load() {
  local l1 l5 l15 n
  read -r l1 l5 l15 _ < /proc/loadavg
  n=$(nproc)
  if awk -v l="$l1" -v n="$n" 'BEGIN{exit !(l > n)}'; then
    echo "load $l1 $l5 $l15 on $n cores (under load: other jobs share the cores)"
  else
    echo "load $l1 $l5 $l15 on $n cores"
  fi
}

papers_context() {
  echo "# $PAPER reproduction, mode $MODE, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # paths relative to the repository (a result names no file of the machine it ran on: tests/docs/check_paths.py)
  echo "# isochron $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty'), build $(papers_rel "$BUILD")"
  echo "# $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(mpirun --version 2>/dev/null | head -1), $("$PY" --version 2>&1)"
  echo "# $(papers_load)"
  echo "# peers: OSU ${OSU_DIR:-not given}; IMB ${IMB:-not given}; ReproMPI ${REPROMPI:-not given}"
}

papers_mpirun() { "$ROOT/tools/mpirun-local" "$@"; }

papers_row() { printf "| %s | %s | %s | %s |\n" "$1" "$2" "$3" "$4"; }

# --- peers ---------------------------------------------------------------------------------------
papers_peers() {
  PEERS_BUILD=${PEERS_BUILD:-/var/tmp/isochron-peers}
  case "$(readlink -f "$PEERS_BUILD")/" in "$ROOT"/*) papers_die "PEERS_BUILD='$PEERS_BUILD' is inside the repository; peers are built outside it";; esac
  mkdir -p "$PEERS_BUILD"
  if [ -z "${OSU_DIR:-}" ] && [ -n "${OSU_SRC:-}" ]; then
    [ -x "$OSU_SRC/configure" ] || papers_die "OSU_SRC='$OSU_SRC': no configure script there (the OSU Micro-Benchmarks source tree)"
    local inst=$PEERS_BUILD/osu-inst
    if [ ! -x "$inst/libexec/osu-micro-benchmarks/mpi/collective/osu_allreduce" ]; then
      echo "building OSU from $OSU_SRC into $PEERS_BUILD (log: $PEERS_BUILD/osu.log)" >&2
      mkdir -p "$PEERS_BUILD/osu-build"
      (cd "$PEERS_BUILD/osu-build" && "$OSU_SRC/configure" CC=mpicc CXX=mpicxx --prefix="$inst" && make -j"$(nproc)" && make install) \
        > "$PEERS_BUILD/osu.log" 2>&1 || papers_die "OSU build failed; see $PEERS_BUILD/osu.log"
    fi
    OSU_DIR=$inst/libexec/osu-micro-benchmarks/mpi
  fi
  if [ -z "${IMB:-}" ] && [ -n "${IMB_SRC:-}" ]; then
    [ -d "$IMB_SRC/src_cpp" ] || papers_die "IMB_SRC='$IMB_SRC': no src_cpp there (the intel/mpi-benchmarks source tree)"
    if [ ! -x "$PEERS_BUILD/imb/IMB-MPI1" ]; then
      echo "building IMB-MPI1 from $IMB_SRC in $PEERS_BUILD/imb (log: $PEERS_BUILD/imb.log)" >&2
      rm -rf "$PEERS_BUILD/imb"; cp -r "$IMB_SRC" "$PEERS_BUILD/imb"
      # Open MPI's C++ bindings do not compile under IMB's -Werror; IMB does not use them
      (cd "$PEERS_BUILD/imb" && make IMB-MPI1 CC=mpicc CXX="mpicxx -DOMPI_SKIP_MPICXX=1 -Wno-error") \
        > "$PEERS_BUILD/imb.log" 2>&1 || papers_die "IMB build failed; see $PEERS_BUILD/imb.log"
    fi
    IMB=$PEERS_BUILD/imb/IMB-MPI1
  fi
  if [ -z "${REPROMPI:-}" ] && [ -n "${REPROMPI_SRC:-}" ]; then
    [ -f "$REPROMPI_SRC/CMakeLists.txt" ] || papers_die "REPROMPI_SRC='$REPROMPI_SRC': no CMakeLists.txt there (the hunsa/reprompi source tree)"
    [ -n "${MPITS_SRC:-}" ] && [ -d "$MPITS_SRC" ] || papers_die "MPITS_SRC='${MPITS_SRC:-}': ReproMPI needs hunsa/mpi-time-sync's source tree (its CMake would git-clone it)"
    if [ ! -x "$PEERS_BUILD/reprompi/bin/mpibenchmark" ]; then
      echo "building ReproMPI from $REPROMPI_SRC in $PEERS_BUILD/reprompi (log: $PEERS_BUILD/reprompi.log)" >&2
      (cmake -S "$REPROMPI_SRC" -B "$PEERS_BUILD/reprompi" -DCMAKE_BUILD_TYPE=Release -DFETCHCONTENT_SOURCE_DIR_MPITS="$MPITS_SRC" \
         && cmake --build "$PEERS_BUILD/reprompi" -j"$(nproc)") > "$PEERS_BUILD/reprompi.log" 2>&1 \
        || papers_die "ReproMPI build failed (it needs libgsl-dev); see $PEERS_BUILD/reprompi.log"
    fi
    REPROMPI=$PEERS_BUILD/reprompi/bin/mpibenchmark
    REPROMPI_LIBS=${REPROMPI_LIBS:-$PEERS_BUILD/reprompi/_deps/mpits-build}
  fi
  if [ -n "${REPROMPI:-}" ] && [ -z "${REPROMPI_LIBS:-}" ]; then
    REPROMPI_LIBS=$(dirname "$(find "$(dirname "$REPROMPI")/.." -name 'libmpits.so' -print -quit 2>/dev/null)" 2>/dev/null || true)
  fi
  [ -z "${OSU_DIR:-}" ] || [ -d "$OSU_DIR/collective" ] || papers_die "OSU_DIR='$OSU_DIR': no collective/ there (give OSU's libexec/osu-micro-benchmarks/mpi)"
  [ -z "${IMB:-}" ] || [ -x "$IMB" ] || papers_die "IMB='$IMB': not an executable (give the IMB-MPI1 binary)"
  [ -z "${REPROMPI:-}" ] || [ -x "$REPROMPI" ] || papers_die "REPROMPI='$REPROMPI': not an executable (give ReproMPI's bin/mpibenchmark)"
  export OSU_DIR IMB REPROMPI REPROMPI_LIBS
}

# ReproMPI links libmpits.so from its build tree: run it with that directory on the library path
papers_reprompi() { # NP ARGS...
  local np=$1; shift
  LD_LIBRARY_PATH=${REPROMPI_LIBS:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} papers_mpirun -np "$np" -x LD_LIBRARY_PATH "$REPROMPI" "$@"
}
