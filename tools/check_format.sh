#!/usr/bin/env bash
# tools/check_format.sh — the C sources against .clang-format (docs/testing.md).
# Run by the ctest test tools.format (tests/tools/CMakeLists.txt).
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tools/check_format.sh [--fix] [--clang-format PROGRAM] [FILE...]

Without FILEs: every tracked *.c and *.h under include/, instances/, tests/,
bench/ and tools/ (git ls-files; without git, find). Checks them with
`clang-format --dry-run --Werror` and names every file that differs; exit 1
if any does. --fix rewrites them in place instead (clang-format -i).
Ranges between /* clang-format off */ and /* clang-format on */ are left as
written (X-macro lists, generated tables).
PROGRAM: clang-format, else clang-format-14 (Debian 12's). Exit 77 (skipped)
when neither is installed, unless MORTISE_REQUIRE_PORTS=1 (.ci/run): then 1.
EOF
}

fix=0
program=
while (($#)); do
    case $1 in
    --fix) fix=1; shift ;;
    --clang-format) program=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "$program" ]; then
    for candidate in clang-format clang-format-14; do
        if command -v "$candidate" >/dev/null; then
            program=$candidate
            break
        fi
    done
fi
if [ -z "$program" ] || ! command -v "$program" >/dev/null; then
    if [ "${MORTISE_REQUIRE_PORTS:-0}" = 1 ]; then
        echo "FAIL: no clang-format (apt-get install clang-format; MORTISE_REQUIRE_PORTS=1)"
        exit 1
    fi
    echo "SKIPPED: no clang-format (apt-get install clang-format)"
    exit 77
fi

files=("$@")
if ((${#files[@]} == 0)); then
    cd "$root"
    dirs=(include instances tests bench tools)
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        mapfile -t files < <(git ls-files -- "${dirs[@]/%//*.c}" "${dirs[@]/%//*.h}")
    else
        mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' \) | sort)
    fi
fi
if ((${#files[@]} == 0)); then
    echo "no C sources"
    exit 0
fi

echo "== $("$program" --version | head -n 1), ${#files[@]} files"
if ((fix)); then
    "$program" -i --style=file "${files[@]}"
    exit 0
fi
status=0
# one run over all files; its diagnostics are FILE:LINE:COL: error: ..., one
# per differing line: the file names are enough here
out=$("$program" --dry-run --Werror --style=file "${files[@]}" 2>&1) || status=1
if ((status)); then
    differing=$(grep -oE '^[^:]+:[0-9]+:[0-9]+: (error|warning)' <<<"$out" | cut -d: -f1 | uniq -c) || true
    if [ -n "$differing" ]; then
        awk '{printf "differs: %s (%d lines)\n", $2, $1}' <<<"$differing"
    else
        head -n 20 <<<"$out"   # not a formatting difference: clang-format's own error
    fi
fi
if ((status)); then
    echo "FAIL: not formatted as .clang-format asks; tools/check_format.sh --fix rewrites them,"
    echo "      and clang-format --dry-run FILE shows where"
else
    echo "ok"
fi
exit $status
