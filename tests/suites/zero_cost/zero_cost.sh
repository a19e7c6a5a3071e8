#!/usr/bin/env bash
# tests/suites/zero_cost/zero_cost.sh — is composition free? Compares the machine code
# of two builds of an allocator function by function.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: zero_cost.sh [options] A B

Disassembles A and B (shared libraries; with --cc, C files compiled first)
with `objdump -d --no-show-raw-insn`, normalizes every instruction and
compares every function of the two, including the .cold parts and local
helpers. Prints the instruction counts of the malloc family's entry points
and every function that differs.
Normalization drops: addresses, rip-relative displacements, the addresses
and +offsets of jump and call targets, alignment padding (nop, int3), and
the layer name inside MT_COMPOSE's link functions (mt_link_NAME_op → mt_link_op),
whose bodies must still match. Everything else — opcodes, registers,
immediates, the symbols referenced — must be identical.

options:
  --ignore FN          leave FN out (repeatable); e.g. malloc_stats, which
                       prints the model line and so depends on the layer list
  --expect-different FN[,FN...]
                       negative self-test: succeed only if every listed
                       function differs (proves the check sees a change)
  --lenient-cold       only report differences in GCC's .cold parts (code the
                       compiler split off the hot path: calls to slow paths,
                       error returns) instead of failing: GCC's register
                       allocation there follows branch-probability guesses
                       that an extra inlining level can shift
  --cc COMPILER        A and B are C sources: compile each with COMPILER and
                       ZC_CFLAGS (environment) into a shared library first;
                       exits 77 (skipped) when COMPILER is not installed
EOF
}

ignore=() expect="" cc="" strict=1
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --ignore) ignore+=("$2"); shift 2 ;;
    --expect-different) expect="$2"; shift 2 ;;
    --cc) cc="$2"; shift 2 ;;
    --lenient-cold) strict=0; shift ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 2 ] || { usage >&2; exit 2; }
a="$1" b="$2"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "$cc" ]; then
    if ! command -v "$cc" >/dev/null; then
        echo "zero_cost: $cc not installed: skipped"
        exit 77
    fi
    extra=()
    # GCC folds one level of `next` per early-inliner iteration (cmake/Mortise.cmake)
    if "$cc" --version 2>/dev/null | grep -qi 'gcc\|free software'; then
        extra+=(--param=max-early-inliner-iterations=32)
    fi
    for src in "$a" "$b"; do
        # shellcheck disable=SC2086 # ZC_CFLAGS is a list of flags
        "$cc" ${ZC_CFLAGS:-} "${extra[@]}" -shared -fPIC "$src" -o "$tmp/$(basename "$src" .c).so" -pthread
    done
    a="$tmp/$(basename "$a" .c).so" b="$tmp/$(basename "$b" .c).so"
fi

# One line per function: NAME <TAB> INSTRUCTIONS <TAB> normalized body
# (the normalizer is shared with tools/zero_overhead.sh).
normalize="$(cd "$(dirname "$0")/../../.." && pwd)/tools/disasm_functions.sh"
ignore_args=()
for f in "${ignore[@]+"${ignore[@]}"}"; do
    ignore_args+=(--ignore "$f")
done
functions() {
    "$normalize" "${ignore_args[@]+"${ignore_args[@]}"}" "$1"
}
functions "$a" >"$tmp/a"
functions "$b" >"$tmp/b"
[ -s "$tmp/a" ] && [ -s "$tmp/b" ] || { echo "zero_cost: no code found" >&2; exit 2; }

# Several link functions may normalize to one name: compare sorted bodies.
join -t $'\t' -a1 -a2 -e - -o 0,1.2,2.2 <(cut -f1,2 "$tmp/a" | awk -F'\t' '{ c[$1] = c[$1] (c[$1] == "" ? "" : "+") $2 } END { for (f in c) print f "\t" c[f] }' | sort) \
    <(cut -f1,2 "$tmp/b" | awk -F'\t' '{ c[$1] = c[$1] (c[$1] == "" ? "" : "+") $2 } END { for (f in c) print f "\t" c[f] }' | sort) >"$tmp/counts"
diff <(cut -f1,3 "$tmp/a") <(cut -f1,3 "$tmp/b") | awk -F'\t' '/^[<>] / { print substr($1, 3) }' | sort -u >"$tmp/differ" || true

echo "zero_cost: $(basename "$1") vs $(basename "$2"): $(wc -l <"$tmp/a") and $(wc -l <"$tmp/b") functions"
printf '  %-22s %8s %8s\n' function A B
for f in malloc free calloc realloc; do
    awk -F'\t' -v f="$f" '$1 == f { printf "  %-22s %8s %8s\n", $1, $2, $3 }' "$tmp/counts"
done
if [ -s "$tmp/differ" ]; then
    echo "  functions that differ (instructions in A, B):"
    while read -r f; do
        awk -F'\t' -v f="$f" '$1 == f { printf "    %-30s %8s %8s\n", $1, $2, $3 }' "$tmp/counts"
    done <"$tmp/differ"
fi

if [ -n "$expect" ]; then
    missing=0
    for f in ${expect//,/ }; do
        if ! grep -qx "$f" "$tmp/differ"; then
            echo "zero_cost: FAIL: $f is identical, but the variant must change it"
            missing=1
        fi
    done
    [ $missing -eq 0 ] && echo "zero_cost: negative self-test passed: the change is seen"
    exit $missing
fi
if [ $strict -eq 0 ] && grep -q '\.cold$' "$tmp/differ"; then
    echo "  (cold parts only reported: $(grep -c '\.cold$' "$tmp/differ"); --lenient-cold)"
    grep -v '\.cold$' "$tmp/differ" >"$tmp/hot" || true
    mv "$tmp/hot" "$tmp/differ"
fi
if [ -s "$tmp/differ" ]; then
    echo "zero_cost: FAIL: $(wc -l <"$tmp/differ") functions differ"
    echo "  first difference:"
    f=$(head -1 "$tmp/differ")
    diff <(grep -P "^\Q$f\E\t" "$tmp/a" | cut -f3 | tr ';' '\n') \
        <(grep -P "^\Q$f\E\t" "$tmp/b" | cut -f3 | tr ';' '\n') | head -20 || true
    exit 1
fi
echo "zero_cost: identical machine code$([ $strict -eq 1 ] || echo ' outside cold parts')"
