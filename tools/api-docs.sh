#!/usr/bin/env bash
# The API reference of libisochron, from the public headers' /** */ comments (issue 36): Doxygen
# (Debian's `doxygen`, an optional dependency: installed here when missing and run as root, since
# tools/install-deps.sh installs only what the build and the tests need) writes HTML into
# OUT (default build/api/html/index.html). Every warning is an error (WARN_AS_ERROR): a \param that
# names no parameter, a broken \ref or a malformed command fails the run, so the reference cannot
# rot silently. Declarations without a comment are listed without a warning (WARN_IF_UNDOCUMENTED
# off): the headers document what they mean to, and a missing comment is a review matter.
#   bash tools/api-docs.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/api}
if ! command -v doxygen >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "api-docs: installing doxygen (Debian package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q doxygen >/dev/null
  else
    echo "api-docs: doxygen is not installed; install it (Debian: apt-get install doxygen) and run again" >&2
    exit 1
  fi
fi
mkdir -p "$out"
version=$(sed -n 's/^#define ISOCHRON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' include/isochron.h | paste -sd.)
log="$out/warnings.log"
# The configuration, whole (no Doxyfile to drift): the public headers only, C, no sources.
rc=0
doxygen - <<EOF_DOXY || rc=$?
PROJECT_NAME           = isochron
PROJECT_NUMBER         = $version
PROJECT_BRIEF          = "Communication times on a global clock"
OUTPUT_DIRECTORY       = $out
INPUT                  = include/isochron.h include/isochron
FILE_PATTERNS          = *.h
RECURSIVE              = NO
STRIP_FROM_PATH        = include
STRIP_FROM_INC_PATH    = include
OPTIMIZE_OUTPUT_FOR_C  = YES
EXTRACT_ALL            = YES
EXTRACT_STATIC         = NO
JAVADOC_AUTOBRIEF      = YES
ENABLE_PREPROCESSING   = YES
MACRO_EXPANSION        = NO
PREDEFINED             = __cplusplus=0
GENERATE_HTML          = YES
GENERATE_LATEX         = NO
HTML_TIMESTAMP         = NO
SEARCHENGINE           = NO
HAVE_DOT               = NO
QUIET                  = YES
WARNINGS               = YES
WARN_IF_UNDOCUMENTED   = NO
WARN_IF_DOC_ERROR      = YES
WARN_IF_INCOMPLETE_DOC = NO
WARN_NO_PARAMDOC       = NO
WARN_AS_ERROR          = FAIL_ON_WARNINGS
WARN_LOGFILE           = $log
EOF_DOXY
if [ -s "$log" ] || [ "$rc" -ne 0 ]; then
  cat "$log" >&2 2>/dev/null || true
  echo "api-docs: FAIL: doxygen exited $rc and warned ($(wc -l < "$log" 2>/dev/null || echo 0) lines above)" >&2
  exit 1
fi
echo "api-docs: $out/html/index.html ($(find "$out/html" -name '*.html' | wc -l) pages, no warning)"
