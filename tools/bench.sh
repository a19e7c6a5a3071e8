#!/usr/bin/env bash
# tools/bench.sh — `make bench`: what the benchmark suite runs today.
set -uo pipefail

usage() {
    cat <<'EOF'
usage: tools/bench.sh [--no-conformance] BUILD_DIR

The `make bench` entry point (make builds BUILD_DIR first). Until the full
benchmark suite exists it runs:
  1. the conformance suite, if the build has one (ctest -R conformance, output
     kept quiet), and prints how many of its tests passed and failed;
  2. the fast-path microbenchmark (tools/fastpath.sh): instructions per
     malloc+free pair counted by callgrind for every Mortise instance, the
     hand-written floor, glibc, and jemalloc/tcmalloc/mimalloc if installed.
Then prints both as one summary table. valgrind is needed for step 2: when it
is missing it is installed with apt-get if running as root, else step 2 is
skipped with a note. Takes about 5 minutes on 2 cores, nearly all of it the
conformance suite (--no-conformance skips it; the fast path alone takes under
a minute). Exits non-zero if a conformance test failed or a step could not
run.
EOF
}

conformance=1
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --no-conformance) conformance=0; shift ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
build="$1"
[ -f "$build/CMakeCache.txt" ] || { echo "bench.sh: $build is not a build directory (make BUILD=$build)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1. conformance ----
conf="not run (--no-conformance)"
if [ $conformance -eq 1 ]; then
    if (cd "$build" && ctest -N -R conformance 2>/dev/null | grep -q 'Total Tests: [1-9]'); then
        echo "== conformance suite (ctest -R conformance) ..."
        (cd "$build" && ctest -R conformance -j "$(nproc 2>/dev/null || echo 2)" --output-on-failure \
            --timeout 900 >"$tmp/conformance.log" 2>&1)
        line=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$tmp/conformance.log" | tail -1)
        total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
        failed=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
        if [ -n "$line" ]; then
            conf="$((total - failed)) passed, $failed failed"
            [ "$failed" -eq 0 ] || {
                status=1
                grep -E '^\s+[0-9]+ - ' "$tmp/conformance.log" | sed 's/^/   failed: /'
            }
        else
            conf="could not run (see ctest -R conformance)"
            status=1
        fi
    else
        conf="none in this build"
    fi
fi

# ---- 2. fast path ----
fast="$tmp/fastpath.txt"
if ! command -v valgrind >/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "== installing valgrind (apt-get) ..."
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; } >"$tmp/apt.log" 2>&1 ||
            echo "note: apt-get could not install valgrind" >&2
    fi
fi
if command -v valgrind >/dev/null; then
    echo "== fast path (tools/fastpath.sh $build) ..."
    if ! "$here/fastpath.sh" "$build" >"$fast" 2>"$tmp/fastpath.err"; then
        cat "$tmp/fastpath.err" >&2
        echo "fast path: failed" >"$fast"
        status=1
    fi
    grep '^note:' "$tmp/fastpath.err" >&2 || true
else
    echo "note: valgrind not installed and not installable here: fast path skipped" >&2
    echo "fast path: skipped (no valgrind)" >"$fast"
fi

# ---- summary ----
echo
echo "== Mortise benchmark summary ($(date -u +%Y-%m-%d), $(uname -m), $(nproc 2>/dev/null || echo '?') cores)"
printf '%-28s %s\n' "conformance suite" "$conf"
echo
echo "fast path: instructions per malloc+free pair (callgrind; 64 blocks of 16..128 bytes, warm)"
echo "  in-call = inside malloc and free; total = whole program (adds the loop and PLT jumps)"
sed 's/^/  /' "$fast"
exit $status
