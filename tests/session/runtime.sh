#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev's live sessions against real .NET processes: tests/runtime/workload in its `live`
# mode (allocates until told to stop; "start" and "stop" on stdin print GC.CollectionCount).
#   runtime.sh CASE   (GCEV, WORKLOAD, CYCLES, [ORACLE, MANIFEST, VALGRIND] in the environment)
set -uo pipefail
case_=${1:?usage: runtime.sh CASE}
: "${GCEV:?}" "${WORKLOAD:?}"

dir=$(mktemp -d /tmp/gcev-rt-XXXXXX)
chmod 755 "$dir"
wl=
dog= # a watchdog subshell: killed here, so its delayed kill never hits a reused pid
cleanup() {
    [ -n "$dog" ] && kill "$dog" 2>/dev/null
    exec 3>&- 2>/dev/null
    [ -n "$wl" ] && kill -KILL "$wl" 2>/dev/null && wait "$wl" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

fail() {
    echo "FAIL ($case_): $*" >&2
    for f in err wl.out; do [ -f "$dir/$f" ] && { echo "-- $f:" >&2; tail -20 "$dir/$f" >&2; }; done
    exit 1
}

# The workload in live mode, its stdin a fifo held open on fd 3.
start_workload() {
    mkfifo "$dir/in"
    # --scale: ~10 MB/s per unit; the gen0 budget is 16 MB, so a few GCs a second at 30
    # shellcheck disable=SC2086 # LIVE_ARGS: extra options of the live mode, word-split on purpose
    "$WORKLOAD" --scale "${SCALE:-30}" ${LIVE_ARGS:-} live <"$dir/in" >"$dir/wl.out" 2>&1 &
    wl=$!
    exec 3>"$dir/in"
    for _ in $(seq 1000); do
        grep -q '"event":"ready"' "$dir/wl.out" 2>/dev/null && {
            # the diagnostic server listens once the runtime is up: ready is printed from Main
            return 0
        }
        sleep 0.02
    done
    fail "the workload did not start"
}

wait_line() { # FILE REGEX: waits up to 20 s for a line
    for _ in $(seq 1000); do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.02
    done
    fail "no /$2/ in $1"
}

count() { # EVENT GEN: the workload's CollectionCount(GEN) at EVENT
    grep "\"event\":\"$1\"" "$dir/wl.out" | head -1 | grep -o "\"gen$2\":[0-9]*" | cut -d: -f2
}

case "$case_" in
watch_counts)
    # every GC the process makes while attached is watched: for each generation g, the
    # watched GCs of generation >= g numbered in (start, stop] are the CollectionCount(g)
    # difference (a GC's number is its CollectionCount(0) index)
    start_workload
    timeout 60 "$GCEV" watch "$wl" --format jsonl >"$dir/out" 2>"$dir/err" &
    w=$!
    wait_line "$dir/err" 'attached to'
    grep -q "with CollectTracing5 (CollectTracing6: unknown command)" "$dir/err" ||
        fail "not the CollectTracing6 -> 5 fallback: $(cat "$dir/err")"
    sleep 0.3
    echo start >&3
    wait_line "$dir/wl.out" '"event":"start"'
    sleep 3
    echo stop >&3
    wait_line "$dir/wl.out" '"event":"stop"'
    wait "$w"
    rc=$?
    wl=
    [ "$rc" -eq 0 ] || fail "watch exit status $rc"
    grep -q "ended the session (it exited); the trace is complete" "$dir/err" || fail "no note of the exit"
    s0=$(count start 0) e0=$(count stop 0)
    [ -n "$s0" ] && [ -n "$e0" ] && [ "$e0" -gt "$s0" ] || fail "no GC between start and stop"
    for g in 0 1 2; do
        want=$(($(count stop $g) - $(count start $g)))
        got=$(grep '^{"gc":{"number":' "$dir/out" | awk -F'[:,]' -v lo="$s0" -v hi="$e0" -v g="$g" '
            { n = $3; gen = -1; for (i = 1; i < NF; i++) if ($i == "\"generation\"") gen = $(i + 1)
              if (n > lo && n <= hi && gen >= g) c++ }
            END { print c + 0 }')
        echo "gen >= $g: watched $got, CollectionCount difference $want"
        [ "$got" -eq "$want" ] || fail "generation >= $g: watched $got GCs, the runtime counted $want"
    done
    incomplete=$(grep -c '"complete":false' "$dir/out")
    grep '^{"summary"' "$dir/out"
    [ "$incomplete" -le 1 ] || fail "$incomplete GCs without an end"
    ;;
record_traceevent | record_traceevent_verbose)
    # a recorded file: gcev reads it to its clean end; TraceEvent (the oracle) finds the same GCs
    profile=gc-collect
    [ "$case_" = record_traceevent_verbose ] && profile=gc-verbose
    start_workload
    timeout 60 "$GCEV" record "$wl" -o "$dir/r.nettrace" --duration 2 --profile $profile 2>"$dir/err" ||
        fail "record failed"
    echo "$(tail -1 "$dir/err")"
    "$GCEV" count "$dir/r.nettrace" >"$dir/count" || fail "gcev cannot read the record"
    # GCStart as (Count, Depth, Reason, Type), by GC number
    "$GCEV" dump --format jsonl "$dir/r.nettrace" |
        grep '"provider":"Microsoft-Windows-DotNETRuntime","id":1,' |
        sed -E 's/.*"fields":\{"Count":([0-9]+),"Depth":([0-9]+),"Reason":([0-9]+),"Type":([0-9]+).*/\1 \2 \3 \4/' |
        sort -n >"$dir/gcev.gcs"
    n=$(wc -l <"$dir/gcev.gcs")
    [ "$n" -gt 0 ] || fail "no GCStart event in 2 s"
    if [ -n "${ORACLE:-}" ]; then
        "$ORACLE" --manifest "$MANIFEST" --no-coverage "$dir/r.nettrace" >"$dir/oracle.jsonl" || fail "the oracle failed"
        grep '"record":"event","provider":"Microsoft-Windows-DotNETRuntime","id":1,' "$dir/oracle.jsonl" |
            sed -E 's/.*"fields":\{"Count":([0-9]+),"Reason":([0-9]+),"Depth":([0-9]+),"Type":([0-9]+).*/\1 \3 \2 \4/' |
            sort -n >"$dir/oracle.gcs"
        diff "$dir/oracle.gcs" "$dir/gcev.gcs" >"$dir/diff" ||
            fail "TraceEvent and gcev differ on GCStart: $(head -5 "$dir/diff")"
        # and the same number of events of every runtime provider's (id, version)
        grep '"record":"count","provider":"Microsoft-Windows-DotNETRuntime' "$dir/oracle.jsonl" |
            sed -E 's/.*"provider":"([^"]*)","id":([0-9]+),"version":([0-9]+),"count":([0-9]+).*/\1 \2 \3 \4/' |
            sort >"$dir/oracle.counts"
        awk '$2 ~ /^Microsoft-Windows-DotNETRuntime/ { v = $5; sub(/^v/, "", v); print $2, $4, v, $1 }' \
            "$dir/count" | sort >"$dir/gcev.counts"
        diff "$dir/oracle.counts" "$dir/gcev.counts" >"$dir/diff" ||
            fail "event counts differ (TraceEvent <, gcev >): $(head -5 "$dir/diff")"
        echo "TraceEvent 4.0.0 and gcev: the same $n GCStart events (number, generation, reason, type)" \
            "and the same counts for $(wc -l <"$dir/gcev.counts") runtime event kinds"
    else
        echo "gcev reads the record: $n GCStart events (no oracle in this tree: TraceEvent not asked)"
    fi
    ;;
