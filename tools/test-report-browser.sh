#!/usr/bin/env bash
# The HTML report as a reader sees it (issue 36): `isochron report` of a clock, a benchmark, a
# barrier and an OpenSHMEM run, opened in headless Chromium (Debian's `chromium`, installed here
# when missing and run as root: it is large, about 80 s to install on this VM, so it is not among
# tools/install-deps.sh's build dependencies). tools/test-report-browser.py checks that the page
# loads with no console error, that every image decodes, and writes a full-page screenshot.
# The runs are those `make run` wrote (build/*-run.jsonl) when present, else the Python tests'
# fixtures (real driver output, python/tests/fixtures/README.md), so no MPI job is needed.
#   bash tools/test-report-browser.sh [OUTDIR]      (default build/report-browser)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/report-browser}
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    t0=$SECONDS
    echo "test-report-browser: installing chromium (Debian package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
    echo "test-report-browser: chromium installed in $((SECONDS - t0)) s"
  else
    echo "test-report-browser: chromium is not installed; install it (Debian: apt-get install chromium) and run again" >&2
    exit 1
  fi
fi
isochron=.venv/bin/isochron
[ -x "$isochron" ] || make -s pydeps >/dev/null
runs=(build/clock-run.jsonl build/bench-run.jsonl build/barrier-run.jsonl)
if [ -f "${runs[0]}" ] && [ -f "${runs[1]}" ] && [ -f "${runs[2]}" ]; then
  [ -f build/shmem-run.jsonl ] && runs+=(build/shmem-run.jsonl)
else
  fx=python/tests/fixtures
  runs=("$fx/clock-track.jsonl" "$fx/bench-roundtime.jsonl" "$fx/barrier-4ranks.jsonl" "$fx/shmem-2pes.jsonl")
fi
rm -rf "$out"
"$isochron" report "${runs[@]}" -o "$out" >/dev/null
python3 tools/test-report-browser.py "$out/index.html" "$out/screenshot.png" 1920
