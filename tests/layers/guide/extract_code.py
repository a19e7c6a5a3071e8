#!/usr/bin/env python3
"""Write out the code of a documentation page's worked example.

    extract_code.py PAGE OUTDIR FILE...

A fenced block whose info string is `c file=NAME` belongs to the file NAME:
the blocks of one NAME are joined in the order the page shows them, those
marked `c file=NAME end` (a header's closing lines, shown early in the page)
after all the others, each preceded by a `#line` directive naming the page and the line it starts at,
so a compiler error points into the page. Blocks without `file=` are
illustration and are not extracted. Fails (exit 1) if a FILE asked for has
no block, or the page names a file not asked for (a typo would otherwise
leave that code untested). The files are
written every run: the build reruns this when the page is newer.
"""
import pathlib
import re
import sys

OPEN = re.compile(r"^```c file=([A-Za-z0-9_.-]+)( end)?\s*$")


def blocks(page: pathlib.Path):
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            raise SystemExit(f"{page}:{i + 1}: block for {m.group(1)} is never closed")
        yield m.group(1), bool(m.group(2)), start + 1, lines[start:end]
        i = end + 1


def main() -> int:
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    page, outdir, wanted = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    text = {name: [] for name in wanted}
    ends = {name: [] for name in wanted}
    for name, at_end, line, body in blocks(page):
        if name not in text:
            print(f"{page}:{line - 1}: a block for {name}, which is not extracted", file=sys.stderr)
            return 1
        (ends if at_end else text)[name].extend([f'#line {line} "{page.resolve()}"'] + body)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, body in text.items():
        body += ends[name]
        if not body:
            print(f"{page}: no ```c file={name} block", file=sys.stderr)
            return 1
        (outdir / name).write_text("\n".join(body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
