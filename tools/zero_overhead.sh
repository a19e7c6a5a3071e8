#!/usr/bin/env bash
# tools/zero_overhead.sh — does the framework cost anything? wfslab (composed),
# wfslabfl (composed with a fake layer above every layer) and wfslabm (the same
# algorithm written by hand, bench/baselines/wfslabm.c) side by side: machine code,
# instructions per malloc+free pair, time. docs/zero_overhead.md has the numbers.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tools/zero_overhead.sh [--runs N] [--no-callgrind] [--no-time]
                              [--workloads NAME,...] BUILD_DIR

Needs BUILD_DIR/lib/libmortise-{wfslab,wfslabfl,wfslabm}.so. Also builds
wfslabm_socket: bench/baselines/wfslabm.c with -DWFSLABM_AS_SOCKET=1 (the socket's former
size guard, owner-0 filter and inlined frees; the head of wfslabm.c), with
the compiler and flags BUILD_DIR used for wfslabm.
1. Machine code (tools/disasm_functions.sh, the normalizer of tests/suites/zero_cost):
   instructions of malloc, free, calloc, realloc and their .cold parts in each
   library; wfslab vs wfslabfl through tests/suites/zero_cost/zero_cost.sh (every
   function must be identical); wfslab vs wfslabm with symbol names dropped
   (--anonymous): the opcodes of malloc and free only one side has.
2. Instructions per warm malloc+free pair under callgrind (tools/fastpath.sh
   --only wfslab,wfslabfl,wfslabm,wfslabm_socket).
3. Time: each workload run N times per allocator (default 5, interleaved so
   that load drifts hit all alike) under LD_PRELOAD; the median wall time,
   the median and the least CPU time (user + sys: a busy machine adds to it
   less than to wall time, and never subtracts), each with its ratio to
   wfslab's. Workloads: BUILD_DIR/bin/bench_NAME -t 2
   for NAME in --workloads (default bignum,strbuf; bench/workloads), and
   BUILD_DIR/bin/fastpath 2000000 (128 M small malloc+free pairs).
EOF
}

runs=5 callgrind=1 timing=1 workloads=bignum,strbuf
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --runs) runs="$2"; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    --no-time) timing=0; shift ;;
    --workloads) workloads="$2"; shift 2 ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
names=(wfslab wfslabfl wfslabm)
for n in "${names[@]}"; do
    [ -e "$build/lib/libmortise-$n.so" ] ||
        { echo "zero_overhead: $build/lib/libmortise-$n.so not built" >&2; exit 2; }
done
lib() { echo "$build/lib/libmortise-$1.so"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# wfslabm built with the socket's choices (-DWFSLABM_AS_SOCKET=1, see the
# head of bench/baselines/wfslabm.c), with the compiler and flags of the build.
# Everything is staged in one directory so that tools/fastpath.sh finds it.
stage="$tmp/build"
mkdir -p "$stage/lib" "$stage/bin"
for n in "${names[@]}"; do ln -s "$(lib "$n")" "$stage/lib/"; done
[ -x "$build/bin/fastpath" ] && ln -s "$build/bin/fastpath" "$stage/bin/fastpath"
flags_make="$build/bench/baselines/CMakeFiles/mortise-wfslabm.dir/flags.make"
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ -f "$flags_make" ] && [ -n "$cc" ]; then
    # shellcheck disable=SC2046 # the build's flags, one word each
    "$cc" $(sed -n 's/^C_\(FLAGS\|DEFINES\|INCLUDES\) = //p' "$flags_make") -DWFSLABM_AS_SOCKET=1 \
        -shared "$root/bench/baselines/wfslabm.c" -o "$stage/lib/libmortise-wfslabm_socket.so" -pthread
    names+=(wfslabm_socket)
else
    echo "note: $flags_make not found: wfslabm_socket not built" >&2
fi
lib() { echo "$stage/lib/libmortise-$1.so"; }
# Report functions print the model line, so they name every layer (fake ones too).
reports=(--ignore malloc_stats --ignore mt_stats_write --ignore mortise_stats_print --ignore mortise_stats_json)

# ---- 1. machine code ----
echo "== machine code (instructions per function; objdump, normalized) =="
for n in "${names[@]}"; do
    "$root/tools/disasm_functions.sh" "${reports[@]}" "$(lib "$n")" >"$tmp/$n"
    "$root/tools/disasm_functions.sh" "${reports[@]}" --anonymous "$(lib "$n")" >"$tmp/$n.anon"
done
printf '  %-14s' function
printf ' %15s' "${names[@]}"
printf '\n'
for f in malloc malloc.cold free free.cold calloc calloc.cold realloc; do
    printf '  %-14s' "$f"
    for n in "${names[@]}"; do
        printf ' %15s' "$(awk -F'\t' -v f="$f" '$1 == f { c = $2 } END { print c == "" ? "-" : c }' "$tmp/$n")"
    done
    printf '\n'
