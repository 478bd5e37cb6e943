#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev serve without a runtime: README's metric list is the table's (--list-metrics); usage
# errors; a taken port is exit status 9 with the reason; against the fake diagnostics server
# (tests/session/fake_server.c, streaming examples/sample.nettrace): /metrics, /healthz, 404,
# OpenMetrics and gzip on request, promtool check metrics when promtool is there, libmicrohttpd
# loaded by serve only, SIGTERM.
#   cli.sh CASE   (GCEV, SRC; FAKE_SERVER, SAMPLE, PROMTOOL optional)
set -uo pipefail
case_=${1:?usage: cli.sh CASE}
: "${GCEV:?}" "${SRC:?}"

dir=$(mktemp -d /tmp/gcev-serve-cli-XXXXXX)
chmod 755 "$dir"
export TMPDIR=$dir
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT
fail() {
    echo "FAIL ($case_): $*" >&2
    [ -f "$dir/err" ] && { echo "-- stderr:" >&2; tail -20 "$dir/err" >&2; }
    exit 1
}
poll() {
    for _ in $(seq 300); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
# start_serve ARGS...: serve on a free loopback port; sets serve and port
start_serve() {
    "$GCEV" serve --listen 127.0.0.1:0 "$@" 2>"$dir/err" &
    serve=$!
    pids+=("$serve")
    poll grep -q 'listening on' "$dir/err" || fail "serve did not listen"
    port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/err" | grep -o '[0-9]*$')
}

case "$case_" in
readme)
    # the "Monitoring a fleet" list: rows "| `name` | type | ..." between its markers
    sed -n '/<!-- serve-metrics -->/,/<!-- \/serve-metrics -->/p' "$SRC/README.md" |
        sed -nE 's/^\| `([a-z_]+)` \| ([a-z]+) \|.*/\1 \2/p' >"$dir/readme"
    "$GCEV" serve --list-metrics | awk '{ print $1, $2 }' >"$dir/table"
    [ -s "$dir/readme" ] || fail "no metric list in README"
    diff "$dir/table" "$dir/readme" >"$dir/diff" || fail "README's list differs from the table (table <, README >): $(cat "$dir/diff")"
    # and the man page names every family
    while read -r name _; do
        grep -qF -- "$name" "$SRC/doc/gcev.1" || fail "doc/gcev.1 does not name $name"
    done <"$dir/table"
    echo "README and doc/gcev.1 list the $(wc -l <"$dir/table") metric families of the table"
    ;;
usage)
    for args in "--rescan 0" "--max-processes 0" "--recycle-gcs x" "--profile nope" "--pid abc" "--match (" \
        "--listen nocolon" "--listen 127.0.0.1:99999" "--bogus"; do
        # shellcheck disable=SC2086 # word-split on purpose
        timeout 10 "$GCEV" serve $args >/dev/null 2>"$dir/err"
        rc=$?
        [ "$rc" -eq 2 ] || fail "serve $args: exit status $rc, expected 2"
        grep -q '^gcev serve: ' "$dir/err" || fail "serve $args: no message"
    done
    "$GCEV" serve --help >"$dir/help" || fail "--help"
    grep -q 'gcev_gc_pause_seconds (histogram)' "$dir/help" || fail "--help does not list the metrics"
    echo "usage errors: exit status 2 with a message; --help lists the metrics"
    ;;
port_taken)
    start_serve --pid 1 --rescan 100
    timeout 20 "$GCEV" serve --listen "127.0.0.1:$port" --pid 1 >/dev/null 2>"$dir/err2"
    rc=$?
    [ "$rc" -eq 9 ] || fail "second serve on port $port: exit status $rc, expected 9"
    grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$dir/err2" || fail "message: $(cat "$dir/err2")"
    echo "port taken: $(cat "$dir/err2")"
    kill -TERM "$serve"
    wait "$serve" || fail "serve exit status $? after SIGTERM"
    ;;
