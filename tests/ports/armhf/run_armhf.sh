#!/bin/sh
# run_armhf.sh PROGRAM [ARGS...]: run a static 32-bit ARM Linux test program
# under qemu-arm (user mode) with a time limit; its exit status is the
# result. Skips (77) when the program was not built (no
# arm-linux-gnueabihf-gcc at configure time) or qemu-arm is missing, or
# fails under MORTISE_REQUIRE_PORTS=1.
. "$(dirname "$0")/../unavailable.sh"
program=$1
shift
[ -f "$program" ] || unavailable armhf "no $program: arm-linux-gnueabihf-gcc was missing when cmake ran (.ci/run installs gcc-arm-linux-gnueabihf and libc6-dev-armhf-cross; re-run cmake after installing)"
command -v qemu-arm >/dev/null 2>&1 || unavailable armhf "qemu-arm is not installed (Debian: qemu-user)"
exec timeout 280 qemu-arm "$program" "$@"
