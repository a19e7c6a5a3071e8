#!/bin/sh
# tests/suites/debug/run_debug.sh — the conformance program under LD_PRELOAD of
# each debug-built allocator library given (MORTISE_DEBUG=2: MT_ASSERTs and
# the layers' checks after their slow paths), one process per case as in
# the release suite (the RSS bounds of churn and trim assume a fresh heap);
# the program runs mortise_check() after the case. The threads case runs
# 100 000 operations or a fifth of its 5 s, whichever ends first
# (MORTISE_CONFORMANCE_STRESS_OPS, MORTISE_CONFORMANCE_SCALE): every layer's
# checks run after its slow paths many times over in that many, and the
# debug runs of every instance and matrix cell must stay a few minutes of
# `make test`.
# Fails if any run fails, naming it.
#   run_debug.sh PROGRAM "CASE..." LIBRARY.so...
program=$1
cases=$2
shift 2
out=${TMPDIR:-/tmp}/run_debug.$$
status=0
for lib in "$@"; do
    for c in $cases; do
        scale=1
        [ "$c" = threads ] && scale=0.2
        if MORTISE_CONFORMANCE_SCALE=$scale MORTISE_CONFORMANCE_STRESS_OPS=100000 \
            MORTISE_CONFORMANCE_LIB=$(basename "$lib") LD_PRELOAD=$lib \
            "$program" "$c" >"$out" 2>&1; then
            echo "ok: $(basename "$lib") $c"
        else
            tail -n 20 "$out"
            echo "FAILED: $(basename "$lib") $c"
            status=1
        fi
    done
done
rm -f "$out"
exit $status
