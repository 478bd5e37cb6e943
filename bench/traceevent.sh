#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev against TraceEvent 4.0.0 in one run: CPU-time ratios on the same files, trace by trace
# (gcev then TraceEvent on one file, then the next file), each tool's best of RUNS after a warm-up.
#
#   bench/traceevent.sh [BUILD_DIR [RUNS [TRACE...]]]     (default build, 5, the set below)
#
# Two modes, what a consumer of every event and of every GC field does, gcev each time two ways:
# full (the full record of gcev_trace_next) and lean (gcev_trace_next_lean_batch, 256 lean records
# a call, what gcev count uses):
#   walk          gcev full: gcev_trace_next over every event (bench_trace --cpu, mode walk);
#                 gcev lean: the lean batch walk, payload bytes summed (mode lean);
#                 TraceEvent: EventPipeEventSource.Process() with an AllEvents handler (mode walk)
#   walk+fields   gcev full: the full walk plus gcev_decode of every GC payload and gcev_field_next
#                 over every field, value names on demand (mode fields); gcev lean: the lean walk
#                 plus gcev_decode of each lean record and one gcev_fields(..., GCEV_FIELD_LAZY_NAMES)
#                 call a decoded event, the same events and values (mode lean+fields; bench_trace
#                 fails when the values differ); TraceEvent: its parsers plus PayloadValue(i) of
#                 every field of every GC event and every member of every struct-array element
#                 (bench-traceevent mode decode)
# Times are the CPU time of each process during the walk (CLOCK_PROCESS_CPUTIME_ID on both
# sides: TraceEvent's includes its JIT and GC threads); ratio = TraceEvent's / gcev's. Two sources,
# one table each: file (each walk opens the file, from the page cache: what a user runs; where
# mapping or reading the pages is slow, as on a busy virtual machine, that cost weighs on both)
# and memory (the bytes read once before the runs; TraceEvent reads them from a MemoryStream):
# the readers' own cost. Each row: TraceEvent's ms, then gcev full and gcev lean, each in ms with
# its ratio (the issue 27 aim is 20x on both modes).
#
# Traces (TraceEvent reads EventPipe files only): the corpus's .nettrace and .netperf, the .NET 10
# golden captures svr-bgc, wks-full and svr-datas-gc-verbose of tests/data/traces, the .NET 10
# bench trace BUILD_DIR/bench/net10-gc-verbose.nettrace (25,000 GCs; made here by the
# bench_net10_trace target when dotnet is found and it is missing) and the large traces of
# BUILD_DIR/bigtraces (bench/whole_process.sh makes them) when present.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
shift $(($# > 2 ? 2 : $#))
shared=${GCEV_SHARED_DIR:-$(cd .. && pwd)/shared}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v dotnet >/dev/null || { echo "traceevent.sh: dotnet not found" >&2; exit 1; }
net10=$build/bench/net10-gc-verbose.nettrace
if [ ! -f "$net10" ] && cmake --build "$build" --target help 2>/dev/null | grep -q bench_net10_trace; then
    cmake --build "$build" --target bench_net10_trace >&2
fi
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
    for f in "$shared"/corpus/*.nettrace "$shared"/corpus/*.netperf tests/data/traces/svr-bgc.nettrace \
        tests/data/traces/wks-full.nettrace tests/data/traces/svr-datas-gc-verbose.nettrace "$net10" \
        "$build"/bigtraces/*; do
        [ -f "$f" ] && traces+=("$f")
    done
fi
[ -f "$net10" ] || echo "traceevent.sh: no $net10 (cmake --build $build --target bench_net10_trace, where dotnet is)" >&2

art=$(cd "$build" && pwd)/csharp
dotnet build bench/traceevent -c Release -nologo -v:q -p:GcevArtifacts="$art" >/dev/null
te=$art/bin/BenchTraceEvent/release/bench-traceevent

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for f in "${traces[@]}"; do
    "$build/bench/bench_trace" --cpu "$runs" "$f" | grep -v '^#' >>"$out/gcev.tsv"
    # TraceEvent 4.0 refuses some files gcev reads (NetPerf V2: "format version 2 is unsupported");
    # such a trace keeps its gcev times and shows "-" for TraceEvent's, with the reason on stderr
    # (a subshell that does not exec it, so that bash's "Aborted" goes to te.err too)
    if ("$te" --manifest manifest/gc.man --runs "$runs" --source both "$f" >"$out/te1.tsv"; exit $?) 2>"$out/te.err"; then
        grep -v '^#' "$out/te1.tsv" >>"$out/te.tsv"
    else
        echo "traceevent.sh: TraceEvent cannot read $f: $(grep -m1 -o 'Exception: .*' "$out/te.err" || head -1 "$out/te.err")" >&2
    fi
done

echo "gcev vs TraceEvent 4.0.0: best CPU time (ms) of $runs runs, $(date -u '+%Y-%m-%d %H:%M UTC'), load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
for src in file memory; do
    echo
    printf '%-61s %8s %8s | %9s %9s %6s %9s %6s | %9s %9s %6s %9s %6s\n' "from $src: trace" events gc_events \
        "TE walk" full ratio lean ratio "TE+flds" full ratio lean ratio
    # join: gcev (walk, lean, fields, lean+fields) with TraceEvent (walk, decode) on the file and the source
    awk -F'\t' -v src="$src" '
        function ms(x) { return x == "" ? sprintf("%9s", "-") : sprintf("%9.3f", 1e3 * x) }
        function cell(g, t) { return ms(g) " " (t == "" || g <= 0 ? sprintf("%6s", "-") : sprintf("%5.1fx", t / g)) }
        FNR == NR { if ($8 != src) next; g[$3 "\t" $2] = $6; ev[$3] = $4; if ($2 == "fields") gc[$3] = $5; order[++n] = $3; next }
        $9 == src { t[$3 "\t" $2] = $8; tev[$3] = $4 }
        END {
            for (i = 1; i <= n; i++) {
                f = order[i]
                if (seen[f]++) continue
                tw = t[f "\twalk"]; tf = t[f "\tdecode"]
                name = f; sub(/.*\//, "", name)
                note = (tev[f] != "" && tev[f] != ev[f]) ? sprintf("  (TraceEvent: %s events)", tev[f]) : ""
                printf "%-61s %8s %8s | %s %s %s | %s %s %s%s\n", name, ev[f], gc[f],
                    ms(tw), cell(g[f "\twalk"], tw), cell(g[f "\tlean"], tw),
                    ms(tf), cell(g[f "\tfields"], tf), cell(g[f "\tlean+fields"], tf), note
            }
        }' "$out/gcev.tsv" "$out/te.tsv"
done
