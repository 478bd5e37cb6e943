#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The .NET 10 bench trace (issue 27 item 5): bench/gcstorm run under the runtime's own EventPipe
# file output with the GC keyword (0x1) at Verbose (5) on Microsoft-Windows-DotNETRuntime, as a
# user captures a dense GC trace today: ~500,000 events, exactly GCS GCs (default 25,000) of every
# kind (blocking gen0/gen1/gen2, background, foreground). The cmake target bench_net10_trace runs
# this once and keeps the trace in the build tree (BUILD/bench/net10-gc-verbose.nettrace, never
# committed); bench/instructions.sh, bench/traceevent.sh and bench/whole_process.sh read it from there.
#
#   bench/net10_trace.sh BUILD_DIR GCEV OUT.nettrace [GCS]
#
# The trace is checked before it replaces OUT: `gcev count` sees GCS GCStart events and no lost
# event, `gcev stats` GCS complete GCs and each GC type. Foreground GCs depend on timing (an
# ephemeral GC must fall inside a background GC): a capture without one is retried, 3 runs at most.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '10p' "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
gcev=$2
out=$3
gcs=${4:-25000}
art=$build/csharp # as tools/capture-traces.sh (a -p: value ending in "dotnet" confuses the dotnet CLI)
dotnet build "$root/bench/gcstorm" -c Release -nologo -v:q -p:GcevArtifacts="$art" >/dev/null
storm=$art/bin/GcStorm/release/gcev-gcstorm
tmp=$out.tmp
trap 'rm -f "$tmp" "$tmp.count" "$tmp.stats" "$tmp.types"' EXIT
# only the settings below: a GC or EventPipe setting inherited from the caller would change the trace
for v in $(compgen -e | grep -E '^(DOTNET|COMPlus)_(gc|GC|EventPipe)' || true); do
    unset "$v"
done

for attempt in 1 2 3; do
    rm -f "$tmp"
    DOTNET_gcServer=0 DOTNET_gcConcurrent=1 DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$tmp" \
        DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x1:5' "$storm" --gcs "$gcs" >"${out%.nettrace}.workload.jsonl"
    "$gcev" count --format json "$tmp" >"$tmp.count"
    starts=$(grep -o '"id": 1, "version": [0-9]*, "name": "GCStart[^"]*", "count": [0-9]*' "$tmp.count" |
        awk -F': ' '{s += $NF} END {print s + 0}')
    dropped=$(sed -n 's/.*"dropped_events": \([0-9]*\).*/\1/p' "$tmp.count")
    [ "$starts" = "$gcs" ] || { echo "net10_trace: $starts GCStart events, not $gcs" >&2; exit 1; }
    [ "$dropped" = 0 ] || { echo "net10_trace: the capture lost $dropped events" >&2; exit 1; }
    "$gcev" stats --format json "$tmp" >"$tmp.stats"
    count=$(grep -o '"gc_count":[0-9]*' "$tmp.stats" | head -1 | cut -d: -f2)
    [ "$count" = "$gcs" ] || { echo "net10_trace: gcev stats counts $count GCs, not $gcs" >&2; exit 1; }
    grep -q '"unfinished_gcs":0' "$tmp.stats" || { echo "net10_trace: unfinished GCs in the trace" >&2; exit 1; }
    # one line per GC in gcs[] (the per-process top-ten pauses repeat some GCs' type)
    grep '^ *{"number":' "$tmp.stats" | grep -o '"type":"[a-z]*"' >"$tmp.types" || true
    missing=
    for type in blocking background foreground; do
        grep -q "\"type\":\"$type\"" "$tmp.types" || missing="$missing $type"
    done
    if [ -z "$missing" ]; then
        mv "$tmp" "$out"
        kinds=$(sort "$tmp.types" | uniq -c |
            awk '{sub(/.*:/, "", $2); gsub(/"/, "", $2); s = s (NR > 1 ? ", " : "") $1 " " $2} END {print s}')
        echo "net10_trace: $out: $gcs GCs ($kinds), $(stat -c %s "$out") bytes"
        exit 0
    fi
    echo "net10_trace: attempt $attempt has no$missing GC; capturing again" >&2
done
echo "net10_trace: no capture with every GC type in 3 runs" >&2
exit 1