done

echo
echo "-- wfslab vs wfslabfl: every function (tests/suites/zero_cost/zero_cost.sh) --"
if "$root/tests/suites/zero_cost/zero_cost.sh" "${reports[@]}" "$(lib wfslab)" "$(lib wfslabfl)" >"$tmp/zc" 2>&1; then
    tail -1 "$tmp/zc" | sed 's/^/  /'
else
    sed 's/^/  /' "$tmp/zc"
fi

# The mnemonics of function $2 in library $1, one a line (names dropped).
mnemonics() {
    awk -F'\t' -v f="$2" '$1 == f { n = split($3, a, " ; "); for (i = 1; i < n; i++) { split(a[i], w, " "); print w[1] } }' "$tmp/$1.anon"
}
only() { # the opcodes of diff's side $1 ('<' or '>') in $tmp/d, or '-'
    local ops
    ops=$(sed -n "s/^$1 //p" "$tmp/d" | tr '\n' ' ')
    echo "${ops:--}"
}
for other in "${names[@]:2}"; do
    echo
    echo "-- wfslab vs $other: malloc and free (opcodes; registers and names dropped) --"
    for f in malloc free; do
        mnemonics wfslab "$f" >"$tmp/a"
        mnemonics "$other" "$f" >"$tmp/b"
        diff "$tmp/a" "$tmp/b" >"$tmp/d" || true
        printf '  %-6s %3d vs %3d instructions\n    only in wfslab: %s\n    only in %s: %s\n' "$f" \
            "$(wc -l <"$tmp/a")" "$(wc -l <"$tmp/b")" "$(only '<')" "$other" "$(only '>')"
    done
done

# ---- 2. callgrind ----
if [ $callgrind -eq 1 ]; then
    echo
    echo "== instructions per malloc+free pair (tools/fastpath.sh, callgrind) =="
    rc=0
    "$root/tools/fastpath.sh" --only "$(IFS=,; echo "${names[*]}")" "$stage" 2>&1 | sed 's/^/  /' || rc=$?
    [ $rc -eq 0 ] || echo "  (fastpath.sh exited $rc)"
fi

# ---- 3. time ----
if [ $timing -eq 1 ]; then
    echo
    echo "== time: $runs runs, seconds (ratio to wfslab): median wall, median cpu (user + sys), least cpu =="
    timer=/usr/bin/time
    [ -x "$timer" ] || { echo "zero_overhead: /usr/bin/time not installed" >&2; exit 2; }
    median() { # file column -> the median of that column
        awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
    }
    minimum() { # file column -> the least value of that column
        awk -v c="$2" '{ print $c }' "$1" | sort -g | head -1
    }
    commands=()
    for w in ${workloads//,/ }; do
        if [ -x "$build/bin/bench_$w" ]; then
            commands+=("bench_$w -t 2|$build/bin/bench_$w -t 2")
        else
            echo "  note: $build/bin/bench_$w not built: skipped"
        fi
    done
    [ -x "$build/bin/fastpath" ] && commands+=("fastpath 2000000|$build/bin/fastpath 2000000")
    printf '  %-26s' workload
    printf ' %16s' "${names[@]}"
    printf '\n'
    for entry in "${commands[@]}"; do
        label=${entry%%|*} cmd=${entry#*|}
        for n in "${names[@]}"; do : >"$tmp/t.$n"; done
        for ((r = 0; r < runs; r++)); do
            for n in "${names[@]}"; do
                # shellcheck disable=SC2086 # cmd is a program and its arguments
                if ! LD_PRELOAD="$(lib "$n")" "$timer" -f '%e %U %S' -o "$tmp/time" $cmd >"$tmp/out" 2>&1 ||
                    ! grep -q '^ok\|^fastpath:' "$tmp/out"; then
                    echo "  $label under $n failed:" >&2
                    cat "$tmp/out" >&2
                    exit 1
                fi
                awk '{ print $1, $2 + $3 }' "$tmp/time" >>"$tmp/t.$n"
            done
        done
        for row in "1 wall" "2 cpu" "2 cpu-min"; do
            col=${row% *} what=${row#* }
            stat=median
            [ "$what" = cpu-min ] && stat=minimum
            printf '  %-26s' "$label $what"
            base=$($stat "$tmp/t.wfslab" "$col")
            for n in "${names[@]}"; do
                printf ' %16s' "$(awk -v m="$($stat "$tmp/t.$n" "$col")" -v b="$base" \
                    'BEGIN { printf "%.3f (%.3f)", m, (b > 0 ? m / b : 0) }')"
            done
            printf '\n'
        done
    done
fi
