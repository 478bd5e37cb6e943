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
# scrapes: 60 in a row; curl's times split each into connect (the client's own wait: loopback
# connects complete in the kernel), server (request sent to first byte: serve's thread waking,
# building the exposition) and transfer; each exposition carries serve's own time (lock and
# writing) of the scrape before it. The scrapes ask for gzip, as Prometheus' do. The CPU left idle over the scrapes says whether the
# machine was saturated (then every process, the scraper included, waits for a core).
idle() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r i0 a0 < <(idle)
for i in $(seq 60); do
    curl -s -H 'Accept-Encoding: gzip' -o "$dir/body.gz" -w "%{time_total} %{time_connect} %{time_starttransfer}\n" "$url"
    gzip -dc <"$dir/body.gz" | grep '^gcev_serve_scrape_duration_seconds' | cut -d' ' -f2 >>"$dir/own"
done | sort -n >"$dir/times"
[ -z "${GCEV_BENCH_TIMES:-}" ] || cp "$dir/times" "$GCEV_BENCH_TIMES"
read -r i1 a1 < <(idle)
size=$(curl -sf "$url" | wc -c) gzsize=$(wc -c <"$dir/body.gz")
series=$(curl -sf "$url" | grep -vc '^#')
awk -v g0="$g0" -v g1="$g1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" 'BEGIN {
    el = t1 - t0; gps = (g1 - g0) / el; cpu = (c1 - c0) / hz / el
    printf "GC rate %.0f GCs/s over %.1f s; exporter CPU %.3f cores", gps, el, cpu
    if (gps > 0) printf " = %.3f cores (%.1f%% of one) per 1,000 GCs/s", cpu / gps * 1000, cpu / gps * 1000 * 100
    printf "\n" }'
pct() { sed -n "$1p" "$dir/times" | cut -d' ' -f1; }
echo "scrape ($series samples, $size bytes, $gzsize gzip-encoded; 60 scrapes, curl's time_total): median $(pct 30) s," \
    "90th percentile $(pct 54) s, worst $(pct 60) s; serve's own time at worst $(sort -g "$dir/own" | tail -1) s"
tail -1 "$dir/times" | awk '{ printf "  the worst: connect %.4f s, server %.4f s, transfer %.4f s\n", $2, $3 - $2, $1 - $3 }'
awk -v i0="$i0" -v i1="$i1" -v a0="$a0" -v a1="$a1" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "  CPU idle over the scrapes %.0f%%, load average %s\n", (i1 - i0) * 100 / (a1 - a0), l }'
echo "serve: resident $(curl -sf "$url" | grep '^gcev_serve_resident_memory_bytes' | cut -d' ' -f2) bytes"
