#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per event, counted by callgrind (valgrind --tool=callgrind): the typed
# decoders, gcev_decode, the generic field walk, the trace walk of each corpus trace and
# walk + decode of every GC event. Deterministic (no timing), so before/after figures
# compare exactly.
#
#   bench/instructions.sh [BUILD_DIR]     (default build; configure it Release)
#
# Decode mixes: "synthetic" (fixed-size GC events in a real trace's proportions, encoded
# by gcev_encode), "fixtures" (the fixed-size payloads of ../shared/fixtures), "3.0 trace"
# (every fixed-size GC payload of the .NET Core 3.0 corpus trace, in its own order) and
# "3.0 trace, all GC" (fixed and variable size). The typed loop calls the generated
# gcev_decode_<family>() over each family's payloads; "(own)" subtracts the same loop around
# a function that does nothing (the caller's loop, argument set-up, call and return); the
# field walk figure is decode + walk minus decode. Traces: $GCEV_SHARED_DIR/corpus (default ../shared/corpus), the
# .NET 10 captures of tests/data/traces that hold the most GC events (svr-datas-gc-verbose: DATAS and
# GCDynamicEvent under dotnet-trace's gc-verbose profile; wks-full: GC keyword Verbose), plus any
# large trace in BUILD_DIR/bigtraces (*.nettrace, *.netperf, *.etl; bench/whole_process.sh makes them; a dense .NET 10
# capture can be dropped there too). Per trace: walk (gcev_trace_next), walk+decode (gcev_decode
# of every GC payload), walk+fields (the same plus gcev_field_next over every top-level field of
# every GC event, what a generic consumer does, value names left to gcev_field_value_name:
# GCEV_FIELD_LAZY_NAMES), +names (the same with the iterator's default, a value name looked up
# for every mapped field), each per event walked; then per GC event the cost of decode and of
# decode + fields beyond the walk; "GC set+dec" walks with the reader's filter set to the GC set
# (gcev_trace_set_filter, as gcev stats does) and decodes every GC event it returns, per event
# of the trace (compare with walk+decode, which offers every event to the decoder); "lean" walks
# with gcev_trace_next_lean_batch (256 lean records a call, what gcev count does); "lean+fields"
# the lean walk, gcev_decode of each lean record and gcev_field_next over every top-level field
# of every GC event (lazy names: the same values as walk+fields, which bench_trace checks);
# "lean+batch" the same with one gcev_fields() call an event. The .NET 10
# bench trace BUILD_DIR/bench/net10-gc-verbose.nettrace (bench/net10_trace.sh: 25,000 GCs, the
# runtime's file output with the GC keyword at Verbose) is made first by the bench_net10_trace
# target when it is missing and the build has that target (dotnet was found); without it the
# table says so.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shared=${GCEV_SHARED_DIR:-$(cd .. && pwd)/shared}
export GCEV_SHARED_DIR=$shared
corpus=$shared/corpus
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }

# collected instructions of one toggled function
ir() { # ir FN CMD...
    local fn=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" --toggle-collect="$fn" "$@" \
        >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$out/cg.out"
}
# events the program reports for a loop: "events LOOP N"
events() { awk -v k="$1" '$1 == "events" && $2 == k {print $3}' "$out/stdout"; }
per() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }

printf '%-30s %9s %9s %11s %11s %9s %8s\n' "decode (instructions/event)" "typed" "(own)" "gcev_decode" "(own)" \
    "walk" "events"
