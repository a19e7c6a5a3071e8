#!/usr/bin/env bash
# tools/bench.sh — the `make bench` entry point: runs tools/bench.py (the
# benchmark harness, docs/bench.md) on BUILD_DIR with the options given.
#
#   tools/bench.sh BUILD_DIR [tools/bench.py options]
#
# Runs the harness under the distribution's python3 when there is one: that
# is the interpreter the python3-matplotlib package serves (the plots).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -ge 1 ] && exec python3 "$here/bench.py" --help
    exit 2
fi
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
exec "$python" "$here/bench.py" "$@"
