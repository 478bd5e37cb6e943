#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gcev's live-session commands against the fake diagnostics server (fake_server.c): each
# error path with its own message and exit status, and none hangs; the stream commands
# on the sample trace; Ctrl-C; the permission check (as another user, when run as root).
#   cli_fake.sh CASE      (GCEV, FAKE_SERVER, SAMPLE in the environment)
set -uo pipefail
case_=${1:?usage: cli_fake.sh CASE}
: "${GCEV:?}" "${FAKE_SERVER:?}" "${SAMPLE:?}"

dir=$(mktemp -d /tmp/gcev-cli-XXXXXX)
chmod 755 "$dir" # like /tmp: other users may look (the permission case)
export TMPDIR=$dir
server=
dog= # a watchdog subshell: killed here, so its delayed kill never hits a reused pid
cleanup() {
    [ -n "$dog" ] && kill "$dog" 2>/dev/null
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

fail() {
    echo "FAIL ($case_): $*" >&2
    [ -f "$dir/err" ] && { echo "-- stderr:" >&2; cat "$dir/err" >&2; }
    exit 1
}

start_server() {
    "$FAKE_SERVER" "$1" "$dir/ready" "$SAMPLE" &
    server=$!
    for _ in $(seq 500); do
        [ -f "$dir/ready" ] && return 0
        sleep 0.01
    done
    fail "the fake server did not start"
}

# expect RC REGEX -- gcev ARGS...: runs gcev with a 20 s guard, checks status and stderr
expect() {
    local want=$1 regex=$2
    shift 3
    local t0=$SECONDS
    timeout 20 "$GCEV" "$@" >"$dir/out" 2>"$dir/err"
    local rc=$?
    [ "$rc" -eq 124 ] && fail "gcev $* hung (killed after 20 s)"
    [ "$rc" -eq "$want" ] || fail "gcev $*: exit status $rc, expected $want"
    grep -Eq -- "$regex" "$dir/err" || fail "gcev $*: stderr does not match /$regex/"
    echo "ok: gcev $* -> $rc in $((SECONDS - t0)) s: $(grep -E -- "$regex" "$dir/err" | head -1)"
}

# Whether the last CollectTracing request the fake server got asked for stacks (its stackwalk
# byte). The server appends each request to $dir/requests.bin: a u32 length, then the message
# (a 20-byte header with the command set at 16 and the id at 17: CollectTracingN is id N + 1);
# the payload: the session type (N >= 5), buffer size, format, the rundown keyword (N >= 4) or
# flag, then the stackwalk byte (N >= 3).
last_stackwalk() {
    od -An -v -tu1 "$dir/requests.bin" | awk '
        { for (f = 1; f <= NF; f++) b[n++] = $f }
        END {
            sw = "none"
            for (i = 0; i + 4 <= n; i += 4 + len) {
                len = b[i] + 256 * b[i + 1] + 65536 * b[i + 2] + 16777216 * b[i + 3]
                m = i + 4
                if (b[m + 16] == 2 && b[m + 17] >= 4 && b[m + 17] <= 7) {
                    v = b[m + 17] - 1
                    sw = b[m + 20 + (v >= 5 ? 4 : 0) + 8 + (v >= 4 ? 8 : 1)]
                }
            }
            print sw
        }'
}

# expect_stackwalk WANT WHAT: the last session asked for stacks (1) or not (0)
expect_stackwalk() {
    local got
    got=$(last_stackwalk)
    [ "$got" = "$1" ] || fail "$2: the session's stackwalk flag is $got, expected $1"
    echo "ok: $2 asked for stacks: $got"
}

case "$case_" in
no_such_process)
    expect 3 'no process with pid 2147483000' -- watch 2147483000
    expect 3 'no process with pid 2147483000' -- record 2147483000 -o "$dir/x.nettrace"
    expect 3 'no process with pid 2147483000' -- stats --pid 2147483000 --duration 1
    ;;
not_dotnet)
    sleep 30 &
    other=$!
    expect 4 "process $other is not a .NET process" -- watch "$other"
    kill "$other"
    ;;
refused)
    start_server refuse
    expect 6 "refused the session: .*HRESULT 0x80131384 \(bad encoding\)" -- watch "$server"
    ;;
timeout_reply)
    start_server silent
    expect 7 "timed out waiting for the runtime's reply \(timeout 0.5 s\)" -- watch "$server" --timeout 0.5
    ;;
timeout_header)
    start_server noheader
    expect 7 "timed out waiting for the trace header" -- record "$server" -o "$dir/x.nettrace" --timeout 0.5
    ;;
