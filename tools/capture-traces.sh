#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Capture real .NET GC traces from tests/runtime/workload, as users capture them (issue 10):
# the runtime's own file output (DOTNET_EnableEventPipe), dotnet-trace profiles, a heap-dump
# session, a small-buffer run with lost events, and an attempt at dotnet-trace collect-linux.
# Each trace NAME.nettrace gets a side file NAME.capture.json: runtime version, configuration,
# environment, command line, the workload's own report and what the capture expects to see.
#
#   tools/capture-traces.sh [-o DIR] [-b BUILD] [--gcev PATH] [--oracle] [--list] [--golden] [NAME...]
#
#   -o DIR      where the traces go (default BUILD/traces)
#   -b BUILD    build tree for the C# tools and dotnet-trace (default build)
#   --gcev PATH the gcev CLI (default BUILD/tools/gcev/gcev): checks that the small-buffer run
#               lost events and that timing-dependent captures hold their event
#   --oracle    also run tests/runtime/oracle on each trace (NAME.oracle.jsonl beside it)
#   --list      print the capture names (the full matrix) and exit
#   --golden    capture the golden set and regenerate tests/data/traces (traces, side files and
#               the oracle's JSON; with NAMEs only those); see tests/data/traces/README.md
#   NAME...     only these captures, of the matrix or the golden set (default: the full matrix)
#
# Needs dotnet (the .NET 10 SDK); dotnet-trace is installed with `dotnet tool install
# --tool-path BUILD/dotnet-tools` when it is not there yet.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

BUILD=build
OUT=
LIST=0
GOLDEN=0
ORACLE=0
GCEV_CLI=
NAMES=()
while [ $# -gt 0 ]; do
    case "$1" in
        -o) OUT=$2; shift 2 ;;
        -b) BUILD=$2; shift 2 ;;
        --gcev) GCEV_CLI=$2; shift 2 ;;
        --oracle) ORACLE=1; shift ;;
        --list) LIST=1; shift ;;
        --golden) GOLDEN=1; shift ;;
        -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
        -*) echo "capture-traces: unknown option $1" >&2; exit 2 ;;
        *) NAMES+=("$1"); shift ;;
    esac
done

# ---- configurations (GC settings in the environment are hex) ----
declare -A CONF=(
    [wks-nonconc]="DOTNET_gcConcurrent=0"
    [wks-conc]="DOTNET_gcConcurrent=1"
    [svr]="DOTNET_gcServer=1 DOTNET_GCDynamicAdaptationMode=0 DOTNET_GCHeapCount=2"
    [svr-datas]="DOTNET_gcServer=1 DOTNET_GCDynamicAdaptationMode=1"
    [wks-seg]="DOTNET_GCName=libclrgc.so DOTNET_gcConcurrent=1"
    [svr-seg]="DOTNET_GCName=libclrgc.so DOTNET_gcServer=1 DOTNET_GCHeapCount=2"
)
# What each configuration must show in its trace (checked by the oracle/compare step):
# heaps = GCGlobalHeapHistory NumHeaps (max for DATAS), pause = its PauseMode (GC latency mode).
declare -A EXPECT=(
    [wks-nonconc]='{"server":false,"heaps":1,"pause_mode":0}'
    [wks-conc]='{"server":false,"heaps":1,"pause_mode":1}'
    [svr]='{"server":true,"heaps":2,"pause_mode":1}'
    [svr-datas]='{"server":true,"heaps_max":2,"pause_mode":1,"dynamic_events":true}'
    [wks-seg]='{"server":false,"heaps":1,"pause_mode":1,"segments":true}'
    [svr-seg]='{"server":true,"heaps":2,"pause_mode":1,"segments":true}'
)

