#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every CLI output gcev gives for a set of traces, as one line per run: the command, the
# exit status and the SHA-256 of its standard output and of its standard error. Two builds
# whose lists are equal print byte-identical outputs (a refactoring's check: issue 23).
#   tools/cli-outputs.sh GCEV_BINARY TRACE... > outputs.txt
#   diff outputs-before.txt outputs-after.txt
set -uo pipefail
gcev=$(readlink -f "${1:?usage: cli-outputs.sh GCEV_BINARY TRACE...}")
shift
work=$(mktemp -d /tmp/gcev-cli-outputs-XXXXXX)
trap 'rm -rf "$work"' EXIT
run() {
    # the trace's own name (not its folder) keeps lists of two checkouts comparable
    (cd "$work" && "$gcev" "$@" >"$work/out" 2>"$work/err")
    local rc=$?
    # stderr names the trace by the path given: print it relative to the trace's folder
    sed -i "s|$dir/||g" "$work/err"
    printf '%s rc=%d out=%s err=%s\n' "$*" "$rc" "$(sha256sum <"$work/out" | cut -c1-16)" \
        "$(sha256sum <"$work/err" | cut -c1-16)"
}
for trace in "$@"; do
    dir=$(cd "$(dirname "$trace")" && pwd)
    t="$dir/$(basename "$trace")"
    for f in text json csv; do run stats --format "$f" "$t"; done
    run stats --format json --compat traceevent "$t"
    run stats --format text --compat traceevent "$t"
    for tab in gcs generations heaps processes gcstats gen_summaries summary; do
        run stats --format csv --table "$tab" "$t"
    done
    run stats --format json --keep-going "$t"
    run report -o - "$t"
    for f in text jsonl csv; do run dump --format "$f" "$t"; done
    run dump --format jsonl --gc-only --sort time "$t"
    for f in text json csv; do run allocs --format "$f" "$t"; done
    run allocs --format text --by thread "$t"
    run allocs --folded "$t"
    for f in text json csv; do run heap --format "$f" "$t"; done
    run heap --format text --paths "$t"
    for f in text json; do run count --format "$f" "$t"; done
done | sed "s|$(cd "$(dirname "$0")/.." && pwd)/||g; s|/work/shared/||g"
