#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes abi/libgcev-VERSION.abi, the ABI of a release as libabigail's abidw sees it (public
# headers only), from its git tag: the baseline tools/abi-check.sh compares new builds with.
#   tools/abi-baseline.sh v0.1.0
# Then name it in abi/previous-release (version, the release's SOVERSION, the file).
set -euo pipefail
tag=${1:?usage: abi-baseline.sh TAG}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/gcev-abi-XXXXXX)
trap 'rm -rf "$work"' EXIT
git -C "$src" archive "$tag" | tar -x -C "$work" --one-top-level=src
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCEV_BUILD_TESTS=OFF \
    -DGCEV_BUILD_EXAMPLES=OFF -DGCEV_BUILD_BENCH=OFF -DGCEV_BUILD_TOOLS=OFF >/dev/null
cmake --build "$work/build" -j2 --target gcev_shared >/dev/null
lib=$(find "$work/build/src" -name 'libgcev.so.*.*.*' | head -1)
version=${lib##*libgcev.so.}
gen=$(dirname "$(find "$work/build" -name gcev_events.h | head -1)")
abidw --headers-dir "$work/src/include/gcev" --headers-dir "$gen" --no-corpus-path \
    --out-file "$src/abi/libgcev-$version.abi" "$lib"
echo "abi/libgcev-$version.abi written from $tag ($lib)"