# ---- provider sets ----
# Runtime: GC 0x1, GCHandle 0x2, AppDomainResourceManagement 0x800 (AppDomainMemSurvived),
# Type 0x80000, GCHeapDump 0x100000, GCSampledObjectAllocationHigh 0x200000,
# GCHeapSurvivalAndMovement 0x400000 = 0x7C0803, Verbose. Private GC 0x1 Verbose (GCJoin, BGC*).
# Rundown provider for GCSettingsRundown (and the method rundown the runtime adds at the end).
RT_FULL=0x7C0803
RUNDOWN="Microsoft-Windows-DotNETRuntimeRundown:0x1:5"
PRIV="Microsoft-Windows-DotNETRuntimePrivate:0x1:5"
declare -A PROVIDERS=(
    [full]="Microsoft-Windows-DotNETRuntime:$RT_FULL:5,$PRIV,$RUNDOWN"
    [gc]="Microsoft-Windows-DotNETRuntime:0x400001:5,$PRIV,$RUNDOWN"
    [gconly]="Microsoft-Windows-DotNETRuntime:0x1:5,$PRIV,$RUNDOWN"
    [gcinfo]="Microsoft-Windows-DotNETRuntime:0x1:4,Microsoft-Windows-DotNETRuntimePrivate:0x1:4,$RUNDOWN"
    [nosample]="Microsoft-Windows-DotNETRuntime:0x5C0803:5,$PRIV,$RUNDOWN"
    [sampled]="Microsoft-Windows-DotNETRuntime:0x280001:5,$RUNDOWN"
    [heapdump]="Microsoft-Windows-DotNETRuntime:0x1980001:5"
)

# ---- the matrix: name|configuration|method|seconds|scenarios[|extra environment] ----
# method: file:<providers> (runtime file output), smallbuf:<providers> (file output, 1 MB buffer, heavy load),
# profile:<name> (dotnet-trace collect --profile), heapdump (dotnet-trace -p on a live workload),
# collect-linux (dotnet-trace collect-linux).
MATRIX=()
for c in wks-nonconc wks-conc svr svr-datas wks-seg svr-seg; do
    MATRIX+=("$c-full|$c|file:full|1|all")
    MATRIX+=("$c-hardlimit|$c|file:gc|1|hardlimit|DOTNET_GCHeapHardLimit=0x6400000")
done
MATRIX+=(
    "wks-nonconc-fullgcnotify|wks-nonconc|file:gc|2|fullgcnotify"
    "wks-conc-gc-collect|wks-conc|profile:gc-collect|0.5|all"
    "wks-conc-gc-verbose|wks-conc|profile:gc-verbose|0.5|all"
    "svr-gc-collect|svr|profile:gc-collect|0.5|all"
    "svr-gc-verbose|svr|profile:gc-verbose|0.5|all"
    "wks-conc-heapdump|wks-conc|heapdump|2|live"
    "svr-heapdump|svr|heapdump|2|live"
    "wks-conc-smallbuf|wks-conc|smallbuf:full|1|heavy"
    "wks-conc-collect-linux|wks-conc|collect-linux|3|live"
)
# The golden set (tests/data/traces): small, and together every GC event version seen.
GOLDEN_SET=(
    "svr-bgc|svr|file:gconly|0.15|bgc induced lohcompact"
    "wks-full|wks-conc|file:nosample|0.01|gen0 loh pinning finalizers handles pressure nogc"
    "wks-bgc|wks-conc|file:gcinfo|0.3|bgc"
    "wks-sampled|wks-conc|file:sampled|0.01|gen0 lohcompact"
    "wks-nonconc-gc|wks-nonconc|file:gconly|0.1|promote induced nogc sustained fullgcnotify"
    "svr-datas-gc-verbose|svr-datas|profile:gc-verbose|0.1|gen0 bgc induced threads"
    "seg-gc|wks-seg|file:gconly|0.2|bgc induced lohwait"
    "wks-nonconc-notify|wks-nonconc|file:gcinfo|0.3|fullgcnotify"
    "svr-gc-collect|svr|profile:gc-collect|0.1|gen0 bgc induced"
    "heapdump|wks-conc|heapdump|1|live"
    "smallbuf|wks-conc|smallbuf:gconly|0.1|--depth 400 heavy"
)

# Events a capture must hold, as `gcev count` prints them (or, after "stats:", as `gcev stats
# --format json` prints them); a capture without them is retried (up to 6 runs): the LOH waits
# and the foreground GCs during a BGC depend on timing.
declare -A REQUIRE=(
    [wks-bgc]='stats:"type":"foreground"'
    [seg-gc]="Microsoft-Windows-DotNETRuntimePrivate id 23 v0"
    [wks-nonconc-notify]="Microsoft-Windows-DotNETRuntimePrivate id 25 v1"
)

if [ "$LIST" = 1 ]; then
    printf '%s\n' "${MATRIX[@]}" | cut -d'|' -f1
    echo "golden set (--golden):"
    printf '  %s\n' "${GOLDEN_SET[@]}" | cut -d'|' -f1
    exit 0
