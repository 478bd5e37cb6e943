#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# heapshape.sh GCEV WORKLOAD DOTNET_GCDUMP OUTDIR
# The workload's heapshape scenario captured with 'gcev record --profile heap', then:
# the shape gcev heap finds (counts, sizes, retained sizes, root kinds), the live
# 'gcev heap --pid' on the same process, and dotnet-gcdump's report of the same trace
# against gcev (gcdump_compare.cmake). Exit status 0 when all hold.
set -euo pipefail
GCEV=$1 WL=$2 GCDUMP=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
rm -f "$OUT"/heapshape.*
fail() { echo "heapshape: $*" >&2; exit 1; }

coproc W { "$WL" heapshape; }
trap 'echo stop >&"${W[1]}" 2>/dev/null || true; wait "$W_PID" 2>/dev/null || true' EXIT
IFS= read -r line <&"${W[0]}"   # configuration
IFS= read -r line <&"${W[0]}"   # ready
pid=$(echo "$line" | jq -r .pid)
[ -n "$pid" ] || fail "no ready line: $line"

"$GCEV" record --profile heap -o "$OUT/heapshape.nettrace" --duration 4 "$pid" 2> "$OUT/heapshape.record.err" \
    || fail "gcev record failed: $(cat "$OUT/heapshape.record.err")"
"$GCEV" heap --format json --pid "$pid" > "$OUT/heapshape.live.json" 2> "$OUT/heapshape.live.err" \
    || fail "gcev heap --pid failed: $(cat "$OUT/heapshape.live.err")"
grep -q 'will now run a full blocking GC' "$OUT/heapshape.live.err" || fail "the forced GC was not announced"
echo stop >&"${W[1]}"
wait "$W_PID" || true
trap - EXIT

"$GCEV" heap --format json --top 0 --paths "$OUT/heapshape.nettrace" > "$OUT/heapshape.json" 2> "$OUT/heapshape.err" \
    || fail "gcev heap failed: $(cat "$OUT/heapshape.err")"
J="$OUT/heapshape.json"
jq -e '.dumps | length == 1' "$J" > /dev/null || fail "not one dump: $(jq -c '[.dumps[] | {dump,state,flags}]' "$J")"
jq -e '.dumps[0].state == "complete"' "$J" > /dev/null || fail "dump not complete: $(jq -c '.dumps[0].problems' "$J")"
t() { jq -r --arg n "$1" --arg k "$2" '.dumps[0].detail.types[] | select(.type == $n) | .[$k]' "$J"; }
expect() { # name key value
    local v; v=$(t "$1" "$2")
    [ "$v" = "$3" ] || fail "$1 $2: $v, expected $3"
}
expect HsNode objects 1023
expect HsPayload objects 1023
expect HsStatic objects 3
expect HsStrong objects 1
expect HsKey objects 5
expect HsValue objects 5
expect HsFinal objects 10
# the tree: every node and payload retained by the root node, once
tree=$(( $(t HsNode bytes) + $(t HsPayload bytes) ))
expect HsNode retained "$tree"
expect HsNode max_retained "$tree"
expect HsPayload retained "$(t HsPayload bytes)"
# a CWT value lives through its key: each key retains its value
expect HsKey retained $(( $(t HsKey bytes) + $(t HsValue bytes) ))
# the paths: the tree and the HsStatic from statics, the HsStrong from a strong handle,
# the long[1234] from a pinned one, the HsValue through its key
path_kind() { jq -r --arg n "$1" '.dumps[0].detail.types[] | select(.type == $n) | .path.root_kind' "$J"; }
[ "$(path_kind HsNode)" = static ] || fail "HsNode's root: $(path_kind HsNode)"
[ "$(path_kind HsStatic)" = static ] || fail "HsStatic's root: $(path_kind HsStatic)"
[ "$(path_kind HsStrong)" = "strong handle" ] || fail "HsStrong's root: $(path_kind HsStrong)"
jq -e '.dumps[0].detail.types[] | select(.type == "HsValue") | .path.objects | map(.type) | index("HsKey") != null' "$J" \
    > /dev/null || fail "HsValue's path does not go through its HsKey"
jq -e '[.dumps[0].detail.roots[] | .kind] | (index("static") != null and index("strong handle") != null
       and index("pinned handle") != null and index("stack") != null)' "$J" > /dev/null \
    || fail "root kinds: $(jq -c '.dumps[0].detail.roots' "$J")"
# pinned handle: the long[1234] (8 * 1234 + 24 bytes) is held by it
jq -e '
    [.dumps[0].detail.retainers[] | select(.type == "System.Int64[]" and .size == 9896) | .path.root_kind]
    | index("pinned handle") != null' "$J" > /dev/null || fail "no long[1234] under a pinned handle"
# LOH and POH arrays
"$GCEV" heap --compat gcdump --format csv "$OUT/heapshape.nettrace" > "$OUT/heapshape.gcdump.csv"
grep -q '^"System.Byte\[\] (Bytes > 100K)",1,100024,' "$OUT/heapshape.gcdump.csv" \
    || fail "no byte[100000] (100024 bytes)"
grep -q '^"System.Int64\[\] (Bytes > 10K)",1,16024,' "$OUT/heapshape.gcdump.csv" \
    || fail "no long[2000] in the POH (16024 bytes)"
# the live session found the same shape
jq -e '[.dumps[] | select(.state == "complete")] | length >= 1' "$OUT/heapshape.live.json" > /dev/null \
    || fail "gcev heap --pid: no complete dump"
lv=$(jq -r '.dumps[0].detail.types[] | select(.type == "HsNode") | .objects' "$OUT/heapshape.live.json")
[ "$lv" = 1023 ] || fail "gcev heap --pid: HsNode objects $lv"
# dotnet-gcdump on the same trace
(cd "$OUT" && "$GCDUMP" convert heapshape.nettrace -o heapshape.gcdump > heapshape.convert.out 2>&1) \
    || fail "dotnet-gcdump convert failed: $(cat "$OUT/heapshape.convert.out")"
"$GCDUMP" report "$OUT/heapshape.gcdump" > "$OUT/heapshape.gcdump-report.txt" || fail "dotnet-gcdump report failed"
cmake -DGCEV="$GCEV" -DTRACE="$OUT/heapshape.nettrace" -DREPORT="$OUT/heapshape.gcdump-report.txt" \
    -P "$HERE/../cmake/gcdump_compare.cmake"
echo "heapshape: ok ($(jq -r '.dumps[0] | "\(.objects) objects, \(.bytes) bytes, \(.roots) roots"' "$J"))"