fake)
    : "${FAKE_SERVER:?}" "${SAMPLE:?}"
    "$FAKE_SERVER" stream "$dir/ready" "$SAMPLE" &
    pids+=("$!")
    poll test -s "$dir/ready" || fail "the fake server did not start"
    fp=$(head -1 "$dir/ready")
    start_serve --pid "$fp" --rescan 0.5
    m() { curl -sf --max-time 10 "http://127.0.0.1:$port/metrics"; }
    gcs() { m | awk -v p="pid=\"$fp\"" '/^gcev_gcs_total\{/ && index($0, p) { s += $NF } END { print s + 0 }'; }
    some() { [ "$(gcs)" -gt 20 ]; }
    poll some || fail "no GCs of the sample trace in /metrics: $(m | grep "pid=\"$fp\"" | head -5)"
    m >"$dir/expo.txt"
    grep -q "^gcev_session_state{pid=\"$fp\",process=\"fake_server\",runtime_version=\"[^\"]*\",container_id=\"\",state=\"attached\"} 1$" \
        "$dir/expo.txt" || fail "no attached state for $fp"
    grep -q '^gcev_gc_pause_seconds_bucket{.*le="+Inf"}' "$dir/expo.txt" || fail "no pause histogram"
    grep -q '^gcev_heap_size_after_bytes{.*generation="gen0"}' "$dir/expo.txt" || fail "no heap size"
    grep -q '^gcev_serve_scrapes_total [0-9]' "$dir/expo.txt" || fail "no scrape counter"
    if [ -n "${PROMTOOL:-}" ]; then
        "$PROMTOOL" check metrics <"$dir/expo.txt" >"$dir/lint" 2>&1 || fail "promtool: $(cat "$dir/lint")"
        echo "promtool check metrics: clean"
    fi
    [ "$(curl -sf "http://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz"
    # libmicrohttpd (and GnuTLS with it) is loaded by serve, never by the other commands
    grep -q 'libmicrohttpd' "/proc/$serve/maps" || fail "serve runs without libmicrohttpd mapped"
    LD_DEBUG=libs "$GCEV" --version >/dev/null 2>"$dir/ld" || fail "gcev --version"
    grep -q 'calling init' "$dir/ld" || fail "LD_DEBUG=libs said nothing: $(head -3 "$dir/ld")"
    grep -q 'microhttpd\|gnutls' "$dir/ld" && fail "gcev --version loads libmicrohttpd: $(grep -m2 'microhttpd\|gnutls' "$dir/ld")"
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
    [ "$code" = 404 ] || fail "/nope: $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")
    [ "$code" = 405 ] || fail "POST /metrics: $code"
    curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics" >"$dir/om"
    [ "$(tail -1 "$dir/om")" = "# EOF" ] || fail "OpenMetrics without # EOF"
    grep -q '^# TYPE gcev_gcs counter$' "$dir/om" || fail "OpenMetrics counter family named with _total"
    curl -sf "http://127.0.0.1:$port/metrics" | grep -q '# EOF' && fail "text format with # EOF"
    # gzip, as Prometheus asks for it: the header, a body gzip decodes, the same exposition
    curl -sf -H 'Accept-Encoding: gzip' -D "$dir/gz.h" -o "$dir/gz" "http://127.0.0.1:$port/metrics" || fail "gzip scrape"
    tr -d '\r' <"$dir/gz.h" | grep -qix 'content-encoding: gzip' || fail "no Content-Encoding: gzip: $(cat "$dir/gz.h")"
    tr -d '\r' <"$dir/gz.h" | grep -qix 'vary: accept, accept-encoding' || fail "no Vary: $(cat "$dir/gz.h")"
    gzip -dc <"$dir/gz" >"$dir/gz.txt" || fail "the gzip body does not decode"
    grep -q "^gcev_session_state{pid=\"$fp\",.*state=\"attached\"} 1$" "$dir/gz.txt" || fail "gzip body without the process"
    if [ -n "${PROMTOOL:-}" ]; then
        "$PROMTOOL" check metrics <"$dir/gz.txt" >"$dir/lint" 2>&1 || fail "promtool (gzip body): $(cat "$dir/lint")"
    fi
    zs=$(wc -c <"$dir/gz") ps=$(wc -c <"$dir/gz.txt")
    [ $((zs * 3)) -lt "$ps" ] || fail "gzip body $zs bytes for $ps of text"
    curl -sf -H 'Accept-Encoding: gzip;q=0, *' -D "$dir/plain.h" -o "$dir/plain" "http://127.0.0.1:$port/metrics"
    tr -d '\r' <"$dir/plain.h" | grep -qi '^content-encoding' && fail "encoded although gzip;q=0"
    [ "$(head -c 6 "$dir/plain")" = '# HELP' ] || fail "plain body: $(head -c 20 "$dir/plain" | od -c | head -2)"
    echo "fake server $fp: $(gcs) GCs exported; /healthz, 404, 405, OpenMetrics, gzip ($zs bytes for $ps)"
    kill -TERM "$serve"
    wait "$serve" || fail "serve exit status $? after SIGTERM"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS $case_"