fi

command -v dotnet >/dev/null || { echo "capture-traces: dotnet not found" >&2; exit 1; }
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
OUT=${OUT:-$BUILD/traces}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ART="$BUILD/csharp"  # (a -p: value ending in "dotnet" confuses the dotnet CLI)
TOOLS="$BUILD/dotnet-tools"
DOTNET_TRACE_VERSION=${DOTNET_TRACE_VERSION:-10.0.750501}
GCEV=${GCEV_CLI:-$BUILD/tools/gcev/gcev}

dotnet build "$ROOT/tests/runtime/workload" -c Release -nologo -v:q -p:GcevArtifacts="$ART" >/dev/null
WORKLOAD="$ART/bin/Workload/release/gcev-workload"
ORACLE_BIN="$ART/bin/Oracle/release/gcev-oracle"
if [ "$ORACLE" = 1 ] || [ "$GOLDEN" = 1 ]; then
    dotnet build "$ROOT/tests/runtime/oracle" -c Release -nologo -v:q -p:GcevArtifacts="$ART" >/dev/null
fi
DT="$TOOLS/dotnet-trace"
ensure_dotnet_trace() {
    if [ ! -x "$DT" ]; then
        dotnet tool install dotnet-trace --version "$DOTNET_TRACE_VERSION" --tool-path "$TOOLS" >/dev/null
    fi
}

