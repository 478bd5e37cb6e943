#!/bin/sh
# Digests of what the trace commands print (stdout, stderr, exit status) on every trace given,
# one line per (trace, command): run it with the gcev before and after a change and diff the two
# lists to show the outputs stayed byte-identical.
#   tools/output-digest.sh GCEV TRACE... > digests.txt
# The commands: count (text, json), dump --gc-only (text, jsonl, csv; and --sort time), stats
# (text, json, csv tables; --keep-going), report (the page, written to a temporary file).
set -u
gcev=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # label, then the command's arguments
    label=$1
    shift
    "$gcev" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    printf '%s %s %s rc=%s %s\n' "$(sha256sum <"$tmp/out" | cut -c1-16)" \
        "$(sed "s|$tmp|TMP|g" "$tmp/err" | sha256sum | cut -c1-16)" "$label" "$rc" "$trace"
}
for trace in "$@"; do
    run count count "$trace"
    run count-json count --format json "$trace"
    run count-kg count --keep-going --format json "$trace"
    run dump-gc dump --gc-only "$trace"
    run dump-gc-jsonl dump --gc-only --format jsonl "$trace"
    run dump-gc-csv dump --gc-only --format csv "$trace"
    run dump-gc-time dump --gc-only --sort time --format jsonl "$trace"
    run dump-all-jsonl dump --format jsonl "$trace"
    run stats stats "$trace"
    run stats-json stats --format json "$trace"
    run stats-compat stats --format json --compat traceevent "$trace"
    run stats-kg stats --keep-going --format json "$trace"
    for table in gcs generations heaps processes gcstats gen_summaries summary; do
        run "stats-csv-$table" stats --format csv --table "$table" "$trace"
    done
    "$gcev" report -o "$tmp/page.html" "$trace" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    printf '%s %s report rc=%s %s\n' "$(sha256sum <"$tmp/page.html" 2>/dev/null | cut -c1-16)" \
        "$(sed "s|$tmp|TMP|g" "$tmp/err" | sha256sum | cut -c1-16)" "$rc" "$trace"
    rm -f "$tmp/page.html"
done
