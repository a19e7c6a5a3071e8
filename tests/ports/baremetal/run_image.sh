#!/bin/sh
# run_image.sh TARGET ELF QEMU [QEMU_ARGS...]: run a bare-metal self-test
# image under QEMU (with a time limit) and pass iff QEMU exits 0 and the
# image printed its PASS line and no FAIL line. A missing image (no cross
# compiler at configure time) or QEMU is a skip (77) with the reason, or a
# failure when MORTISE_REQUIRE_PORTS=1.
target=$1 elf=$2 qemu=$3
shift 3

. "$(dirname "$0")/../unavailable.sh"

[ -f "$elf" ] || unavailable "$target" "no image $elf: its cross compiler was missing when cmake ran (.ci/run installs gcc-arm-none-eabi and gcc-riscv64-unknown-elf; re-run cmake after installing)"
command -v "$qemu" >/dev/null 2>&1 || unavailable "$target" "$qemu is not installed (Debian: qemu-system-arm, qemu-system-misc)"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 120 "$qemu" "$@" -kernel "$elf" >"$log" 2>&1
status=$?
cat "$log"
if [ "$status" -eq 124 ]; then
    echo "FAIL: $target: QEMU still running after 120 s"
    exit 1
fi
if [ "$status" -ne 0 ] || grep -q '^FAIL' "$log" || ! grep -q '^mortise bare-metal self-test: PASS$' "$log"; then
    echo "FAIL: $target: QEMU exit status $status"
    exit 1
fi
echo "$target: passed under $qemu"
