# Sourced by the port tests' runners: `unavailable TARGET REASON` ends the
# test as skipped (77) when a cross toolchain or emulator is missing, or as
# failed when MORTISE_REQUIRE_PORTS=1 (CI, which installs them).
unavailable() {
    if [ "${MORTISE_REQUIRE_PORTS:-0}" = 1 ]; then
        echo "FAIL: $1: $2 (MORTISE_REQUIRE_PORTS=1)"
        exit 1
    fi
    echo "SKIPPED: $1: $2"
    exit 77
}
