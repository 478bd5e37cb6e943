#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev allocs speed and memory (issue 24 item 5) on the 100 MB trace bench_allocs makes (the
# shape of a .NET 10 AllocationSampled capture: see bench/bench_allocs.c and its output):
#  1. events/s of read + model + finish (gcev_trace_next, gcev_allocs_add, gcev_allocs_finish:
#     every frame named), best CPU time of RUNS runs, and the reader's share;
#  2. instructions per event (callgrind, deterministic: before/after figures compare exactly)
#     of the whole pass (model_pass) and of the reader alone (walk_pass);
#  3. the model's peak heap against (types + stacks + pairs + methods) x their record sizes
#     (the bench's mallinfo2 accounting), and massif's peak of `gcev allocs --format json`;
#  4. the peer, when dotnet is there: TraceEvent 4.0.0 (bench/traceevent --allocs: TraceLog
#     conversion, each allocation event's type and stack, every distinct stack's frames
#     named) on the same file in the same run, and the ratio.
#
#   bench/allocs.sh [BUILD_DIR] [RUNS] [MB]      (default build, 3, 100)
#
# The trace goes to BUILD_DIR/bigtraces/bench-allocs-MB.nettrace (never committed), made once.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-3}
mb=${3:-100}
big=$build/bigtraces
mkdir -p "$big"
trace=$big/bench-allocs-$mb.nettrace
bench=$build/bench/bench_allocs
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# 1. speed (the first run makes the trace if it is not there)
best=""
bestwall=""
for r in $(seq "$runs"); do
    "$bench" "$mb" "$trace" >"$out/run$r"
    c=$(awk '/^read \+ model \+ finish:/ {print $9}' "$out/run$r")
    wl=$(awk '/^read \+ model \+ finish:/ {print $6}' "$out/run$r")
    if [ -z "$bestwall" ] || awk -v c="$wl" -v b="$bestwall" 'BEGIN {exit !(c < b)}'; then
        bestwall=$wl
    fi
    if [ -z "$best" ] || awk -v c="$c" -v b="$best" 'BEGIN {exit !(c < b)}'; then
        best=$c
        cp "$out/run$r" "$out/best"
    fi
done
grep -E '^(trace|shape):' "$out/best"
events=$(awk '$1 == "allocation_events" {print $2}' "$out/best")
grep -E '^(read \+|the reader|model:|heap:)' "$out/best"
echo "best of $runs: $best s cpu ($(awk -v n="$events" -v c="$best" 'BEGIN {printf "%.2f", n / c / 1e6}') M allocation events/s)," \
    "$bestwall s wall ($(awk -v n="$events" -v c="$bestwall" 'BEGIN {printf "%.2f", n / c / 1e6}') M/s)"

# 2. instructions per event
if command -v valgrind >/dev/null; then
    ir() { # ir FN: instructions collected in FN (and what it calls)
        valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect="$1" "$bench" "$mb" "$trace" \
            >"$out/cg.stdout" 2>/dev/null
        awk '/^(summary|totals):/ {print $2; exit}' "$out/cg"
    }
    m=$(ir 'model_pass*')
    w=$(ir 'walk_pass*')
    n=$(awk '$1 == "events" && $2 == "model_pass" {print $3}' "$out/cg.stdout")
    awk -v m="$m" -v w="$w" -v n="$n" -v a="$events" 'BEGIN {
        printf "instructions/event (callgrind, %d events, %d allocation events): read + model + finish %.0f, reader %.0f, model + finish %.0f\n", n, a, m / n, w / n, (m - w) / n }'
    # 3b. massif: the CLI's peak heap on the same trace
    valgrind --tool=massif --massif-out-file="$out/ms" "$build/tools/gcev/gcev" allocs --format json "$trace" \
        >/dev/null 2>&1 || true
    awk -F= '/^mem_heap_B=/ {h = $2} /^mem_heap_extra_B=/ {if (h + $2 > m) m = h + $2} END {
        printf "gcev allocs --format json: massif peak heap %.1f MB (with the allocator overhead)\n", m / 1048576 }' "$out/ms"
fi

# 4. the peer
peer=$build/csharp/bin/BenchTraceEvent/release/bench-traceevent
if [ ! -x "$peer" ] && command -v dotnet >/dev/null; then
    # (an absolute path: MSBuild takes a relative one from the project's folder)
    dotnet build -c Release bench/traceevent -p:GcevArtifacts="$(cd "$build" && pwd)/csharp" >"$out/dotnet.log" 2>&1 || {
        tail -20 "$out/dotnet.log" >&2
        peer=""
    }
fi
if [ -n "$peer" ] && [ -x "$peer" ]; then
    line=$("$peer" --allocs --runs 1 "$trace" | grep -v '^#')
    pt=$(echo "$line" | cut -f6)
    pe=$(echo "$line" | cut -f5)
    echo "peer: TraceEvent 4.0.0 TraceLog, $pe allocation events in $pt s wall (best of 1 after a warm-up):" \
        "$(awk -v n="$pe" -v t="$pt" 'BEGIN {printf "%.2f", n / t / 1e6}') M allocation events/s;" \
        "gcev is $(awk -v t="$pt" -v c="$bestwall" 'BEGIN {printf "%.1f", t / c}')x faster (wall times, same file, same run)"
else
    echo "peer: not measured (no dotnet, or bench/traceevent did not build)"
fi
