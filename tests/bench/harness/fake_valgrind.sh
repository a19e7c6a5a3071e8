#!/bin/sh
# A stand-in for valgrind in the harness's unit tests (bench_harness.unit):
# writes a callgrind file whose functions name the preloaded library, then
# prints an ok line carrying the profiled command, so a test can check which
# allocator and which arguments a profile run got. FAKE_VALGRIND_HANG=1:
# never ends (the timeout case).
for arg; do
    case "$arg" in
    --callgrind-out-file=*) out="${arg#*=}" ;;
    --*) ;;
    *) break ;;
    esac
    shift
done
[ -n "$FAKE_VALGRIND_HANG" ] && exec sleep 30
lib=$(basename "${LD_PRELOAD:-glibc}")
cat >"$out" <<EOF
version: 1
creator: fake
cmd: $*
events: Ir
ob=/lib/$lib
fl=a.c
fn=work_in_$lib
1 700
fl=b.c
fn=work_in_$lib
1 100
ob=/lib/libc.so.6
fn=other
1 200
summary: 1000
totals: 1000
EOF
echo "ok blocks=50 argv=$(echo "$*" | tr ' ' _)"
