#!/bin/bash
# fuzz/run.sh BUILD_DIR SECONDS - run every fuzz target in BUILD_DIR/fuzz for
# SECONDS seconds, starting from fuzz/seeds/<target>/ (copied to a scratch
# corpus so the seeds stay as committed).  Prints the executions per target;
# exits non-zero if a target crashed (the crash input stays in the scratch
# dir, whose path is printed).
set -u
build=${1:?usage: run.sh BUILD_DIR SECONDS}
secs=${2:?usage: run.sh BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ktrust-fuzz.XXXXXX")
status=0
found=0
n_ok=0
n_bad=0
total=0
for bin in "$build"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    found=1
    name=$(basename "$bin")
    mkdir -p "$scratch/$name/corpus" "$scratch/$name/artifacts"
    if [ -d "$here/seeds/$name" ]; then
        cp "$here/seeds/$name"/* "$scratch/$name/corpus/" 2>/dev/null
    fi
    log=$scratch/$name/log
    "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$scratch/$name/artifacts/" "$scratch/$name/corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    total=$((total + ${execs:-0}))
    if [ "$rc" = 0 ]; then
        n_ok=$((n_ok + 1))
        printf '%-18s %10s executions in %ss, coverage %s edges: ok\n' "$name" "${execs:-?}" "$secs" "${cov:-?}"
    else
        n_bad=$((n_bad + 1))
        status=1
        printf '%-16s %10s executions: FAILED (exit %d), see %s\n' "$name" "${execs:-?}" "$rc" "$log"
        grep -m5 -E 'ERROR|SUMMARY|artifact' "$log" | sed 's/^/    /'
    fi
done
if [ "$found" = 0 ]; then
    echo "run.sh: no fuzz targets in $build/fuzz (build with 'make fuzz')" >&2
    exit 2
fi
echo "fuzz: $total executions in all"
echo "fuzz: $n_ok passed, $n_bad failed"
[ "$status" = 0 ] && rm -rf "$scratch"
exit $status
