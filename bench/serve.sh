#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev serve's cost (not a timed test; prints the numbers):
#   1. the time of one scrape of /metrics while N .NET processes are watched (target < 100 ms);
#   2. the exporter's CPU per 1,000 GCs/s: its CPU seconds over a window divided by the GCs
#      it reported in that window (the workloads allocate as fast as the --scale says).
#   bench/serve.sh BUILD_DIR [N=20] [SECONDS=20] [SCALE=20]
# On a machine the workloads saturate, the scrape's time is mostly the wait for a core
# (bench_serve_expo measures the exporter's own work per scrape alone).
# BUILD_DIR has gcev and the workload (dotnet-session/, built by the runtime_session_build test).
set -uo pipefail
build=${1:?usage: bench/serve.sh BUILD_DIR [N] [SECONDS] [SCALE]}
n=${2:-20} secs=${3:-20} scale=${4:-20}
gcev="$build/tools/gcev/gcev"
wl_src="$build/dotnet-session/bin/Workload/release"
[ -x "$gcev" ] && [ -x "$wl_src/gcev-workload" ] || { echo "need $gcev and $wl_src/gcev-workload" >&2; exit 2; }
dir=$(mktemp -d /tmp/gcev-bench-serve-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
cp -r "$wl_src" "$dir/wl"
for i in $(seq "$n"); do
    "$dir/wl/gcev-workload" --scale "$scale" live </dev/null >/dev/null 2>&1 &
    pids+=("$!")
done
"$gcev" serve --listen 127.0.0.1:0 --rescan 1 --match "$dir/wl/" 2>"$dir/err" &
serve=$!
pids+=("$serve")
for _ in $(seq 300); do grep -q 'listening on' "$dir/err" && break; sleep 0.1; done
port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/err" | grep -o '[0-9]*$')
url="http://127.0.0.1:$port/metrics"
attached() { curl -sf "$url" | grep -c '^gcev_session_state{.*state="attached"} 1$'; }
for _ in $(seq 600); do [ "$(attached)" -ge "$n" ] && break; sleep 0.2; done
echo "watching $(attached) processes (workload --scale $scale)"
gcs() { curl -sf "$url" | awk '/^gcev_gcs_total\{/ { s += $NF } END { print s + 0 }'; }
cpu() { awk '{ print $14 + $15 }' "/proc/$serve/stat"; }
hz=$(getconf CLK_TCK)
g0=$(gcs) c0=$(cpu) t0=$(date +%s.%N)
sleep "$secs"
g1=$(gcs) c1=$(cpu) t1=$(date +%s.%N)
# scrapes: 30 in a row
for i in $(seq 30); do curl -s -o /dev/null -w '%{time_total}\n' "$url"; done | sort -n >"$dir/times"
size=$(curl -sf "$url" | wc -c)
series=$(curl -sf "$url" | grep -vc '^#')
awk -v g0="$g0" -v g1="$g1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" 'BEGIN {
    el = t1 - t0; gps = (g1 - g0) / el; cpu = (c1 - c0) / hz / el
    printf "GC rate %.0f GCs/s over %.1f s; exporter CPU %.3f cores", gps, el, cpu
    if (gps > 0) printf " = %.3f cores (%.1f%% of one) per 1,000 GCs/s", cpu / gps * 1000, cpu / gps * 1000 * 100
    printf "\n" }'
echo "scrape ($series samples, $size bytes): median $(sed -n 15p "$dir/times") s, 90th percentile $(sed -n 27p "$dir/times") s, max $(tail -1 "$dir/times") s" \
    "(curl time_total, 30 scrapes); serve's own: $(curl -sf "$url" | grep '^gcev_serve_scrape_duration_seconds' | cut -d' ' -f2) s;" \
    "resident $(curl -sf "$url" | grep '^gcev_serve_resident_memory_bytes' | cut -d' ' -f2) bytes"
