#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev serve scraped by a real Prometheus (Debian's), while real .NET workloads run:
#   - three workloads with different GC settings (workstation concurrent with a background GC
#     every 300 ms, workstation non-concurrent, server GC), in tests/runtime/workload's live
#     mode with --hold: nothing is allocated before "start", so every session attached
#     before it sees every GC of the run; two start before serve, one after (found by rescan);
#   - `gcev record` of each over the same run: the GC counts by generation that PromQL gives
#     (Prometheus' HTTP API) must equal those of `gcev stats` on the records exactly; the pause
#     sums must equal stats of serve's own stream (--record-dir) within the rounding of stats'
#     JSON (the record's differ by per-session timestamps: printed). No timing enters: allocation stops ("stop": the workloads exit), the
#     sessions end, serve marks them exited only after their models have reported every GC,
#     and the comparison waits for a scrape that shows them exited;
#   - a process that is not .NET is not watched; as root, a workload of another user
#     (nobody) is watched by root's serve, and a serve run as nobody sees none of root's;
#   - promtool check metrics on the exposition; the OpenMetrics form ends with # EOF;
#   - the Grafana dashboard (doc/grafana-gcev.json) is valid JSON and each of its queries,
#     and README's p99 query, is accepted by Prometheus' API.
# Every wait polls with a generous bound; none is a correctness condition.
#   prometheus.sh   (GCEV, WORKLOAD, PROMETHEUS, PROMTOOL, SRC, STORE in the environment)
set -uo pipefail
: "${GCEV:?}" "${WORKLOAD:?}" "${PROMETHEUS:?}" "${PROMTOOL:?}" "${SRC:?}" "${STORE:?}"

dir=$(mktemp -d /tmp/gcev-serve-XXXXXX)
chmod 755 "$dir"
pids=()     # everything started here, killed at the end
serve= serve2= prom=
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    exec 4>&- 5>&- 6>&- 7>&- 2>/dev/null
    rm -rf "$dir" "$STORE"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    for f in serve.err serve2.err prom.log; do
        [ -f "$dir/$f" ] && { echo "-- $f:" >&2; tail -25 "$dir/$f" >&2; }
    done
    exit 1
}

