#!/usr/bin/env bash
# tools/fastpath.sh — instructions per malloc+free pair on the warm fast path,
# counted by callgrind, for every Mortise instance, the hand-written floor, the
# system malloc and the peers that are installed.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tools/fastpath.sh [--small N] [--large N] [--size BYTES] [--align BYTES] [--only NAME[,NAME...]] BUILD_DIR

Runs BUILD_DIR/bin/fastpath (64 malloc+free pairs of 16..128 bytes per
iteration, or of BYTES each with --size; with --align, aligned_alloc+free
pairs at that alignment, sizes rounded up to it; bench/fastpath/fastpath.c) under `valgrind --tool=callgrind` once
with N_small and once with N_large iterations for each allocator, loaded with
LD_PRELOAD, and prints per allocator:
  in-call   instructions executed inside malloc and free (and what they call)
            per pair: callgrind --toggle-collect=malloc --toggle-collect=free
            (and aligned_alloc),
            (Ir(large) - Ir(small)) / ((large - small) * 64)
  total     the same difference over the whole program: adds the loop and
            the two PLT jumps (the same few instructions for everyone)
Start-up and the first (cold) iterations cancel out in the difference.

Allocators: every BUILD_DIR/lib/libmortise-*.so, the hand-written tcache
algorithm (BUILD_DIR/lib/libfastpath-handwritten.so), the system malloc
(glibc, no preload), and jemalloc, tcmalloc, mimalloc, tbbmalloc (its proxy library) from the distribution
when their libraries are installed (skipped with a note when not).
Defaults: --small 200 --large 2200. Needs valgrind; exits 77 without it.
--only restricts the run to the named allocators (e.g. tcache,handwritten).
EOF
}

small=200 large=2200 only="" size="" align=""
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --small) small="$2"; shift 2 ;;
    --large) large="$2"; shift 2 ;;
    --only) only=",$2,"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --align) align="$2"; shift 2 ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
build=$(cd "$1" && pwd)
bin="$build/bin/fastpath"
[ -x "$bin" ] || { echo "fastpath.sh: $bin not built (make BUILD=$1)" >&2; exit 2; }
if ! command -v valgrind >/dev/null; then
    echo "fastpath.sh: valgrind not installed: fast-path counts skipped" >&2
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ir of one callgrind run: "ITERATIONS PRELOAD [callgrind options]"
ir() {
    local n="$1" preload="$2" out="$tmp/cg.out"
    shift 2
    rm -f "$out"
    env ${preload:+LD_PRELOAD="$preload"} valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$@" "$bin" "$n" ${size:-${align:+0}} $align >/dev/null 2>"$tmp/valgrind.log" || {
        echo "fastpath.sh: valgrind failed:" >&2
        cat "$tmp/valgrind.log" >&2
        return 1
    }
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

per_pair() { # Ir_small Ir_large → instructions per pair, one decimal
    awk -v a="$1" -v b="$2" -v n=$(((large - small) * 64)) 'BEGIN { printf "%.1f", (b - a) / n }'
}

allocators=()
for so in "$build"/lib/libmortise-*.so; do
    [ -e "$so" ] || continue
    name=${so##*/libmortise-}
    allocators+=("${name%.so}=$so")
done
[ -e "$build/lib/libfastpath-handwritten.so" ] &&
    allocators+=("handwritten=$build/lib/libfastpath-handwritten.so")
allocators+=("glibc=")
libdir=/usr/lib/x86_64-linux-gnu
for peer in jemalloc=libjemalloc.so.2 tcmalloc=libtcmalloc_minimal.so.4 mimalloc=libmimalloc.so.2 \
    tbbmalloc=libtbbmalloc_proxy.so.2; do
    if [ -e "$libdir/${peer#*=}" ]; then
        allocators+=("${peer%%=*}=$libdir/${peer#*=}")
    else
        echo "note: ${peer%%=*} not installed ($libdir/${peer#*=}): skipped" >&2
    fi
done

printf '%-16s %9s %9s\n' allocator in-call total
for entry in "${allocators[@]}"; do
    name=${entry%%=*} preload=${entry#*=}
    if [ -n "$only" ] && [[ "$only" != *",$name,"* ]]; then
        continue
    fi
    toggle=(--toggle-collect=malloc --toggle-collect=free)
    [ -z "$align" ] || toggle+=(--toggle-collect=aligned_alloc)
    in_small=$(ir "$small" "$preload" "${toggle[@]}")
    in_large=$(ir "$large" "$preload" "${toggle[@]}")
    all_small=$(ir "$small" "$preload")
    all_large=$(ir "$large" "$preload")
    printf '%-16s %9s %9s\n' "$name" "$(per_pair "$in_small" "$in_large")" "$(per_pair "$all_small" "$all_large")"
done
