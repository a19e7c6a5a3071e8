#!/usr/bin/env bash
# tools/disasm_functions.sh — the machine code of a shared library, one
# normalized line per function, for comparing two builds of an allocator
# (tests/suites/zero_cost/zero_cost.sh, tools/zero_overhead.sh).
set -euo pipefail

usage() {
    cat <<'EOF_USAGE'
usage: tools/disasm_functions.sh [--ignore FN]... [--anonymous] LIBRARY

Prints, sorted by name, one line per function of LIBRARY:
  NAME <TAB> INSTRUCTIONS <TAB> normalized body ("insn ; insn ; ...")
from `objdump -d --no-show-raw-insn` ($OBJDUMP if set: a cross objdump for
another CPU's libraries). Normalization drops addresses, rip-relative
displacements (aarch64: adrp pages, their low 12 bits and offsets from a
section anchor), the addresses and +offsets of jump and call targets,
alignment padding (nop, int3), and the layer name inside
MT_COMPOSE's link functions (mt_link_NAME_op -> mt_link_op). Opcodes,
registers, immediates and the symbols referenced stay.
  --ignore FN    leave out FN and its .cold/.constprop/... parts (repeatable)
  --anonymous    also drop the symbol names of targets and rip-relative
                 operands (<name>), to compare code written with different
                 names (a hand-written allocator and a composed one)
EOF_USAGE
}

ignore=() anonymous=0
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --ignore) ignore+=("$2"); shift 2 ;;
    --anonymous) anonymous=1; shift ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }

"${OBJDUMP:-objdump}" -d --no-show-raw-insn "$1" | awk -v anonymous="$anonymous" '
    /^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); split("", anchor); next }
    /^ +[0-9a-f]+:\t/ {
        line = $0
        sub(/^ +[0-9a-f]+:\t/, "", line)
        if (line ~ /^(nop|xchg +%ax,%ax|data16|cs nop|int3)/) next
        gsub(/-?0x[0-9a-f]+\(%rip\)/, "(%rip)", line)
        # aarch64: a static address is adrp (its 4 KiB page) plus the low 12
        # bits in an add/load/store through that register, often then an
        # offset from that anchor (gcc addresses the statics of a file from one
        # section anchor). All of them move with the layout, like the x86-64
        # rip-relative displacements, and go; objdump names the page after
        # whatever symbol precedes it, so that name goes too.
        if (match(line, /^adrp\t+x[0-9]+,/)) {
            reg = substr(line, RSTART, RLENGTH); sub(/^adrp\t+/, "", reg); sub(/,$/, "", reg)
            anchor[reg] = 1
            line = "adrp\t" reg ", <page>"
        } else {
            split(line, op, /[\t, ]+/)
            base = ""
            if (line ~ /^add\t/ && (op[3] in anchor) && line ~ /, #(0x)?[0-9a-f]+$/) {
                sub(/, #(0x)?[0-9a-f]+$/, ", #anchor", line)
                base = op[3]
                anchor[op[2]] = 1
            } else if (match(line, /\[x[0-9]+(, #-?[0-9]+)?\]/)) {
                base = substr(line, RSTART + 1, RLENGTH - 2); sub(/,.*/, "", base)
                if (base in anchor) sub(/\[x[0-9]+(, #-?[0-9]+)?\]/, "[" base ", #anchor]", line)
                else base = ""
            }
            # a register written by anything but this address arithmetic no longer holds one
            if (op[2] in anchor && op[2] != base && line !~ /^(st|cmp|cbn?z|tst|tbn?z|prfm)/ && !(line ~ /^add\t/ && base != ""))
                delete anchor[op[2]]
        }
        gsub(/[0-9a-f]+ </, "<", line)
        gsub(/\+0x[0-9a-f]+>/, ">", line)
        if (anonymous) { gsub(/<[^>]*>/, "<>", line); sub(/ *#.*$/, "", line) }
        gsub(/[ \t]+/, " ", line)
        if (!(fn in body)) order[n++] = fn
        body[fn] = body[fn] line " ; "
        count[fn]++
    }
    END { for (i = 0; i < n; i++) print order[i] "\t" count[order[i]] "\t" body[order[i]] }' |
    sed -E 's/mt_link_[A-Za-z0-9_]+_(create|alloc|free|getmeta|resize|thread_exit|fork_prepare|fork_parent|fork_child|purge)\b/mt_link_\1/g' |
    awk -F'\t' -v skip="$(printf '%s\n' "${ignore[@]+"${ignore[@]}"}")" '
        BEGIN { n = split(skip, s, "\n"); for (i = 1; i <= n; i++) if (s[i] != "") drop[s[i]] = 1 }
        { base = $1; sub(/\.(cold|constprop|isra|part|localalias)([.0-9a-z]*)?$/, "", base) }
        !(base in drop)' |
    sort