# poll CMD...: runs CMD every 0.2 s until it succeeds, at most 90 s
poll() {
    for _ in $(seq 450); do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# the workload copied here: --match finds this test's processes and no one else's
cp -r "$(dirname "$WORKLOAD")" "$dir/wl"
chmod -R a+rX "$dir/wl"
W="$dir/wl/$(basename "$WORKLOAD")"
cp /bin/sleep "$dir/wl/not-dotnet"
mkdir "$dir/srec"

# start_wl NAME FD [ENV=V ...] -- [ARGS]: a held live workload, its stdin a fifo on fd FD
start_wl() {
    local name=$1 fd=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    mkfifo "$dir/$name.in"
    env "${envs[@]}" "$W" --scale 20 --hold "$@" live <"$dir/$name.in" >"$dir/$name.out" 2>&1 &
    local p=$!
    pids+=("$p")
    eval "exec $fd>\"$dir/$name.in\""
    poll grep -q '"event":"ready"' "$dir/$name.out" || fail "workload $name did not start"
    eval "pid_$name=$p"
}

metrics() { curl -sf --max-time 10 "http://127.0.0.1:$port/metrics"; }
# attached PID: serve's own /metrics says the process's session is attached
attached() { metrics | grep -q "^gcev_session_state{pid=\"$1\",.*state=\"attached\"} 1$"; }

# PromQL instant query -> the "result" array (jq)
q() { curl -sf --max-time 10 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
qv() { q "$1" | jq -r '.data.result[0].value[1] // empty'; }

# ---- two workloads before serve ----
start_wl a 4 DOTNET_gcConcurrent=1 -- --bgc-every 300
start_wl b 5 DOTNET_gcConcurrent=0 --
"$dir/wl/not-dotnet" 600 &
pid_nd=$!
pids+=("$pid_nd")

"$GCEV" serve --listen 127.0.0.1:0 --rescan 1 --match "$dir/wl/" --recycle-gcs 16 --keep-exited 600 --record-dir "$dir/srec" \
    2>"$dir/serve.err" &
serve=$!
pids+=("$serve")
poll grep -q 'listening on' "$dir/serve.err" || fail "serve did not listen"
port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/serve.err" | grep -o '[0-9]*$')
poll attached "$pid_a" || fail "serve did not attach to a ($pid_a)"
poll attached "$pid_b" || fail "serve did not attach to b ($pid_b)"
# ---- one after serve: found by a rescan ----
start_wl c 6 DOTNET_gcServer=1 --
poll attached "$pid_c" || fail "serve did not find c ($pid_c), started after it"
echo "serve on port $port attached to a=$pid_a (concurrent), b=$pid_b (non-concurrent), c=$pid_c (server GC)"

# ---- Prometheus, scraping serve every second ----
pport=$(free_port)
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: gcev
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
"$PROMTOOL" check config "$dir/prometheus.yml" >/dev/null || fail "promtool rejects the scrape config"
rm -rf "$STORE"
"$PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$STORE" \
    --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$dir/prom.log" 2>&1 &
prom=$!
pids+=("$prom")
up() { [ "$(qv 'up{job="gcev"}')" = 1 ]; }
poll up || fail "Prometheus does not scrape serve"
seen3() { [ "$(qv "count(gcev_session_state{state=\"attached\",pid=~\"$pid_a|$pid_b|$pid_c\"} == 1)")" = 3 ]; }
poll seen3 || fail "Prometheus does not see the three sessions attached"

# ---- records of the same runs ----
for n in a b c; do
    eval "p=\$pid_$n"
    timeout 300 "$GCEV" record "$p" -o "$dir/$n.nettrace" 2>"$dir/rec_$n.err" &
    eval "rec_$n=$!"
    pids+=("$!")
done
for n in a b c; do
    poll grep -q 'attached to' "$dir/rec_$n.err" || fail "record of $n did not attach: $(cat "$dir/rec_$n.err")"
done

# ---- not .NET: never listed; another user's: root's serve watches it, nobody's serve none of root's
metrics | grep -q "pid=\"$pid_nd\"" && fail "serve exports the process that is not .NET"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    mkfifo "$dir/e.in"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$W" --hold live <"$dir/e.in" >"$dir/e.out" 2>&1 &
    pid_e=$!
    pids+=("$pid_e")
    exec 7>"$dir/e.in"
    poll grep -q '"event":"ready"' "$dir/e.out" || fail "nobody's workload did not start"
    poll attached "$pid_e" || fail "root's serve did not attach to nobody's workload $pid_e"
    cp "$GCEV" "$dir/gcev" && chmod 755 "$dir/gcev"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/gcev" serve --listen 127.0.0.1:0 --rescan 1 \
        --match "$dir/wl/" 2>"$dir/serve2.err" &
    serve2=$!
    pids+=("$serve2")
    poll grep -q 'listening on' "$dir/serve2.err" || fail "nobody's serve did not listen"
    port2=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/serve2.err" | grep -o '[0-9]*$')
    m2() { curl -sf --max-time 10 "http://127.0.0.1:$port2/metrics"; }
    att2() { m2 | grep -q "^gcev_session_state{pid=\"$pid_e\",.*state=\"attached\"} 1$"; }
    poll att2 || fail "nobody's serve does not watch nobody's own workload"
    for p in "$pid_a" "$pid_b" "$pid_c"; do
        m2 | grep -q "pid=\"$p\"" && fail "nobody's serve exports root's process $p"
    done
    echo "another user: root's serve watches nobody's $pid_e; nobody's serve sees it and none of root's"
    echo stop >&7
fi

# ---- the run: allocation from "start" to "stop" ----
for fd in 4 5 6; do echo start >&$fd; done
for n in a b c; do poll grep -q '"event":"start"' "$dir/$n.out" || fail "$n did not start"; done
# enough GCs seen by serve (and a background GC of a) before stopping: polled, bounded
gcs_of() { metrics | awk -v p="pid=\"$1\"" '/^gcev_gcs_total\{/ && index($0, p) { s += $NF } END { print s + 0 }'; }
enough() { [ "$(gcs_of "$pid_a")" -ge 20 ] && [ "$(gcs_of "$pid_b")" -ge 20 ] && [ "$(gcs_of "$pid_c")" -ge 10 ] &&
    metrics | grep -q "^gcev_gcs_total{pid=\"$pid_a\",.*type=\"background\""; }
poll enough || fail "too few GCs in 90 s"
for fd in 4 5 6; do echo stop >&$fd; done
for n in a b c; do
    eval "p=\$pid_$n r=\$rec_$n"
    wait "$p"
    wait "$r" || fail "record of $n failed: $(cat "$dir/rec_$n.err")"
done
# final: serve has marked them exited (after reporting every GC), and Prometheus has scraped that
exited3() { [ "$(qv "count(gcev_session_state{state=\"exited\",pid=~\"$pid_a|$pid_b|$pid_c\"} == 1)")" = 3 ]; }
poll exited3 || fail "Prometheus does not see the three processes exited"

# ---- PromQL against gcev stats of the records ----
# Two streams per process: serve's own session (--record-dir: the events the exporter read) and
# the independent `gcev record`. GC counts must equal both exactly. Pause sums must equal
# stats of serve's own stream within the JSON's rounding (3 decimals of ms: 0.5 us per GC); the
# independent record's pauses differ by the runtime's per-session timestamps (each session's
# copy of an event is stamped when it is written to that session: SuspendEEBegin and
# RestartEEEnd of the same GC differ between two sessions by tens of microseconds, by a
# millisecond or more when one session asks for stacks, as gcev record does, and now and then
# by several (a buffer the runtime allocates for one session)): that difference is printed,
# not asserted, since it is the machine's timing; the GCs with a pause must be the same ones.
bad=0
sums() { # FILE GEN -> "count pause_count pause_seconds"
    jq -r "[.gcs[] | select(.generation == $2)] as \$g | [\$g | length, ([\$g[] | .pause_ms // empty] | length),
        (([\$g[] | .pause_ms // empty] | add // 0) / 1000)] | @tsv" "$1"
}
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t + 1e-9) }'; }
printf '%-3s %-7s %-3s | %6s %6s %6s | %10s %10s %10s\n' run pid gen record own promql "record s" "own s" "promql s"
for n in a b c; do
    eval "p=\$pid_$n"
    own=$(ls "$dir/srec/gcev-serve-$p-"*.nettrace 2>/dev/null)
    if [ "$(echo "$own" | wc -w)" != 1 ]; then
        # what ended serve's first session: its log line, and each stream read back
        grep -a "^gcev serve: $p " "$dir/serve.err" >&2
        for f in $own; do
            echo "-- $f ($(stat -c %s "$f") bytes): $("$GCEV" count "$f" 2>&1 | tail -3 | tr '\n' ' ')" >&2
        done
        fail "not one stream of serve's for $n: $own"
    fi
    "$GCEV" stats --format json "$dir/$n.nettrace" >"$dir/$n.json" 2>/dev/null || fail "gcev stats of $n's record"
    "$GCEV" stats --format json "$own" >"$dir/$n.own.json" 2>/dev/null || fail "gcev stats of serve's stream of $n"
    for g in 0 1 2; do
        read -r rc rn rp <<<"$(sums "$dir/$n.json" $g)"
        read -r oc on op <<<"$(sums "$dir/$n.own.json" $g)"
        gc_=$(qv "sum(gcev_gcs_total{pid=\"$p\",generation=\"$g\"})")
        gp=$(qv "sum(gcev_gc_pause_seconds_sum{pid=\"$p\",generation=\"$g\"})")
        gn=$(qv "sum(gcev_gc_pause_seconds_count{pid=\"$p\",generation=\"$g\"})")
        printf '%-3s %-7s %-3s | %6s %6s %6s | %10.6f %10.6f %10.6f\n' "$n" "$p" "$g" "$rc" "$oc" "${gc_:-0}" "$rp" "$op" "${gp:-0}"
        [ "${gc_:-0}" = "$rc" ] && [ "$oc" = "$rc" ] || { echo "  gen$g GC counts differ" >&2; bad=1; }
        [ "${gn:-0}" = "$on" ] || { echo "  gen$g pause counts differ: $on vs ${gn:-0}" >&2; bad=1; }
        close "$op" "${gp:-0}" "$(awk -v k="$on" 'BEGIN { print k * 0.0000005 }')" ||
            { echo "  gen$g pause sum differs from serve's own stream beyond the rounding" >&2; bad=1; }
        [ "$rn" = "$on" ] || { echo "  gen$g: $rn GCs with a pause in the record, $on in serve's stream" >&2; bad=1; }
    done
    unknown=$(jq '[.gcs[] | select(.generation == null)] | length' "$dir/$n.json")
    [ "$unknown" = 0 ] || { echo "  $unknown GCs without a generation in the record" >&2; bad=1; }
    bgc=$(jq '[.gcs[] | select(.type == "background")] | length' "$dir/$n.json")
    echo "    $n: $(jq '.gcs | length' "$dir/$n.json") GCs, $bgc background; model recycles: $(qv "gcev_model_recycles_total{pid=\"$p\"}")"
done
[ "$bad" = 0 ] || fail "PromQL and gcev stats differ (above)"
[ "$(qv "sum(gcev_gcs_total{pid=\"$pid_a\",type=\"background\"})")" -gt 0 ] || fail "no background GC of a"
[ -n "$(qv "max(gcev_gc_heaps{pid=\"$pid_c\"})")" ] || fail "no heap count for c (server GC)"
[ "$(qv "max(gcev_model_recycles_total{pid=\"$pid_a\"})")" -ge 1 ] || fail "a's model was never recycled (--recycle-gcs 16)"

# ---- the exposition itself ----
metrics >"$dir/expo.txt" || fail "no /metrics"
"$PROMTOOL" check metrics <"$dir/expo.txt" >"$dir/lint" 2>&1 || fail "promtool check metrics: $(head "$dir/lint")"
curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
    -D "$dir/om.hdr" "http://127.0.0.1:$port/metrics" >"$dir/expo.om" || fail "no OpenMetrics /metrics"
grep -qi '^content-type: application/openmetrics-text' "$dir/om.hdr" || fail "not OpenMetrics: $(cat "$dir/om.hdr")"
[ "$(tail -1 "$dir/expo.om")" = "# EOF" ] || fail "OpenMetrics exposition without # EOF"
grep -q '^# UNIT gcev_gc_pause_seconds seconds$' "$dir/expo.om" || fail "no UNIT line in OpenMetrics"
echo "promtool check metrics: clean ($(grep -vc '^#' "$dir/expo.txt") samples); OpenMetrics ends with # EOF"

# ---- the dashboard's and README's queries ----
dash="$SRC/doc/grafana-gcev.json"
jq -e '.panels | length > 0' "$dash" >/dev/null || fail "the dashboard is not valid JSON with panels"
nq=0
while IFS= read -r expr; do
    e=${expr//\$__rate_interval/1m}
    e=${e//\$process/.*}
    e=${e//\$pid/.*}
    [ "$(q "$e" | jq -r .status)" = success ] || fail "Prometheus rejects the dashboard query: $expr"
    nq=$((nq + 1))
done < <(jq -r '.. | objects | select(has("expr")) | .expr' "$dash")
p99=$(grep -o 'histogram_quantile(0.99, [^`]*' "$SRC/README.md" | head -1)
[ -n "$p99" ] || fail "no p99 query in README"
[ "$(q "$p99" | jq -r .status)" = success ] || fail "Prometheus rejects README's p99 query: $p99"
echo "dashboard: $nq queries and README's p99 query accepted by Prometheus"

# ---- serve stops cleanly ----
kill -TERM "$serve"
wait "$serve"
rc=$?
[ "$rc" -eq 0 ] || fail "serve exit status $rc after SIGTERM"
echo "PASS prometheus"
