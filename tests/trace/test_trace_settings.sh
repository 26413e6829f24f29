#!/usr/bin/env bash
# Bad settings of libisochron-trace.so (issue 30), one case a run:
#   test_trace_settings.sh CASE NP LIBISOCHRON_TRACE TRACE_STENCIL TRACE_LOSE
# A refused case must end the job before the application runs (trace_stencil
# never prints its line), with a non-zero exit status and one message naming
# the variable and the value (and what is valid). Case "lost": the trace
# cannot be written at MPI_Finalize (trace_lose replaces the directory by a
# file after MPI_Init): the program runs, the job says the trace was not
# written, naming the directory, and exits non-zero. Case "differ": one rank
# has another ISOCHRON_TRACE_POLL: refused, not a hang.
set -uo pipefail
case=$1 np=$2 lib=$3 app=$4 lose=$5
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../../tools/mpirun-local"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL test_trace_settings $case: $*"; exit 1; }
dir=$tmp/out
envs=()
long=$tmp/$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))
for i in 1 2 3 4 5 6 7 8 9 10; do long=$long/$(printf 'f%.0s' $(seq 1 200)); done
case $case in
  dir_file)     : > "$tmp/file"; dir=$tmp/file; want="ISOCHRON_TRACE_DIR=$tmp/file: names a regular file, not a directory" ;;
  dir_under_file) : > "$tmp/file"; dir=$tmp/file/sub; want="ISOCHRON_TRACE_DIR=$tmp/file/sub: cannot create the directory: Not a directory" ;;
  dir_unwritable) dir=/proc/1; want="ISOCHRON_TRACE_DIR=/proc/1: cannot write in the directory" ;;
  dir_long)     dir=$long; want="ISOCHRON_TRACE_DIR: [0-9]+ bytes, longer than the 2048 allowed" ;;
  name_path)    envs=(ISOCHRON_TRACE_NAME=sub/x); want="ISOCHRON_TRACE_NAME=sub/x: a file name is expected, not a path" ;;
  name_up)      envs=(ISOCHRON_TRACE_NAME=../x); want="ISOCHRON_TRACE_NAME=\.\./x: a file name is expected, not a path" ;;
  name_long)    envs=(ISOCHRON_TRACE_NAME=$(printf 'n%.0s' $(seq 1 256))); want="ISOCHRON_TRACE_NAME=n+\.\.\.: a file name of 1 to 200 bytes is expected, this one has 256" ;;
  name_json_dir) mkdir -p "$dir/t.json"; envs=(ISOCHRON_TRACE_NAME=t ISOCHRON_TRACE_FORMATS=json); want="ISOCHRON_TRACE_NAME=t: .*t.json exists and is not a regular file" ;;
  calls_empty)  envs=(ISOCHRON_TRACE_CALLS=,); want="ISOCHRON_TRACE_CALLS=,: empty element" ;;
  formats_empty) envs=(ISOCHRON_TRACE_FORMATS=,); want="ISOCHRON_TRACE_FORMATS=,: empty element" ;;
  formats_none_json) envs=(ISOCHRON_TRACE_FORMATS=none,json); want="ISOCHRON_TRACE_FORMATS=none,json: none .*cannot be combined" ;;
  sync_limit)   envs=(ISOCHRON_TRACE_SYNC=hca3/1000000/skampi/100000); want="ISOCHRON_TRACE_SYNC=hca3/1000000/skampi/100000: estimated to take .* beyond ISOCHRON_TRACE_SYNC_LIMIT=600 s" ;;
  sync_limit_bad) envs=(ISOCHRON_TRACE_SYNC_LIMIT=nan); want="ISOCHRON_TRACE_SYNC_LIMIT=nan: expected 0 \(off\) or seconds" ;;
  interval_nan) envs=(ISOCHRON_TRACE_MIN_INTERVAL=nan); want="ISOCHRON_TRACE_MIN_INTERVAL=nan: expected seconds in \[0.001, 10\]" ;;
  track_bad)    envs=(ISOCHRON_TRACE_TRACK=yes); want="ISOCHRON_TRACE_TRACK=yes: not a switch; valid: off, on" ;;
  misspelt)     envs=(ISOCHRON_TRACE_FORMAT=json); want="ISOCHRON_TRACE_FORMAT: not a setting of this layer .*valid: .*ISOCHRON_TRACE_FORMATS" ;;
  differ)       # rank 1 alone polls every 3rd collective: it would wait in a collective the others never enter
                cat > "$tmp/app.sh" <<WRAP
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
[ "\$r" = 1 ] && export ISOCHRON_TRACE_POLL=3
exec "$app" "\$@"
WRAP
                chmod +x "$tmp/app.sh"; app=$tmp/app.sh
                want="rank 1: the settings that drive collective operations differ from rank 0's: here .*ISOCHRON_TRACE_POLL=3 .*; on rank 0 .*ISOCHRON_TRACE_POLL=16 " ;;
  lost) ;;
  *) fail "unknown case" ;;
esac
if [ "$case" = lost ]; then
  env ISOCHRON_TRACE_DIR="$dir" ISOCHRON_TRACE_SYNC=none LD_PRELOAD="$lib" "$run" -np "$np" "$lose" > "$tmp/log" 2>&1
  rc=$?
  cat "$tmp/log" | grep -v '^\s*$' | head -20
  [ "$rc" -ne 0 ] || fail "the trace was lost and the job exited 0"
  grep -q "^trace_lose: ran" "$tmp/log" || fail "the program did not run to its end"
  grep -Eq "isochron-trace: ISOCHRON_TRACE_DIR=$dir: names a regular file, not a directory; the trace is lost" "$tmp/log" || fail "no message naming the directory"
  grep -q "isochron-trace: the trace was not written; the job's exit status will be 4" "$tmp/log" || fail "no message on the exit status"
else
  env "${envs[@]}" ISOCHRON_TRACE_DIR="$dir" LD_PRELOAD="$lib" "$run" -np "$np" "$app" 5 100 > "$tmp/log" 2>&1
  rc=$?
  grep -v '^\s*$' "$tmp/log" | head -5 | cut -c1-400
  [ "$rc" -ne 0 ] || fail "exit status 0"
  ! grep -q "^trace_stencil:" "$tmp/log" || fail "the application ran"
  n=$(grep -Ec "^isochron-trace: (rank [0-9]+: )?$want" "$tmp/log")
  [ "$n" = 1 ] || fail "expected one message matching '$want', found $n"
fi
echo "test_trace_settings $case np $np: PASS"
