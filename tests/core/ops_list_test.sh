#!/bin/sh
# The operation list (core/ops.h MT_FOR_EACH_OP) against what must follow
# it by hand: the marker block of the same file (#undef MT_IMPLEMENTS_op,
# run by every layer's closing header), the contract in core/ctx.h and the
# table of docs/writing-a-layer.md. Fails naming what is missing or extra.
# usage: ops_list_test.sh SOURCE_DIR
src=${1:?source dir}
ops_h=$src/include/mortise/core/ops.h
list=$(sed -n '/^#define MT_FOR_EACH_OP/,/^$/p' "$ops_h" | grep -o 'X(__VA_ARGS__, [a-z_]*)' |
       sed 's/.*, \(.*\))/\1/')
cleared=$(sed -n 's/^#undef MT_IMPLEMENTS_\([a-z_]*\)$/\1/p' "$ops_h")
[ -n "$list" ] || { echo "no operations found in $ops_h"; exit 1; }
status=0
if [ "$(echo "$list" | sort)" != "$(echo "$cleared" | sort)" ]; then
    echo "core/ops.h: the operations and the #undef MT_IMPLEMENTS_ block differ:"
    echo "  list:    " $list
    echo "  cleared: " $cleared
    status=1
fi
for op in $list; do
    grep -q "^ \*   $op " "$src/include/mortise/core/ctx.h" ||
        { echo "core/ctx.h: the contract comment does not describe '$op'"; status=1; }
    grep -q "^| \`$op\` |" "$src/docs/writing-a-layer.md" ||
        { echo "docs/writing-a-layer.md: no table row for '$op'"; status=1; }
done
[ $status = 0 ] && echo "ok:" $list
exit $status