drain_timeout)
    # the stream drips on after the header and StopTracing changes nothing: the session ends
    # after the 30 s wait for the end of the stream, and the message says 30 s (--timeout,
    # 0.5 s here, is the wait for each reply and the header, not this one)
    start_server drip
    t0=$SECONDS
    timeout 60 "$GCEV" watch "$server" --duration 1 --timeout 0.5 >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 7 ] || fail "exit status $rc, expected 7"
    grep -q "timed out waiting for the end of the stream after StopTracing (timeout 30.0 s)" "$dir/err" ||
        fail "message"
    [ $((SECONDS - t0)) -ge 29 ] || fail "ended after $((SECONDS - t0)) s, before the 30 s drain"
    echo "ok: drip -> 7 in $((SECONDS - t0)) s: $(grep 'timed out' "$dir/err")"
    ;;
cut_reply)
    # a reply cut mid-way, in its payload or in its header: the connection closed under the
    # reply, as when the process dies; exit status 8 (not 1, a trace error)
    start_server short
    expect 8 "process $server: the runtime closed the connection inside its reply" -- watch "$server"
    kill "$server" && wait "$server" 2>/dev/null
    rm -f "$dir/ready"
    start_server cut-header
    expect 8 "process $server: the runtime closed the connection inside its reply" -- record "$server" -o "$dir/x.nettrace"
    ;;
killed)
    start_server cut
    expect 8 "the process exited during the session: the stream stops inside a block" -- watch "$server"
    grep -q '^GC ' "$dir/out" || fail "no GC printed before the cut"
    grep -q '^-- ' "$dir/out" || fail "no summary after the cut"
    ;;
record)
    start_server stream
    expect 0 "attached to $server \(.NET 10.0.0-fake, x64\) with CollectTracing5" -- record "$server" -o "$dir/rec.nettrace" --duration 0.3
    cmp "$dir/rec.nettrace" "$SAMPLE" || fail "the record differs from what the server sent"
    grep -q "$(stat -c %s "$SAMPLE") bytes, 1100 events, 26 GCs started" "$dir/err" || fail "record summary"
    expect_stackwalk 1 "record (a trace for any tool)"
    # --profile heap: the forced GC is announced first, before the session is asked for
    expect 0 "attached to $server" -- record "$server" -o "$dir/heap.nettrace" --profile heap --duration 0.3
    head -1 "$dir/err" | grep -q "^gcev record: asking process $server for a heap dump: its runtime will now run a full blocking GC" ||
        fail "record --profile heap did not announce the forced GC first"
    # a GC profile forces nothing and says nothing of it
    grep -q "heap dump" <(timeout 20 "$GCEV" record "$server" -o "$dir/gc.nettrace" --duration 0.3 2>&1) &&
        fail "record --profile gc-collect announced a heap dump"
    ;;
watch)
    start_server stream
    expect 0 "attached to $server" -- watch "$server" --duration 0.3 --format jsonl --record "$dir/w.nettrace"
    [ "$(grep -c '^{"gc":' "$dir/out")" -eq 26 ] || fail "expected 26 GC lines"
    grep -q '^{"summary":{"gcs":26,' "$dir/out" || fail "no jsonl summary"
    cmp "$dir/w.nettrace" "$SAMPLE" || fail "--record differs"
    expect_stackwalk 1 "watch --record (the recording keeps them)"
    expect 0 "attached" -- watch "$server" --duration 0.3
    [ "$(grep -c '^GC ' "$dir/out")" -eq 26 ] || fail "expected 26 text GC lines"
    expect_stackwalk 0 "watch (the GC analysis reads none)"
    ;;
stats)
    start_server stream
    expect 0 "attached" -- stats --pid "$server" --duration 0.3 --format json --record "$dir/s.nettrace"
    "$GCEV" stats --format json "$SAMPLE" >"$dir/file.json" || fail "stats FILE"
    diff <(tail -n +2 "$dir/out") <(tail -n +2 "$dir/file.json") >/dev/null || fail "stats --pid differs from stats FILE"
    head -1 "$dir/out" | grep -q "\"file\":\"pid $server\"" || fail "stats --pid names the pid"
    cmp "$dir/s.nettrace" "$SAMPLE" || fail "--record differs"
    expect_stackwalk 1 "stats --pid --record"
    expect 0 "attached" -- stats --pid "$server" --duration 0.3 --format json
    diff <(tail -n +2 "$dir/out") <(tail -n +2 "$dir/file.json") >/dev/null || fail "stats --pid without --record differs"
    expect_stackwalk 0 "stats --pid (the GC analysis reads none)"
    ;;
