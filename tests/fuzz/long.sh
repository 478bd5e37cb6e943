#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The long fuzzing run (hours; not CI's): every harness on the whole real traces and
# manifests, without run.sh's input cap:
#   tests/fuzz/long.sh BUILD_DIR [SECONDS_PER_HARNESS (default 3600)] [harness...]
# Seeds: BUILD_DIR/fuzz-seeds/<harness> and BUILD_DIR/fuzz-seeds-full/<harness> (both from
# the fuzz_seeds_run target); the corpus grows in BUILD_DIR/fuzz-corpus-long/<harness>,
# crashes go to BUILD_DIR/fuzz-artifacts/. JOBS (default 1) runs that many fuzzing jobs per
# harness (-jobs/-workers). Exits 1 when a harness finds a crash, leak, timeout or OOM.
set -uo pipefail
build=${1:?usage: long.sh BUILD_DIR [SECONDS] [harness...]}
secs=${2:-3600}
shift $(( $# >= 2 ? 2 : 1 ))
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(nettrace etl ctf manifest xpress decode format ipc report)
jobs=${JOBS:-1}
art="$build/fuzz-artifacts"
mkdir -p "$art"
fail=0
for h in "${harnesses[@]}"; do
    corpus="$build/fuzz-corpus-long/$h"
    mkdir -p "$corpus" "$build/fuzz-seeds/$h" "$build/fuzz-seeds-full/$h"
    log="$build/fuzz-long-$h.log"
    echo "-- fuzz_$h: ${secs}s, $jobs job(s), log $log"
    extra=()
    [ "$jobs" -gt 1 ] && extra=(-jobs="$jobs" -workers="$jobs")
    "$build/tests/fuzz/fuzz_$h" "$corpus" "$build/fuzz-seeds-full/$h" "$build/fuzz-seeds/$h" \
        -max_total_time="$secs" -max_len=1048576 -rss_limit_mb=4096 -timeout=60 \
        -artifact_prefix="$art/long-$h-" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    echo "$h: ${runs:-?} executions, exit $rc"
    if [ "$rc" -ne 0 ]; then
        fail=1
        tail -n 60 "$log" >&2
    fi
done
exit $fail
