#!/usr/bin/env bash
# tests/tools/lint.sh SOURCE_DIR CACHE_DIR — flake8 on tools/ (with
# tools/mortise, which has no .py suffix; .flake8) and mypy with mypy.ini,
# whose per-module sections keep the fully annotated modules so. Skipped (77)
# when flake8 or mypy is missing, failed instead when MORTISE_REQUIRE_PORTS=1
# (.ci/run, which installs them).
set -uo pipefail
src=$1
cache=$2
for tool in flake8 mypy; do
    if ! command -v "$tool" >/dev/null; then
        if [ "${MORTISE_REQUIRE_PORTS:-0}" = 1 ]; then
            echo "FAIL: no $tool (apt-get install flake8 mypy; MORTISE_REQUIRE_PORTS=1)"
            exit 1
        fi
        echo "SKIPPED: no $tool (apt-get install flake8 mypy)"
        exit 77
    fi
done
cd "$src" || exit 1
status=0
echo "== flake8 tools tools/mortise"
flake8 --config .flake8 tools tools/mortise || status=1
echo "== mypy --config-file mypy.ini"
# the cache goes to the build tree, not the sources
mypy --config-file mypy.ini --cache-dir "$cache" || status=1
exit $status