json_str() { # JSON string of $1
    local s=${1//\\/\\\\}
    s=${s//\"/\\\"}
    printf '"%s"' "$s"
}

# write_side NAME CONF METHOD COMMAND RESULT WORKLOAD_OUT_FILE [EXTRA_JSON_MEMBERS]
write_side() {
    local name=$1 conf=$2 method=$3 cmd=$4 result=$5 wout=$6 extra=${7:-}
    local envj="" kv
    for kv in $ENVSTR; do
        envj+="${envj:+,}$(json_str "${kv%%=*}"):$(json_str "${kv#*=}")"
    done
    local wl="" line
    if [ -f "$wout" ]; then
        while IFS= read -r line; do
            case "$line" in "{"*"}") wl+="${wl:+,}$line" ;; esac
        done < "$wout"
    fi
    local dtv=null
    if [ -x "$DT" ] && [[ "$method" != file:* && "$method" != smallbuf:* ]]; then
        dtv=$(json_str "$("$DT" --version | head -1)")
    fi
    {
        printf '{"name":%s,"configuration":%s,"method":%s,\n' "$(json_str "$name")" "$(json_str "$conf")" "$(json_str "$method")"
        printf ' "runtime":%s,"sdk":%s,"dotnet_trace":%s,\n' "$(json_str "$(dotnet --list-runtimes | grep Microsoft.NETCore.App | tail -1 | cut -d' ' -f2)")" \
            "$(json_str "$(dotnet --version)")" "$dtv"
        printf ' "environment":{%s},\n' "$envj"
        printf ' "command":%s,\n' "$(json_str "$cmd")"
        printf ' "expect":%s,\n' "${EXPECT[$conf]}"
        printf ' "result":%s%s,\n' "$(json_str "$result")" "${extra:+,$extra}"
        printf ' "workload":[%s]}\n' "$wl"
    } > "$OUT/$name.capture.json"
}

dropped_events() { # lost events gcev counts in $1 (sequence-number gaps)
    "$GCEV" stats --format json "$1" | grep -o '"dropped_events": *[0-9]*' | head -1 | grep -o '[0-9]*$'
}

# capture NAME CONF METHOD SECONDS SCENARIOS [EXTRA_ENV]
capture() {
    local name=$1 conf=$2 method=$3 secs=$4 scen=$5 xenv=${6:-}
    local trace="$OUT/$name.nettrace" wout="$OUT/$name.workload.out" cmd result=ok extra=""
    rm -f "$trace" "$wout"
    local -a envv=()
    read -r -a envv <<< "${CONF[$conf]} $xenv"
    ENVSTR="${CONF[$conf]}${xenv:+ $xenv}"
    local wl="$WORKLOAD --seconds $secs $scen"
    echo "capture $name ($conf, $method, $scen)" >&2
    case "$method" in
        file:*)
            local prov=${PROVIDERS[${method#file:}]}
            cmd="$ENVSTR DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath=$name.nettrace DOTNET_EventPipeConfig='$prov' gcev-workload --seconds $secs $scen"
            env "${envv[@]}" DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$trace" \
                DOTNET_EventPipeConfig="$prov" $wl > "$wout" || result="workload failed: exit $?"
            ;;
        smallbuf:*)
            # Raise the load until the 1 MB circular buffer overflows (events lost).
            local prov=${PROVIDERS[${method#smallbuf:}]} scale lost=0
            for scale in 1 2 4 8 16; do
                cmd="$ENVSTR DOTNET_EnableEventPipe=1 DOTNET_EventPipeCircularMB=1 DOTNET_EventPipeOutputPath=$name.nettrace DOTNET_EventPipeConfig='$prov' gcev-workload --seconds $secs --scale $scale $scen"
                env "${envv[@]}" DOTNET_EnableEventPipe=1 DOTNET_EventPipeCircularMB=1 DOTNET_EventPipeOutputPath="$trace" \
                    DOTNET_EventPipeConfig="$prov" $WORKLOAD --seconds "$secs" --scale "$scale" $scen > "$wout" || result="workload failed: exit $?"
                if [ -x "$GCEV" ]; then
                    lost=$(dropped_events "$trace" || echo 0)
                    [ "${lost:-0}" -gt 0 ] && break
                else
                    break
                fi
            done
            extra="\"gcev_dropped_events\":${lost:-0}"
            if [ -x "$GCEV" ] && [ "${lost:-0}" -eq 0 ]; then result="no events lost up to scale 16"; fi
            ;;
        profile:*)
            ensure_dotnet_trace
            local prof=${method#profile:}
            cmd="$ENVSTR dotnet-trace collect --profile $prof -o $name.nettrace --show-child-io -- gcev-workload --seconds $secs $scen"
            env "${envv[@]}" "$DT" collect --profile "$prof" -o "$trace" --show-child-io -- $wl > "$wout" 2>&1 \
                || result="dotnet-trace failed: exit $?"
            ;;
        heapdump)
            # The bulk heap events come only from the GC the runtime forces for keyword 0x800000
            # in a live session: attach to a running workload.
            ensure_dotnet_trace
            local prov=${PROVIDERS[heapdump]} pid
            cmd="$ENVSTR gcev-workload live & dotnet-trace collect -p PID --providers $prov --duration 00:00:00:0$secs -o $name.nettrace"
            coproc WL { env "${envv[@]}" $WORKLOAD live; }
            local ready
            IFS= read -r ready <&"${WL[0]}"   # configuration line
            echo "$ready" > "$wout"
            IFS= read -r ready <&"${WL[0]}"   # {"event":"ready"}
            echo "$ready" >> "$wout"
            pid=$(echo "$ready" | grep -o '"pid":[0-9]*' | grep -o '[0-9]*$')
            "$DT" collect -p "$pid" --providers "$prov" --duration "00:00:00:0$secs" -o "$trace" > "$OUT/$name.dotnet-trace.out" 2>&1 \
                || result="dotnet-trace failed: exit $?"
            echo stop >&"${WL[1]}"
            IFS= read -r ready <&"${WL[0]}" && echo "$ready" >> "$wout"
            wait "$WL_PID" || true
            ;;
        collect-linux)
            ensure_dotnet_trace
            cmd="dotnet-trace collect-linux --profile gc-collect --duration 00:00:00:0$secs -o $name.nettrace (with gcev-workload live running)"
            local mounted=0 pid
            if [ ! -e /sys/kernel/tracing/README ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then mounted=1; fi
            env "${envv[@]}" $WORKLOAD live < <(sleep $((secs + 8)); echo stop) > "$wout" &
            pid=$!
            sleep 1
            if "$DT" collect-linux --profile gc-collect --duration "00:00:00:0$secs" -o "$trace" > "$OUT/$name.dotnet-trace.out" 2>&1; then
                result=ok
            else
                result="collect-linux failed: $(grep -m1 -i 'error' "$OUT/$name.dotnet-trace.out" || tail -1 "$OUT/$name.dotnet-trace.out")"
                if [ ! -e /sys/kernel/tracing/user_events_data ]; then
                    result+="; /sys/kernel/tracing/user_events_data does not exist (kernel built without CONFIG_USER_EVENTS)"
                fi
            fi
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            [ "$mounted" = 1 ] && umount /sys/kernel/tracing 2>/dev/null || true
            ;;
        *) echo "capture-traces: unknown method $method" >&2; exit 2 ;;
    esac
    if [ "$result" = ok ] && [ ! -s "$trace" ]; then result="no trace written"; fi
    write_side "$name" "$conf" "$method" "$cmd" "$result" "$wout" "$extra"
    rm -f "$wout"
    if [ "$ORACLE" = 1 ] && [ -s "$trace" ]; then
        "$ORACLE_BIN" --manifest "$ROOT/manifest/gc.man" -o "$OUT/$name.oracle.jsonl" "$trace" \
            || { echo "capture-traces: the oracle failed on $trace" >&2; exit 1; }
    fi
    echo "  -> $result${trace:+, $(stat -c %s "$trace" 2>/dev/null || echo 0) bytes}" >&2
}

holds() { # the capture $1 holds its REQUIRE'd event
    local want=${REQUIRE[$1]}
    if [[ "$want" == stats:* ]]; then
        "$GCEV" stats --format json "$OUT/$1.nettrace" 2>/dev/null | tr -d ' ' | grep -qF "${want#stats:}"
    else
        "$GCEV" count "$OUT/$1.nettrace" | grep -q "$want"
    fi
}

run_list() {
    local entry name conf method secs scen xenv
    for entry in "$@"; do
        IFS='|' read -r name conf method secs scen xenv <<< "$entry"
        if [ ${#NAMES[@]} -gt 0 ]; then
            local want=0 n
            for n in "${NAMES[@]}"; do [ "$n" = "$name" ] && want=1; done
            [ "$want" = 1 ] || continue
        fi
        local try=1
        capture "$name" "$conf" "$method" "$secs" "$scen" "$xenv"
        while [ -n "${REQUIRE[$name]:-}" ] && [ -x "$GCEV" ] && [ "$try" -lt 6 ] && ! holds "$name"; do
            try=$((try + 1))
            echo "  (no '${REQUIRE[$name]}' in it: run $try)" >&2
            capture "$name" "$conf" "$method" "$secs" "$scen" "$xenv"
        done
    done
}

# Golden files: each trace with its side file and the oracle's JSON, within the size limits
# (trace <= 1 MB, JSON <= 1.5 MB, traces together <= 6 MB).
make_goldens() {
    local dest="$ROOT/tests/data/traces" entry name total=0 ts js
    local oracle="$ORACLE_BIN"
    mkdir -p "$dest"
    if [ ${#NAMES[@]} -eq 0 ]; then
        rm -f "$dest"/*.nettrace "$dest"/*.capture.json "$dest"/*.oracle.jsonl
    fi
    for entry in "${GOLDEN_SET[@]}"; do
        name=${entry%%|*}
        if [ ${#NAMES[@]} -gt 0 ] && [[ " ${NAMES[*]} " != *" $name "* ]]; then
            continue
        fi
        cp "$OUT/$name.nettrace" "$OUT/$name.capture.json" "$dest/"
        "$oracle" --manifest "$ROOT/manifest/gc.man" -o "$dest/$name.oracle.jsonl" "$dest/$name.nettrace"
        ts=$(stat -c %s "$dest/$name.nettrace")
        js=$(stat -c %s "$dest/$name.oracle.jsonl")
        total=$((total + ts))
        echo "golden $name: trace $ts bytes, oracle JSON $js bytes" >&2
        if [ "$ts" -gt 1048576 ] || [ "$js" -gt 1572864 ]; then
            echo "capture-traces: $name is over the golden size limits (1 MB trace, 1.5 MB JSON)" >&2
            exit 1
        fi
    done
    total=0
    for ts in "$dest"/*.nettrace; do total=$((total + $(stat -c %s "$ts"))); done
    if [ "$total" -gt 6291456 ]; then
        echo "capture-traces: golden traces together $total bytes > 6 MB" >&2
        exit 1
    fi
}

if [ "$GOLDEN" = 1 ]; then
    run_list "${GOLDEN_SET[@]}"
    make_goldens
elif [ ${#NAMES[@]} -gt 0 ]; then
    run_list "${MATRIX[@]}" "${GOLDEN_SET[@]}"
else
    run_list "${MATRIX[@]}"
fi