report)
    # report --pid --record F is the page of report F, but for the source named
    start_server stream
    expect 0 "wrote $dir/live.html \([0-9]+ bytes, 26 GCs\)" -- report --pid "$server" --duration 0.3 \
        -o "$dir/live.html" --record "$dir/r.nettrace"
    "$GCEV" report -o "$dir/file.html" "$dir/r.nettrace" 2>/dev/null || fail "report FILE"
    page() { sed 's/></>\n</g' "$1" | grep -v -e '<title>' -e 'class="source"' -e 'class="facts"'; }
    diff <(page "$dir/live.html") <(page "$dir/file.html") >/dev/null || fail "the live page differs from the file's"
    grep -q "pid $server" "$dir/live.html" || fail "the page does not name the pid"
    # and what was watched and how: the command line the runtime reports, and the profile
    grep -Eq "pid $server: [^<]*fake[^<]* \(profile gc-collect\)" "$dir/live.html" ||
        fail "the page does not name the command line and profile: $(grep -o "pid $server[^<]*" "$dir/live.html" | head -1)"
    # without --record the same page, allocation section included (the stream is kept in a
    # temporary file under TMPDIR for it, and removed)
    mkdir -p "$dir/tmp"
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    rm -f "$dir/ready"
    start_server stream
    export TMPDIR="$dir/tmp"
    expect 0 "wrote $dir/live2.html" -- report --pid "$server" --duration 0.3 -o "$dir/live2.html"
    export TMPDIR="$dir"
    diff <(page "$dir/live2.html") <(page "$dir/file.html") >/dev/null || fail "the page without --record differs from the file's"
    grep -q 'id="allocations"' "$dir/live2.html" || fail "the live page has no allocation section"
    expect_stackwalk 1 "report --pid (its allocation section reads the stacks)"
    [ -z "$(ls -A "$dir/tmp")" ] || fail "the temporary stream was not removed: $(ls "$dir/tmp")"
    ;;
ctrl_c)
    start_server stream
    # not under `timeout`, which passes SIGINT to its process group (gcev would get two)
    "$GCEV" watch "$server" >"$dir/out" 2>"$dir/err" &
    w=$!
    (sleep 20 && kill -KILL "$w") >/dev/null 2>&1 &
    dog=$!
    for _ in $(seq 500); do
        grep -q attached "$dir/err" 2>/dev/null && break
        sleep 0.01
    done
    kill -INT "$w"
    wait "$w"
    rc=$?
    kill "$dog" 2>/dev/null
    dog=
    [ "$rc" -eq 0 ] || fail "watch after Ctrl-C: exit status $rc"
    [ "$(grep -c '^GC ' "$dir/out")" -eq 26 ] || fail "expected the 26 GCs drained to the rundown"
    grep -q '^-- 26 GCs' "$dir/out" || fail "no summary after Ctrl-C"
    echo "ok: Ctrl-C stops watch cleanly"
    ;;
ps)
    start_server stream
    timeout 20 "$GCEV" ps >"$dir/out" 2>"$dir/err" || fail "gcev ps failed"
    grep -Eq "^ *$server +10.0.0-fake +/usr/bin/fake-dotnet fake.dll --serve$" "$dir/out" || fail "ps does not list the server"
    timeout 20 "$GCEV" ps --format jsonl >"$dir/out" || fail "gcev ps --format jsonl"
    grep -q "{\"pid\":$server,\"ns_pid\":$server,\"runtime_version\":\"10.0.0-fake\"" "$dir/out" || fail "ps jsonl"
    echo "ok: ps lists $server"
    ;;
permission)
    # the socket belongs to root; gcev runs as nobody: refused before connecting
    [ "$(id -u)" -eq 0 ] || fail "needs root (registered only then)"
    start_server stream
    t0=$SECONDS
    # gcev from a place nobody may reach (the build tree may sit in a 0700 folder)
    cp "$GCEV" "$dir/gcev" && chmod 755 "$dir/gcev"
    timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/gcev" watch "$server" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 5 ] || fail "exit status $rc, expected 5"
    grep -q "permission denied for process $server: the diagnostic socket belongs to another user" "$dir/err" ||
        fail "message"
    echo "ok: as nobody -> 5 in $((SECONDS - t0)) s: $(cat "$dir/err")"
    ;;
