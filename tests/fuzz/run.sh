#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer harness of a GCEV_BUILD_FUZZ build for a bounded time:
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_HARNESS] [harness...]
# New inputs go to BUILD_DIR/fuzz-corpus/<harness> (seeds: BUILD_DIR/fuzz-seeds/<harness>,
# from the fuzz_seeds_run target); crashes to BUILD_DIR/fuzz-artifacts/. Exits 1 when a
# harness finds a crash, leak, timeout or out-of-memory; prints executions per harness.
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS] [harness...]}
secs=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(decode format nettrace etl manifest ctf xpress ipc report serve allocs heap)
art="$build/fuzz-artifacts"
mkdir -p "$art"
fail=0
summary=""
for h in "${harnesses[@]}"; do
    bin="$build/tests/fuzz/fuzz_$h"
    corpus="$build/fuzz-corpus/$h"
    mkdir -p "$corpus" "$build/fuzz-seeds/$h" # a harness without seeds starts from nothing
    log="$build/fuzz-$h.log"
    echo "-- fuzz_$h: ${secs}s"
    "$bin" "$corpus" "$build/fuzz-seeds/$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$art/$h-" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    summary+=$(printf '%-10s %12s executions  %6s edges  exit %s' "$h" "${runs:-?}" "${cov:-?}" "$rc")$'\n'
    if [ "$rc" -ne 0 ]; then
        fail=1
        echo "fuzz_$h FAILED (exit $rc); log tail:" >&2
        tail -n 60 "$log" >&2
    fi
done
echo "== fuzzing summary (${secs}s per harness) =="
printf '%s' "$summary"
exit $fail
