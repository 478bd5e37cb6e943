#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev allocs against a real .NET 10 process (issue 24, label runtime):
#   allocs_runtime.sh build BUILD                   build gcev-workload and gcev-allocs-oracle
#   allocs_runtime.sh file BUILD OUT CHECK          file output (DOTNET_EnableEventPipe): ticks, then AllocationSampled
#   allocs_runtime.sh dotnet-trace BUILD OUT CHECK  dotnet-trace collect --providers (AllocationSampling, JIT, Loader)
#   allocs_runtime.sh live BUILD OUT CHECK GCEV     gcev allocs --pid on the running workload
# Each capture is checked by check_allocs against the workload's own counts and TraceEvent's
# per-event view (gcev-allocs-oracle).
set -euo pipefail
mode=$1
BUILD=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ART="$BUILD/csharp-allocs"
WL="$ART/bin/Workload/release/gcev-workload"
OR="$ART/bin/AllocsOracle/release/gcev-allocs-oracle"
DT_VERSION=10.0.750501

if [ "$mode" = build ]; then
    dotnet build "$ROOT/tests/runtime/workload" -c Release -nologo -v:q "-p:GcevArtifacts=$ART"
    dotnet build "$ROOT/tests/runtime/allocs-oracle" -c Release -nologo -v:q "-p:GcevArtifacts=$ART"
    exit 0
fi
OUT=$3
CHECK=$4
mkdir -p "$OUT"
RUNDOWN="Microsoft-Windows-DotNETRuntimeRundown:0x80020139:5"

check() { # NAME: oracle + check_allocs
    "$OR" "$OUT/$1.nettrace" -o "$OUT/$1.oracle.jsonl"
    "$CHECK" "$OUT/$1.nettrace" "$OUT/$1.workload.jsonl" "$OUT/$1.oracle.jsonl"
}

case "$mode" in
file)
    for v in tick:0x19 sampled:0x80000000018; do
        name=file-${v%%:*}
        env GCEV_ALLOCSITES_MB=24,16,20,12 DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$OUT/$name.nettrace" \
            DOTNET_EventPipeConfig="Microsoft-Windows-DotNETRuntime:${v#*:}:5,$RUNDOWN" "$WL" allocsites > "$OUT/$name.workload.jsonl"
        check "$name"
    done
    ;;
dotnet-trace)
    TOOLS="$BUILD/dotnet-tools"
    if [ ! -x "$TOOLS/dotnet-trace" ]; then
        dotnet tool install dotnet-trace --version "$DT_VERSION" --tool-path "$TOOLS" > /dev/null
    fi
    name=dotnet-trace
    env GCEV_ALLOCSITES_MB=24,16,20,12 "$TOOLS/dotnet-trace" collect --show-child-io -o "$OUT/$name.nettrace" \
        --providers "Microsoft-Windows-DotNETRuntime:0x80000000018:5" -- "$WL" allocsites > "$OUT/$name.dt.out" 2>&1
    grep '^{' "$OUT/$name.dt.out" > "$OUT/$name.workload.jsonl" || true
    check "$name"
    ;;
live)
    GCEV=$5
    name=live
    rm -f "$OUT/$name.nettrace"
    coproc W { env GCEV_ALLOCSITES_MB=24,16,20,12 GCEV_ALLOCSITES_DELAY_MS=3000 GCEV_ALLOCSITES_LINGER_MS=5000 "$WL" allocsites; }
    wpid=$W_PID
    exec 3<&"${W[0]}"
    pid=
    : > "$OUT/$name.workload.jsonl"
    while read -r -u 3 line; do
        echo "$line" >> "$OUT/$name.workload.jsonl"
        case "$line" in *'"event":"ready"'*) pid=$(echo "$line" | sed 's/.*"pid":\([0-9]*\).*/\1/'); break ;; esac
    done
    [ -n "$pid" ] || { echo "no ready line from the workload"; exit 1; }
    "$GCEV" allocs --pid "$pid" --duration 6 --record "$OUT/$name.nettrace" --format json > "$OUT/$name.allocs.json"
    cat <&3 >> "$OUT/$name.workload.jsonl" || true
    wait "$wpid" || true
    check "$name"
    ;;
*)
    echo "allocs_runtime.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