stats_record)
    # stats --pid --record FILE is stats FILE
    start_workload
    timeout 60 "$GCEV" stats --pid "$wl" --duration 2 --format json --record "$dir/s.nettrace" >"$dir/live.json" \
        2>"$dir/err" || fail "stats --pid failed"
    "$GCEV" stats --format json "$dir/s.nettrace" >"$dir/file.json" || fail "stats FILE failed"
    diff <(tail -n +2 "$dir/live.json") <(tail -n +2 "$dir/file.json") >"$dir/diff" || fail "differ: $(head "$dir/diff")"
    grep -q '"gcs":\[$' "$dir/live.json" || grep -q '"number":' "$dir/live.json" || fail "no GC in the analysis"
    echo "stats --pid equals stats FILE ($(grep -c '"number":' "$dir/live.json") GCs)"
    ;;
watch_vs_stats)
    # watch prints each GC as the one analysis model closes it (the stats model fed the session
    # in stream order, timestamp order restored at the runtime's flush marks): every line must be,
    # key for key, the object `gcev stats` gives for that GC of the recorded stream. The workload
    # forces what broke watch's old pause rule: a background GC every 400 ms (a non-blocking
    # induced gen2 GC on concurrent workstation GC), gen0 GCs going on around it.
    LIVE_ARGS="--bgc-every 400" start_workload
    timeout 60 "$GCEV" watch "$wl" --duration 3 --format jsonl --record "$dir/v.nettrace" >"$dir/out" \
        2>"$dir/err" || fail "watch failed"
    grep -q "^gcev watch: process $wl: .*gcev-workload.*; profile gc-collect$" "$dir/err" ||
        fail "no header with the command line and profile: $(cat "$dir/err")"
    grep '^{"gc":{"number":' "$dir/out" | sed -E 's/^\{"gc":(.*),"json_version":2\}$/\1/' >"$dir/watch.gcs"
    # one GC a line in "gcs": a comma after it, or the array's "]" after the last
    "$GCEV" stats --format json "$dir/v.nettrace" 2>/dev/null | grep '^ {"number":' | sed -E 's/^ //; s/,$//; s/\}\]$/}/' \
        >"$dir/stats.gcs"
    n=$(wc -l <"$dir/watch.gcs")
    [ "$n" -gt 0 ] || fail "no GC watched"
    [ "$n" -eq "$(wc -l <"$dir/stats.gcs")" ] ||
        fail "watch printed $n GCs, stats of the record has $(wc -l <"$dir/stats.gcs")"
    # the same GCs in the same order (start order: GCs inside a background GC come right after it)
    if ! diff "$dir/watch.gcs" "$dir/stats.gcs" >"$dir/diff"; then
        head -c 3000 "$dir/diff" >&2
        fail "watch and stats differ (diff above)"
    fi
    bgc=$(grep -c '"type":"background"' "$dir/watch.gcs")
    [ "$bgc" -gt 0 ] || fail "no background GC in the window"
    # a gen0 GC after each background GC's start (the case watch's old rule got wrong)
    after=$(awk '/"type":"background"/ { b = 1; next } b && /"generation":0,/ { c++; b = 0 } END { print c + 0 }' \
        "$dir/watch.gcs")
    [ "$after" -gt 0 ] || fail "no gen0 GC after a background GC"
    echo "watch and stats agree, every key, on $n GCs ($bgc background GCs, $after followed by a gen0 GC)"
    ;;
