#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI check (doc/ABI.md): libabigail's abidiff compares BUILD_DIR's libgcev.so with the
# previous release's (abi/previous-release names its baseline and SOVERSION). Additions and
# growth of library-owned records are reported and pass; an incompatible change (a removed or
# changed function, a changed caller-owned type) fails unless the SOVERSION changed.
#   tools/abi-check.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: abi-check.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
read -r base_version base_so baseline < <(grep -v '^#' "$src/abi/previous-release")
lib=$(readlink -f "$build/src/libgcev.so")
[ -f "$lib" ] || { echo "abi-check: no libgcev.so in $build/src" >&2; exit 1; }
# the SOVERSION is the number in the library's SONAME (libgcev.so.N)
so=$(objdump -p "$lib" | sed -n 's/^ *SONAME *libgcev\.so\.//p')
[ -n "$so" ] || { echo "abi-check: $lib has no SONAME libgcev.so.N" >&2; exit 1; }
gen=$(dirname "$(find "$build" -path '*/include/gcev/gcev_events.h' | head -1)")
abidiff --headers-dir2 "$src/include/gcev" --headers-dir2 "$gen" "$src/abi/$baseline" "$lib" >"$build/abi-report.txt"
rc=$?
cat "$build/abi-report.txt"
# abidiff's status bits: 1 error, 2 usage error, 4 an ABI change, 8 an incompatible one
if [ $((rc & 3)) -ne 0 ]; then
    echo "abi-check: abidiff failed ($rc)" >&2
    exit 1
fi
if [ $((rc & 8)) -ne 0 ]; then
    if [ "$so" = "$base_so" ]; then
        echo "abi-check: an incompatible ABI change since $base_version, and the SOVERSION is still $so:" \
            "bump it (src/CMakeLists.txt) or keep the ABI (doc/ABI.md)" >&2
        exit 1
    fi
    echo "abi-check: incompatible changes since $base_version, SOVERSION $base_so -> $so"
elif [ $((rc & 4)) -ne 0 ]; then
    echo "abi-check: compatible changes since $base_version (SOVERSION $so)"
else
    echo "abi-check: the ABI of $base_version, unchanged (SOVERSION $so)"
fi
