#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Whole-process figures on real-sized traces:
#  1. `gcev count` against bench_read (reads every byte of the file once, nothing else),
#     both from the page cache: best CPU time (perf stat task-clock) of RUNS each, ratio =
#     read time / count time;
#  2. peak resident memory (/usr/bin/time -v) of `gcev stats` and `gcev dump --sort time`
#     (the two time-ordered paths), with the heap beyond the file: peak RSS - file size -
#     the peak RSS of the same command on the smallest corpus trace;
#  3. on the corpus traces, the peak heap itself (valgrind --tool=massif: requested bytes
#     plus the allocator's overhead) of the same two commands, against the file size.
#
#   bench/whole_process.sh [BUILD_DIR] [RUNS]      (default build, 5)
#
# Large traces are made once into BUILD_DIR/bigtraces from the corpus with
# bench_make_trace (never committed): the .NET Core 3.0 trace replicated 10x (47 MB,
# NetTrace V4, the runtime's own blocks), the same events rewritten as NetPerf V2 (3x,
# ~58 MB, no sequence points: time order buffers everything) and the 2.1 x86 trace as
# NetPerf V3 (4x, ~42 MB). The .NET 10 bench trace BUILD_DIR/bench/net10-gc-verbose.nettrace (the
# bench_net10_trace target, where dotnet is; bench/net10_trace.sh) joins them when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
shared=${GCEV_SHARED_DIR:-$(cd .. && pwd)/shared}
corpus=$shared/corpus
gcev=$build/tools/gcev/gcev
big=$build/bigtraces
mkdir -p "$big"
t30=$corpus/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace
t21=$corpus/eventpipe-dotnetcore2.1-win-x86-objver3.netperf
[ -f "$big/big-3.0-x10.nettrace" ] || "$build/bench/bench_make_trace" replicate "$t30" "$big/big-3.0-x10.nettrace" 10
[ -f "$big/big-3.0-v2.netperf" ] || "$build/bench/bench_make_trace" rewrite "$t30" "$big/big-3.0-v2.netperf" 2 3
[ -f "$big/big-2.1-x86-v3.netperf" ] || "$build/bench/bench_make_trace" rewrite "$t21" "$big/big-2.1-x86-v3.netperf" 3 4

# best CPU time in seconds (perf stat task-clock: user + system, 0.01 ms resolution) of RUNS
# runs of a command (output discarded): CPU time rather than wall time, since the machine
# may be shared
best() {
    local b=""
    for _ in $(seq "$runs"); do
        local t
        t=$(perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '$3 == "task-clock" {print $1 / 1000}')
        b=$(awk -v b="$b" -v t="$t" 'BEGIN { if (b == "" || t < b) print t; else print b }')
    done
    echo "$b"
}

echo "whole process, page cache (best CPU time of $runs): gcev count vs bench_read"
printf '%-40s %10s %10s %10s %8s %12s\n' trace MB read_s count_s ratio "count Mev/s"
net10=$build/bench/net10-gc-verbose.nettrace
for f in "$big"/* "$net10"; do
    [ -f "$f" ] || continue
    # bigtraces also holds what other benches keep beside their traces (bench_allocs' .shape)
    case $f in *.nettrace | *.netperf | *.etl) ;; *) continue ;; esac
    cat "$f" >/dev/null # into the page cache
    size=$(stat -L -c %s "$f")
    r=$(best "$build/bench/bench_read" "$f")
    c=$(best "$gcev" count "$f")
    n=$("$gcev" count --format json "$f" | sed -n 's/.*"total_events": \([0-9]*\).*/\1/p')
    printf '%-40s %10.1f %10.4f %10.4f %8.2f %12.1f\n' "$(basename "$f")" \
        "$(awk -v s="$size" 'BEGIN {print s / 1e6}')" "$r" "$c" "$(awk -v r="$r" -v c="$c" 'BEGIN {print r / c}')" \
        "$(awk -v n="$n" -v c="$c" 'BEGIN {print n / c / 1e6}')"
done

# peak RSS in KiB of a command
rss() { { /usr/bin/time -v "$@" 2>&1 >/dev/null || true; } | awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}'; }
small=$corpus/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace
base_stats=$(rss "$gcev" stats "$small")
base_dump=$(rss "$gcev" dump --format jsonl --sort time "$small")
echo
echo "peak RSS (KiB); heap = RSS - file - RSS on the smallest trace ($base_stats stats, $base_dump dump)"
printf '%-58s %10s %10s %8s %8s %10s %8s %8s\n' trace file_KiB stats heap %file "dump-time" heap %file
for f in "$corpus"/*.nettrace "$corpus"/*.netperf "$corpus"/*.etl "$big"/* "$net10"; do
    [ -f "$f" ] || continue
    case $f in *.nettrace | *.netperf | *.etl) ;; *) continue ;; esac
    kb=$(( $(stat -L -c %s "$f") / 1024 ))
    s=$(rss "$gcev" stats "$f")
    d=$(rss "$gcev" dump --format jsonl --sort time "$f")
    hs=$(( s - kb - base_stats ))
    hd=$(( d - kb - base_dump ))
    pct() { awk -v h="$1" -v k="$kb" 'BEGIN { if (k > 0) printf "%.1f", 100 * h / k; else printf "-" }'; }
    printf '%-58s %10s %10s %8s %8s %10s %8s %8s\n' "$(basename "$f")" "$kb" "$s" "$hs" "$(pct "$hs")" "$d" "$hd" \
        "$(pct "$hd")"
done

# peak heap bytes (massif) of a command
heap() {
    local out
    out=$(mktemp)
    valgrind --tool=massif --massif-out-file="$out" "$@" >/dev/null 2>&1 || true
    awk -F= '/^mem_heap_B=/ {h = $2} /^mem_heap_extra_B=/ {if (h + $2 > m) m = h + $2} END {print m + 0}' "$out"
    rm -f "$out"
}
if command -v valgrind >/dev/null; then
    echo
    echo "peak heap (massif, bytes) of gcev stats and gcev dump --sort time"
    printf '%-58s %10s %10s %8s %10s %8s\n' trace file_B stats %file dump-time %file
    for f in "$corpus"/*.nettrace "$corpus"/*.netperf "$corpus"/*.etl; do
        [ -f "$f" ] || continue
        b=$(stat -L -c %s "$f")
        s=$(heap "$gcev" stats "$f")
        d=$(heap "$gcev" dump --format jsonl --sort time "$f")
        printf '%-58s %10s %10s %8s %10s %8s\n' "$(basename "$f")" "$b" "$s" \
            "$(awk -v h="$s" -v k="$b" 'BEGIN {printf "%.1f", 100 * h / k}')" "$d" \
            "$(awk -v h="$d" -v k="$b" 'BEGIN {printf "%.1f", 100 * h / k}')"
    done
fi
