#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mutation check: applies each single-change mutant of tools/mutation/mutants.txt to a
# scratch copy of the tree (never the real one), rebuilds incrementally, runs the
# README's test command, restores the file, and reports killed / survived / stale.
#
#   tools/mutation/run.sh [ID...]        all mutants, or only the given ids
#
# Environment: GCEV_MUTATION_DIR (scratch folder, default build-mutation/ in the tree),
# GCEV_SHARED_DIR (the shared corpus; default ../shared), JOBS (default 2),
# GCEV_MUTATION_LIST (another mutant list).
# Exit status: 0 when every non-equivalent mutant that applied was killed, 1 otherwise,
# 2 when the unmutated tree does not build or pass.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
list="${GCEV_MUTATION_LIST:-$here/mutants.txt}"
scratch="${GCEV_MUTATION_DIR:-$root/build-mutation}"
jobs="${JOBS:-2}"
shared="${GCEV_SHARED_DIR:-$(cd "$root/.." && pwd)/shared}"

mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"
case "$scratch/" in
"$root/src/"* | "$root/tools/"* | "$root/tests/"* | "$root/include/"* | "$root/manifest/"*)
    echo "mutation: the scratch folder must not be inside the source tree's sources" >&2
    exit 2
    ;;
esac
src="$scratch/tree"
build="$scratch/build"
logs="$scratch/logs"
mkdir -p "$logs"

# The tree as it is now (tracked files, with uncommitted edits), copied once per run.
echo "mutation: copying the tree to $src"
rm -rf "$src"
mkdir -p "$src"
# (new timestamps: a build left by an interrupted run is brought up to date, never trusted)
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$src" 2>/dev/null)
if [ ! -f "$src/CMakeLists.txt" ]; then
    echo "mutation: cannot copy the tree (is $root a git checkout?)" >&2
    exit 2
fi

cc -O1 -o "$scratch/mutate" "$here/mutate.c" || exit 2
mutate() { "$scratch/mutate" "$list" "$@"; }

configure_args=(-S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCEV_BUILD_BENCH=OFF)
if [ -f "$shared/corpus/README.md" ]; then
    configure_args+=("-DGCEV_SHARED_DIR=$shared")
fi
build_tree() { cmake --build "$build" -j"$jobs" >"$1" 2>&1; }
# The README's test command, less the tests that check packaging, build defaults, the
# layer rule and fresh dotnet captures (minutes each, and blind to a one-line change in
# the code; the committed real traces stay in). GCEV_MUTATION_ALL=1 runs everything.
skip=(-LE runtime -E '^(install_.*|build_type_defaults_to_release|readme_builds_use_bounded_jobs|arch_.*)$')
if [ "${GCEV_MUTATION_ALL:-0}" = 1 ]; then
    skip=()
fi
run_tests() {
    # no cost data: ctest then runs tests in declaration order (unit tests first), not
    # the slowest first, so a killed mutant stops early
    rm -f "$build/Testing/Temporary/CTestCostData.txt"
    ctest --test-dir "$build" -j"$jobs" --stop-on-failure --timeout 600 "${skip[@]}" >"$1" 2>&1
}

echo "mutation: building and testing the unmutated tree"
if ! cmake "${configure_args[@]}" >"$logs/configure.log" 2>&1 || ! build_tree "$logs/base-build.log"; then
    echo "mutation: the unmutated tree does not build (see $logs)" >&2
    exit 2
fi
if ! run_tests "$logs/base-test.log"; then
    echo "mutation: the unmutated tree fails its tests (see $logs/base-test.log)" >&2
    exit 2
fi

if [ $# -gt 0 ]; then
    ids=("$@")
else
    mapfile -t ids < <(mutate ids)
fi

killed=() survived=() stale=() nobuild=() equivalent_survived=() equivalent_killed=()
start_all=$(date +%s)
for id in "${ids[@]}"; do
    file="$(mutate file "$id")" || exit 2
    cp -p "$src/$file" "$scratch/original"
    # an interrupted run leaves the scratch file as it was
    trap 'cp "$scratch/original" "$src/$file"; touch "$src/$file"; exit 130' INT TERM
    t0=$(date +%s)
    why="$(mutate apply "$id" "$src")"
    rc=$?
    if [ $rc -eq 3 ]; then
        stale+=("$id: $why")
        printf '%-40s stale (%s)\n' "$id" "$why"
        continue
    elif [ $rc -ne 0 ]; then
        exit 2
    fi
    equiv="$(mutate equivalent "$id")" || equiv=""
    if ! build_tree "$logs/$id.build.log"; then
        result="does not build"
        nobuild+=("$id")
    elif run_tests "$logs/$id.test.log"; then
        result="SURVIVED"
        if [ -n "$equiv" ]; then
            equivalent_survived+=("$id")
            result="survived (equivalent)"
        else
            survived+=("$id")
        fi
    else
        result="killed by $(grep -m1 -oE '[0-9]+ - [^ ]+ \(' "$logs/$id.test.log" | sed -E 's/^[0-9]+ - //; s/ \($//')"
        if [ -n "$equiv" ]; then
            equivalent_killed+=("$id")
            result="$result (listed as equivalent: fix the list)"
        else
            killed+=("$id")
        fi
    fi
    # Restore the file's bytes; the next build recompiles it.
    cp "$scratch/original" "$src/$file"
    touch "$src/$file"
    printf '%-40s %s (%ss)\n' "$id" "$result" "$(($(date +%s) - t0))"
done
build_tree "$logs/final-build.log"

n_applied=$((${#killed[@]} + ${#survived[@]}))
echo
echo "== mutation summary ($(($(date +%s) - start_all)) s) =="
echo "killed:     ${#killed[@]}"
echo "survived:   ${#survived[@]}"
echo "equivalent: ${#equivalent_survived[@]} (documented in the list, not counted)"
echo "stale:      ${#stale[@]} (snippet not found: update the list)"
echo "no build:   ${#nobuild[@]} (the mutant does not compile: fix the list)"
if [ $n_applied -gt 0 ]; then
    echo "score:      ${#killed[@]}/$n_applied = $((100 * ${#killed[@]} / n_applied))% of the non-equivalent mutants killed"
fi
for id in "${survived[@]}"; do
    echo
    echo "-- survived:"
    mutate show "$id"
done
for id in "${equivalent_survived[@]}"; do
    echo
    echo "-- equivalent (survives by design):"
    mutate show "$id"
done
for id in "${equivalent_killed[@]}"; do
    echo
    echo "-- listed as equivalent but killed:"
    mutate show "$id"
done
for s in "${stale[@]}"; do
    echo "-- stale: $s"
done
for id in "${nobuild[@]}"; do
    echo "-- does not build: $id (log: $logs/$id.build.log)"
done
[ ${#survived[@]} -eq 0 ] && [ ${#stale[@]} -eq 0 ] && [ ${#nobuild[@]} -eq 0 ] && [ ${#equivalent_killed[@]} -eq 0 ]