decode_mix() { # decode_mix LABEL MIX PASSES [ARGS...]
    local label=$1 mix=$2 passes=$3
    shift 3
    local d t w nt nd ot od
    d=$(ir decode_loop "$build/bench/bench_decode" --callgrind "$mix" "$passes" "$@")
    nd=$(events decode_loop)
    t=$(ir 'typed_loop_*' "$build/bench/bench_decode" --callgrind "$mix" "$passes" "$@")
    nt=$(events typed)
    w=$(ir walk_loop "$build/bench/bench_decode" --callgrind "$mix" "$passes" "$@")
    ot=$(ir nop_typed_loop "$build/bench/bench_decode" --callgrind "$mix" "$passes" "$@")
    od=$(ir nop_decode_loop "$build/bench/bench_decode" --callgrind "$mix" "$passes" "$@")
    printf '%-30s %9s %9s %11s %11s %9s %8s\n' "$label" "$(per "$t" "$nt")" \
        "$(awk -v a="$t" -v n="$nt" -v o="$ot" -v m="$nd" 'BEGIN { if (n > 0) printf "%.1f", a / n - o / m; else printf "-" }')" \
        "$(per "$d" "$nd")" "$(per $((d - od)) "$nd")" "$(per $((w - d)) "$nd")" "$nd"
}
decode_mix "synthetic fixed-size mix" synthetic 20
if [ -f "$shared/fixtures/gc_payloads.jsonl" ]; then
    decode_mix "fixtures, fixed-size" fixtures-fixed 200
fi
t30=$corpus/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace
if [ -f "$t30" ]; then
    decode_mix "3.0 trace, fixed-size GC" trace-fixed 2 --trace "$t30"
    decode_mix "3.0 trace, all GC" trace-all 2 --trace "$t30"
fi

net10=$build/bench/net10-gc-verbose.nettrace
# grep reads the whole list (not -q): under pipefail, a grep that quits early would fail the
# pipe with cmake's SIGPIPE and the trace would never be made
if [ ! -f "$net10" ] && cmake --build "$build" --target help 2>/dev/null | grep bench_net10_trace >/dev/null; then
    cmake --build "$build" --target bench_net10_trace >&2
fi

echo
printf '%-58s %8s %12s %12s %9s %10s %10s %10s %8s %12s %11s %9s\n' "trace walk (instructions/event)" "walk" \
    "walk+decode" "walk+fields" "+names" "decode/GC" "fields/GC" "GC set+dec" "lean" "lean+fields" "lean+batch" \
    "events"
t10=tests/data/traces
for f in "$corpus"/*.nettrace "$corpus"/*.netperf "$corpus"/*.etl "$t10"/svr-datas-gc-verbose.nettrace \
    "$t10"/wks-full.nettrace "$net10" "$build"/bigtraces/*; do
    [ -f "$f" ] || continue
    # bigtraces also holds what other benches keep beside their traces (bench_allocs' .shape)
    case $f in *.nettrace | *.netperf | *.etl) ;; *) continue ;; esac
    size=$(stat -L -c %s "$f")
    passes=$(( size > 20000000 ? 1 : (size > 1000000 ? 2 : 20) ))
    w=$(ir walk_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    n=$(events walk_loop)
    wd=$(ir walk_decode_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    wf=$(ir walk_fields_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    wn=$(ir walk_names_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    wg=$(ir walk_gc_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    wl=$(ir walk_lean_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    lf=$(ir lean_fields_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    lb=$(ir lean_batch_loop "$build/bench/bench_trace" --callgrind "$passes" "$f")
    g=$(awk '$1 == "gc_events" {print $3}' "$out/stdout")
    printf '%-58s %8s %12s %12s %9s %10s %10s %10s %8s %12s %11s %9s\n' "$(basename "$f")" "$(per "$w" "$n")" \
        "$(per "$wd" "$n")" "$(per "$wf" "$n")" "$(per "$wn" "$n")" "$(per $((wd - w)) "$g")" \
        "$(per $((wf - w)) "$g")" "$(per "$wg" "$n")" "$(per "$wl" "$n")" "$(per "$lf" "$n")" "$(per "$lb" "$n")" "$n"
done
[ -f "$net10" ] || echo "(no .NET 10 bench trace: cmake --build $build --target bench_net10_trace, where dotnet is)"
