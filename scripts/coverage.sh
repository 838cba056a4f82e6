#!/usr/bin/env bash
# Line coverage of each library file under the whole test suite (gcov).
# Usage: scripts/coverage.sh [BUILD_DIR]   (default build-cov)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$SRC/build-cov}
cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="--coverage -O0" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null || exit 1
make -C "$B" -j"$(nproc)" >/dev/null || exit 1
find "$B" -name '*.gcda' -delete
(cd "$B" && ctest -j"$(nproc)" >/dev/null)
cd "$B" || exit 1
# the library's objects; the store files with test hooks (KT_HOOKED_SOURCES)
# are counted in their release build (ktrust_hooked_obj: what $KTRUST runs),
# not in ktrust_hooks_obj (the unit tests and $KTRUST_HOOKS)
for obj in $(find ./CMakeFiles/ktrust_obj.dir/src ./CMakeFiles/ktrust_hooked_obj.dir/src -name '*.gcda' | sort); do
    src=${obj#./CMakeFiles/ktrust_*obj.dir/}
    src=${src%.gcda}
    gcov -n -o "$(dirname "$obj")" "$obj" 2>/dev/null |
        awk -v f="$SRC/$src" -v s="$src" '$0 == "File '\''" f "'\''" {getline; sub("Lines executed:", ""); sub("% of", ""); print s, $1, $2; exit}'
done | awk '{printf "%-28s %6.2f%% of %4d lines\n", $1, $2, $3; c += $2 * $3 / 100; t += $3}
            END {printf "%-28s %6.2f%% of %4d lines\n", "TOTAL", 100 * c / t, t}'