planted)
    # a socket that nobody planted under the name of root's process: root's gcev must not
    # take it for the process's (it would print the fake server's GCs as the process's)
    [ "$(id -u)" -eq 0 ] || fail "needs root (registered only then)"
    chmod 1777 "$dir" # like /tmp: anyone may create a file there
    sleep 60 &
    victim=$!
    cp "$FAKE_SERVER" "$dir/fake_server" && cp "$SAMPLE" "$dir/sample.nettrace" &&
        chmod 755 "$dir/fake_server" && chmod 644 "$dir/sample.nettrace"
    FAKE_SERVER_AS_PID=$victim setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$dir/fake_server" stream "$dir/ready" "$dir/sample.nettrace" &
    server=$!
    for _ in $(seq 500); do
        [ -f "$dir/ready" ] && break
        sleep 0.01
    done
    [ -f "$dir/ready" ] || fail "the planted server did not start"
    sock=$(ls "$dir" | grep "^dotnet-diagnostic-$victim-")
    [ "$(stat -c %u "$dir/$sock")" -eq 65534 ] || fail "the planted socket is not nobody's"
    expect 5 "permission denied for process $victim: the diagnostic socket belongs to neither the process's user nor root: refused \(someone else made a socket" \
        -- watch "$victim"
    expect 5 "belongs to neither the process's user nor root" -- record "$victim" -o "$dir/x.nettrace"
    [ -e "$dir/x.nettrace" ] && fail "record created its file"
    timeout 20 "$GCEV" ps >"$dir/out" 2>"$dir/err" || fail "gcev ps: exit status $?"
    grep -Eq "^ *$victim( |$)" "$dir/out" && fail "gcev ps lists the planted socket's process"
    kill "$victim"
    wait "$victim" 2>/dev/null
    echo "ok: gcev ps leaves out $victim"
    ;;
namespace)
    # a "container": its own mount and pid namespaces, a private /tmp; the server is pid 1
    # there, so its socket is /proc/<pid>/root/tmp/dotnet-diagnostic-1-<key>-socket
    [ "$(id -u)" -eq 0 ] || fail "needs root (registered only then)"
    ready=$NS_READY_DIR/ready.$$
    rm -f "$ready"
    # The server, the sample and the ready file's folder go in as open descriptors: the private
    # /tmp hides whatever lies under the host's /tmp, the build tree too when it is there.
    unshare --mount --pid --fork --mount-proc sh -c \
        "exec 3<'$FAKE_SERVER' 4<'$SAMPLE' 5<'$NS_READY_DIR' && mount -t tmpfs none /tmp &&
         TMPDIR=/tmp exec /proc/self/fd/3 stream /proc/self/fd/5/ready.$$ /proc/self/fd/4" &
    ns=$!
    for _ in $(seq 500); do
        [ -f "$ready" ] && break
        sleep 0.01
    done
    [ -f "$ready" ] || fail "the namespaced server did not start"
    [ "$(cat "$ready")" = 1 ] || fail "not pid 1 in its namespace"
    rm -f "$ready"
    host=$(pgrep -P "$ns" | head -1) # unshare's one child: the shell that became the server
    server=$ns
    [ -n "$host" ] || fail "no host pid for the namespaced server"
    grep -q "NSpid:.*[[:space:]]1$" "/proc/$host/status" || fail "NSpid is not 1"
    expect 0 "attached to $host \(.NET 10.0.0-fake" -- watch "$host" --duration 0.3
    [ "$(grep -c '^GC ' "$dir/out")" -eq 26 ] || fail "expected 26 GCs through /proc/$host/root/tmp"
    timeout 20 "$GCEV" ps >"$dir/out" || fail "ps"
    grep -Eq "^ *$host +10.0.0-fake" "$dir/out" || fail "ps does not list the namespaced process"
    # pid 1 of a namespace gets no signal it has no handler for, but SIGKILL from outside
    kill -KILL "$host" 2>/dev/null
    wait "$ns" 2>/dev/null
    server=
    ;;
usage)
    expect 2 'usage: gcev watch PID' -- watch
    expect 2 "'abc' is not a process id" -- watch abc
    expect 2 'usage: gcev record PID -o FILE' -- record 1
    expect 2 'give either FILE or --pid PID' -- stats --pid 1 "$SAMPLE"
    expect 2 'need --pid' -- stats --duration 3 "$SAMPLE"
    expect 2 "--profile must be gc-collect, gc-verbose or heap \(--providers for your own\), not 'cpu'" -- watch 1 --profile cpu
    expect 2 "--profile must be gc-collect, gc-verbose or heap" -- watch 1 --profile custom
    expect 2 '--duration needs a number of seconds' -- watch 1 --duration -1
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS $case_"
