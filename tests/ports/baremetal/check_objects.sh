#!/bin/sh
# check_objects.sh TARGET NM SIZE OBJECT...: the freestanding composition
# objects ask their environment for nothing but memcpy, memset, memmove
# and the compiler's own helpers (libgcc: __aeabi_*, __*di2, __*di3, ...):
# no C library function, no system call. Prints each object's size (code,
# data, bss: the numbers docs/portability.md gives). Skips (77) when the
# cross tools are missing, or fails under MORTISE_REQUIRE_PORTS=1.
target=$1 nm=$2 size=$3
shift 3

. "$(dirname "$0")/../unavailable.sh"
if [ $# -eq 0 ] || ! command -v "$nm" >/dev/null 2>&1; then
    unavailable "$target" "no cross toolchain ($nm) or no objects built"
fi

bad=0
for object in "$@"; do
    [ -f "$object" ] || { echo "FAIL: $object not built"; bad=1; continue; }
    needs=$("$nm" -u "$object" | awk '{print $2}' | tr '\n' ' ')
    echo "$(basename "$object"): needs ${needs:-nothing}"
    for symbol in $needs; do
        case $symbol in
            memcpy | memset | memmove | bm_tlsf_steps) ;;
            __aeabi_* | __*di2 | __*di3 | __*si2 | __*si3) ;;
            *) echo "FAIL: $(basename "$object") needs $symbol from its environment"; bad=1 ;;
        esac
    done
done
"$size" "$@"
exit $bad