report)
    start_workload
    timeout 60 "$GCEV" report --pid "$wl" --duration 2 -o "$dir/live.html" --record "$dir/r.nettrace" \
        2>"$dir/err" || fail "report --pid failed"
    "$GCEV" report -o "$dir/file.html" "$dir/r.nettrace" 2>/dev/null || fail "report FILE"
    page() { sed 's/></>\n</g' "$1" | grep -v -e '<title>' -e 'class="source"' -e 'class="facts"'; }
    diff <(page "$dir/live.html") <(page "$dir/file.html") >/dev/null || fail "the live page differs from the file's"
    echo "report --pid: $(tail -1 "$dir/err")"
    ;;
ctrl_c)
    start_workload
    # no `timeout` around it: timeout passes a SIGINT on to its whole process group, so gcev
    # would get two (the second one ends it at once, by design); a watchdog instead
    "$GCEV" watch "$wl" --record "$dir/c.nettrace" >"$dir/out" 2>"$dir/err" &
    w=$!
    (sleep 60 && kill -KILL "$w") >/dev/null 2>&1 &
    dog=$!
    wait_line "$dir/err" 'attached to'
    sleep 1
    t0=$(date +%s%N)
    kill -INT "$w"
    wait "$w"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    kill "$dog" 2>/dev/null
    dog=
    [ "$rc" -eq 0 ] || fail "watch exit status $rc after Ctrl-C"
    grep -q '^-- [0-9]* GCs' "$dir/out" || fail "no summary"
    "$GCEV" count "$dir/c.nettrace" | grep -q 'GCSettingsRundown' || fail "the record has no rundown"
    echo "Ctrl-C: stopped in $ms ms, record complete with its rundown"
    ;;
