#!/bin/sh
# run_workload.sh MODE PROGRAM LIB [ARGS...]
#   MODE same:   PROGRAM must print an `ok` last line under glibc and under
#                LD_PRELOAD=LIB, and the two lines must be equal (the
#                checksum depends only on the arguments, never on malloc).
#   MODE ok:     the same without comparing the lines (they hold rates).
#   MODE broken: under LD_PRELOAD=LIB (a malloc that damages a live block)
#                PROGRAM must not end with an `ok` line and must exit non-zero.
mode=$1 prog=$2 lib=$3
shift 3
last_line() { tail -n 1 "$1"; }
out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.2"' EXIT
case $mode in
same|ok)
  "$prog" "$@" >"$out" || { echo "glibc: exit $?: $(last_line "$out")"; exit 1; }
  glibc=$(last_line "$out")
  case $glibc in ok\ *) ;; *) echo "glibc: no ok line: $glibc"; exit 1 ;; esac
  LD_PRELOAD=$lib "$prog" "$@" >"$out.2" || { echo "$lib: exit $?: $(last_line "$out.2")"; exit 1; }
  other=$(last_line "$out.2")
  echo "glibc:   $glibc"
  echo "preload: $other"
  case $other in ok\ *) ;; *) echo "preload: no ok line"; exit 1 ;; esac
  [ "$mode" = ok ] || [ "$glibc" = "$other" ] || { echo "lines differ"; exit 1; }
  ;;
broken)
  LD_PRELOAD=$lib "$prog" "$@" >"$out" 2>/dev/null
  status=$?
  line=$(last_line "$out")
  echo "exit $status: $line"
  case $line in ok\ *) echo "a damaged block went unnoticed"; exit 1 ;; esac
  [ "$status" -ne 0 ] || { echo "exit status 0 without ok"; exit 1; }
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
