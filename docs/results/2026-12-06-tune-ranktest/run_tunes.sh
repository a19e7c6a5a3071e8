#!/usr/bin/env bash
# The real-program searches of issue 26, 15-minute budget each; this run: python only
# (the other three are the ": run" lines).
set -u
cd /work/main
OUT=${OUT:-/tmp/tune-results}
mkdir -p "$OUT"
export MORTISE_BENCH_WORK=/tmp/tune-work
export MORTISE_CACHE_DIR=/tmp/tune-cache
{ echo "commit $(git rev-parse --short HEAD)"; date -u; uptime; } > "$OUT/env.txt"
run() {
    local name=$1; shift
    echo "== $name start $(date -u +%T) $(uptime | sed 's/.*load/load/')" >> "$OUT/env.txt"
    /usr/bin/time -f "%e s wall" tools/mortise tune --driver --budget 15m --state "$OUT/state-$name" \
        -o "$OUT/libtuned-$name.so" "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
    echo "== $name end $(date -u +%T) exit $? $(uptime | sed 's/.*load/load/')" >> "$OUT/env.txt"
}
run python --single-thread -- bench/programs/python.sh -s 1.5
: run sqlite --single-thread -- bench/programs/sqlite.sh -s 4
: run gcc --single-thread -- bench/programs/gcc.sh -s 1
: run redis -- bench/programs/redis.sh -s 1.5
{ date -u; uptime; } >> "$OUT/env.txt"