killed)
    start_workload
    timeout 60 "$GCEV" watch "$wl" >"$dir/out" 2>"$dir/err" &
    w=$!
    wait_line "$dir/err" 'attached to'
    sleep 1
    kill -KILL "$wl"
    wait "$wl" 2>/dev/null
    wl=
    wait "$w"
    rc=$?
    [ "$rc" -eq 8 ] || fail "watch exit status $rc, expected 8"
    grep -q "the process exited during the session" "$dir/err" || fail "message: $(cat "$dir/err")"
    grep -q '^GC ' "$dir/out" || fail "no GC before the kill"
    echo "killed: $(tail -1 "$dir/err")"
    ;;
refused)
    # a request the runtime rejects (level 6: above Verbose) is answered with an HRESULT
    start_workload
    timeout 60 "$GCEV" record "$wl" -o "$dir/x.nettrace" --providers Microsoft-Windows-DotNETRuntime:0x1:6 \
        2>"$dir/err"
    rc=$?
    [ "$rc" -eq 6 ] || fail "exit status $rc, expected 6"
    grep -q "HRESULT 0x80131384 (bad encoding)" "$dir/err" || fail "message: $(cat "$dir/err")"
    echo "refused: $(cat "$dir/err")"
    ;;
permission)
    [ "$(id -u)" -eq 0 ] || fail "needs root"
    start_workload
    # gcev from a place nobody may reach (the build tree may sit in a 0700 folder)
    cp "$GCEV" "$dir/gcev" && chmod 755 "$dir/gcev"
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/gcev" watch "$wl" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 5 ] || fail "exit status $rc, expected 5"
    grep -q "the diagnostic socket belongs to another user" "$dir/err" || fail "message: $(cat "$dir/err")"
    echo "as nobody: $(cat "$dir/err")"
    ;;
ps)
    start_workload
    "$GCEV" ps >"$dir/out" || fail "ps failed"
    grep -Eq "^ *$wl +10\.[0-9.]+ +.*gcev-workload" "$dir/out" || fail "ps does not list $wl: $(cat "$dir/out")"
    grep -E "^ *$wl " "$dir/out"
    ;;
cycles)
    start_workload
    if [ -n "${VALGRIND:-}" ]; then
        "$VALGRIND" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet \
            "$CYCLES" "$wl" 20 || fail "session_cycles under valgrind"
    else
        "$CYCLES" "$wl" 50 || fail "session_cycles"
    fi
    ;;
drops)
    # a 1 MB buffer under unpaced allocation with deep stacks overflows: watch says how many
    # events the runtime dropped, the same number gcev stats finds in the recorded stream
    "$WORKLOAD" --seconds 20 --depth 300 --scale 2 heavy >"$dir/wl.out" 2>&1 &
    wl=$!
    sleep 1.5
    timeout 60 "$GCEV" watch "$wl" --duration 4 --profile gc-verbose --buffer 1 --format jsonl \
        --record "$dir/d.nettrace" >"$dir/out" 2>"$dir/err" || fail "watch failed"
    got=$(grep -o '"dropped_events":[0-9]*' "$dir/out" | cut -d: -f2)
    want=$("$GCEV" stats --format json "$dir/d.nettrace" 2>/dev/null | grep -o '"dropped_events":[0-9]*' | head -1 |
        cut -d: -f2)
    [ -n "$got" ] && [ "$got" -gt 0 ] || fail "no event dropped with a 1 MB buffer ($got)"
    [ "$got" = "$want" ] || fail "watch says $got dropped, stats of the record $want"
    echo "1 MB buffer: $got events dropped, $(grep -o '"events":[0-9]*' "$dir/out" | cut -d: -f2) delivered"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS $case_"
