#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer harness of a GCEV_BUILD_FUZZ build for a bounded time (CI):
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_HARNESS] [harness...]
# Seeds: BUILD_DIR/fuzz-seeds/<harness> (small inputs, from the fuzz_seeds_run target),
# merged first (-merge=1: only seeds that add coverage) into BUILD_DIR/fuzz-corpus/<harness>,
# where new inputs go too; crashes to BUILD_DIR/fuzz-artifacts/. Inputs are capped per
# harness (-max_len) so that a harness runs thousands of inputs a second; the whole real
# traces and manifests are tests/fuzz/long.sh's. Exits 1 when a harness finds a crash,
# leak, timeout or out-of-memory; prints executions and executions per second per harness.
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS] [harness...]}
secs=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(decode format nettrace etl manifest ctf xpress ipc report serve heap allocs)
art="$build/fuzz-artifacts"
mkdir -p "$art"

# -max_len per harness: a trace's header, metadata and first blocks fit (an ETL buffer of the
# corpus is 8-64 KiB: 32 KiB holds the small ones whole and the start of the others)
max_len() {
    case "$1" in
    nettrace) echo 8192 ;;
    ctf | manifest) echo 16384 ;;
    etl | xpress) echo 32768 ;;
    *) echo 4096 ;;
    esac
}

fail=0
summary=""
for h in "${harnesses[@]}"; do
    bin="$build/tests/fuzz/fuzz_$h"
    corpus="$build/fuzz-corpus/$h"
    seeds="$build/fuzz-seeds/$h"
    mkdir -p "$corpus" "$seeds"
    log="$build/fuzz-$h.log"
    len=$(max_len "$h")
    echo "-- fuzz_$h: ${secs}s, inputs up to $len bytes"
    # corpus minimisation: only the seeds that add coverage (seconds with small seeds)
    "$bin" -merge=1 -max_len="$len" -rss_limit_mb=2048 -timeout=10 "$corpus" "$seeds" >"$log.merge" 2>&1 ||
        echo "fuzz_$h: merge failed (log: $log.merge); fuzzing from the seeds" >&2
    "$bin" "$corpus" "$seeds" -max_total_time="$secs" -max_len="$len" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$art/$h-" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || true)
    [ -z "$took" ] && took=$secs
    rate="?"
    [ -n "$runs" ] && [ "$took" -gt 0 ] && rate=$((runs / took))
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    line=$(printf '%-10s %12s executions  %8s exec/s  %6s edges  exit %s' "$h" "${runs:-?}" "$rate" "${cov:-?}" "$rc")
    echo "$line"
    summary+="$line"$'\n'
    if [ "$rc" -ne 0 ]; then
        fail=1
        echo "fuzz_$h FAILED (exit $rc); log tail:" >&2
        tail -n 60 "$log" >&2
    fi
done
echo "== fuzzing summary (${secs}s per harness) =="
printf '%s' "$summary"
exit $fail
