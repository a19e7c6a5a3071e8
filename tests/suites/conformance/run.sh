#!/bin/sh
# tests/suites/conformance/run.sh — run the conformance suite against any Mortise
# shared library under LD_PRELOAD (docs/conformance.md):
#
#     tests/suites/conformance/run.sh [-b BUILD_DIR] path/to/libmortise-NAME.so [CASE...]
#
# BUILD_DIR (default: build) holds the suite's plain programs
# (bin/mortise-conformance, bin/mortise-cxx-new-test; `make BUILD=...` builds
# them). Without CASEs every case runs, each in a fresh process, then the C++
# test. Ends with "conformance: N passed, N failed"; exit status 1 on failure.
set -u
build=build
if [ "${1:-}" = "-b" ]; then
    build=$2
    shift 2
fi
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 [-b BUILD_DIR] LIBRARY.so [CASE...]" >&2
    exit 2
fi
lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
conformance=$build/bin/mortise-conformance
cxx=$build/bin/mortise-cxx-new-test
if [ ! -x "$conformance" ] || [ ! -x "$cxx" ]; then
    echo "$0: $conformance or $cxx missing; build first (make BUILD=$build)" >&2
    exit 2
fi
cases=${*:-"api align errno bad random threads churn fork trim order cxx_new"}

passed=0
failed=0
status=0
for c in $cases; do
    if [ "$c" = cxx_new ]; then
        set -- "$cxx"
    else
        set -- "$conformance" "$c"
    fi
    out=$(MORTISE_CONFORMANCE_LIB=$(basename "$lib") LD_PRELOAD=$lib timeout 300 "$@" 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep '^conformance: [0-9]* passed, [0-9]* failed$' | tail -n 1)
    p=$(printf '%s\n' "$line" | sed -n 's/^conformance: \([0-9]*\) passed.*/\1/p')
    f=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ]; then
        status=1
        [ "${f:-0}" -eq 0 ] && failed=$((failed + 1)) # crashed or timed out
        printf '%s\n' "$out" | tail -n 30
        echo "case $c: FAILED (exit status $rc)"
    else
        echo "case $c: ok (${p:-0} checks)"
    fi
done
echo "conformance: $passed passed, $failed failed"
exit $status
