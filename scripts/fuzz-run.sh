#!/bin/sh
# fuzz-run.sh: runs the libFuzzer binary FUZZER for $FUZZ_SECONDS (default 60) seconds,
# writing what it finds to WORK_CORPUS and reading the committed seeds in SEED_CORPUS too, with
# the libFuzzer dictionary NAME.dict two levels above SEED_CORPUS (tests/fuzz/NAME.dict) if any.
# Appends "fuzz_executions N" (and "fuzz_targets 1") to $COUNTS when set. A crash fails the
# run and leaves the input as build-fuzz/crash-*: commit it to the seed corpus and add a
# regression test.
set -e
fuzzer=${1:?usage: fuzz-run.sh FUZZER WORK_CORPUS SEED_CORPUS}
work=${2:?}
seeds=${3:?}
secs=${FUZZ_SECONDS:-60}
log=$work.log
dict=$(dirname "$(dirname "$seeds")")/$(basename "$fuzzer").dict
mkdir -p "$work"
set --
if [ -f "$dict" ]; then set -- -dict="$dict"; fi
status=0
"$fuzzer" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix=build-fuzz/ \
  -timeout=10 -rss_limit_mb=2048 "$@" "$work" "$seeds" >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "fuzz: $(basename "$fuzzer"): ${runs:-0} executions in ${secs} s" \
  "($((${runs:-0} / (secs > 0 ? secs : 1)))/s), exit $status"
if [ -n "${COUNTS:-}" ]; then
  mkdir -p "$(dirname "$COUNTS")"
  echo "fuzz_executions ${runs:-0}" >>"$COUNTS"
  echo "fuzz_targets 1" >>"$COUNTS"
fi
if [ "$status" != 0 ]; then
  tail -n 40 "$log" >&2
  exit "$status"
fi
