#!/usr/bin/env python3
"""Fail, naming file:line, for every OS or C-library header included outside
include/mortise/pal/. The rest of the headers may include only what a
freestanding compiler provides (ALLOWED) and Mortise's own headers: every
OS service goes through the port layer (include/mortise/pal/pal.h).

    check_os_headers.py INCLUDE_DIR    scan it; exit 1 on a violation
    check_os_headers.py --self-test    prove the scan catches a bad header
"""
import os
import re
import sys
import tempfile

# Headers -ffreestanding guarantees (C11 4p6), plus string.h, which the
# compilers provide as builtins and every freestanding embedder supplies.
ALLOWED = {
    "float.h", "iso646.h", "limits.h", "stdalign.h", "stdarg.h", "stdatomic.h",
    "stdbool.h", "stddef.h", "stdint.h", "stdnoreturn.h", "string.h",
}
PAL_DIR = os.path.join("mortise", "pal")
INCLUDE = re.compile(r'^\s*#\s*include(?:_next)?\s*[<"]([^>"]+)[>"]')


def violations(include_dir):
    found = []
    for root, _, files in os.walk(include_dir):
        rel_root = os.path.relpath(root, include_dir)
        if rel_root == PAL_DIR or rel_root.startswith(PAL_DIR + os.sep):
            continue
        for name in sorted(files):
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(1)
                    quoted = '"' in line.split("include", 1)[1].lstrip()[:1]
                    if quoted or header.startswith("mortise/") or header in ALLOWED:
                        continue
                    found.append("%s:%d: includes <%s> outside mortise/pal/"
                                 % (os.path.relpath(path, include_dir), number, header))
    return found


def self_test():
    """A copy with one bad header, one pal header and look-alikes that are
    fine: exactly the bad line must be reported."""
    with tempfile.TemporaryDirectory() as tmp:
        def put(rel, text):
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        put("mortise/core/bad.h", "#pragma once\n#include <stdint.h>\n  #  include <sys/mman.h>\n")
        put("mortise/core/good.h", "/*\n *     #include <unistd.h>   in a comment\n */\n"
            "#include \"platform.h\"\n#include <mortise/core/ctx.h>\n#include <stdatomic.h>\n")
        put("mortise/pal/pal_linux.h", "#include <unistd.h>\n#include <pthread.h>\n")
        put("mortise/pal/sub/more.h", "#include <sys/auxv.h>\n")
        put("mortise/palx/not_pal.h", "#include <dlfcn.h>\n")
        got = violations(tmp)
        want = ["mortise/core/bad.h:3: includes <sys/mman.h> outside mortise/pal/",
                "mortise/palx/not_pal.h:1: includes <dlfcn.h> outside mortise/pal/"]
        if sorted(got) != sorted(want):
            print("self-test FAILED:\n  got  %s\n  want %s" % (got, want))
            return 1
    print("self-test passed: the scan reports a bad header by file:line")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__)
        return 2
    found = violations(argv[1])
    for v in found:
        print(v)
    if found:
        print("%d OS header include(s) outside mortise/pal/: route them through the port layer"
              % len(found))
        return 1
    print("no OS header outside mortise/pal/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
