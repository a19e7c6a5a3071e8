#!/usr/bin/env python3
"""Write a vi/emacs-style `tags` file that finds a layer instance's functions.

A ready allocator's functions are all written under their names: a layer
header's (slab_lk_alloc), the fragments several layers share, written out
for each (include/mortise/written/, tools/layer_names.py), a layer the
allocator renames (instances/chains/NAME/), and its glue and forwarders
(instances/chains/NAME.inl, tools/compose_chain.py): grep and a plain ctags
run find those (ctest tools.debug_names). What they cannot find is what the
preprocessor writes for a composition of your own: an instance with
another name (`small_alloc`), and the glue and forwarders of compositions
that call MT_COMPOSE themselves (bench/baselines, tests, yours without
`mortise build --written-out`). This tool preprocesses every composition
(instances/*.c and any extra files given), lets ctags list the function
definitions of the preprocessed text, and maps each back through the
compiler's line markers to the line that defines it: `small_alloc` leads
to the `slab_lk_alloc(...)` line of include/mortise/layers/slab_lk.h.

    tools/tags.py [-o tags] [--cc gcc] [FILE.c ...]

`make tags` runs it. Needs a C compiler and Universal Ctags (Debian:
universal-ctags); exits 2 naming what is missing.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import List, Optional, Tuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
MARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')


def source_lines(preprocessed: str) -> List[Optional[Tuple[Optional[str], int]]]:
    """For each line of the preprocessed text (1-based), its (file, line)."""
    where: List[Optional[Tuple[Optional[str], int]]] = [None]
    file: str | None = None
    line = 0
    for text in preprocessed.splitlines():
        m = MARKER.match(text)
        if m:
            file, line = m.group(2), int(m.group(1))
            where.append(None)
            continue
        where.append((file, line))
        line += 1
    return where


def definitions(ctags: str, path: pathlib.Path) -> Iterator[tuple[str, int]]:
    """(name, line in `path`, kind) of every function ctags finds there."""
    out = subprocess.run([ctags, "--languages=C", "--langmap=C:+.i", "--kinds-C=f",
                          "--excmd=number", "-f", "-", str(path)],
                         capture_output=True, text=True, check=True).stdout
    for row in out.splitlines():
        fields = row.split("\t")
        if len(fields) >= 3 and fields[2].endswith(';"'):
            yield fields[0], int(fields[2][:-2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", default=str(ROOT / "tags"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("files", nargs="*", help="compositions to index besides instances/*.c")
    a = ap.parse_args()
    ctags = shutil.which("ctags")
    if not ctags or "Universal Ctags" not in subprocess.run(
            [ctags, "--version"], capture_output=True, text=True).stdout:
        sys.exit("tags.py: needs Universal Ctags (apt-get install universal-ctags)")
    if not shutil.which(a.cc):
        sys.exit(f"tags.py: no C compiler '{a.cc}'")

    # The flags cmake/Mortise.cmake gives every composition.
    flags = ["-D_GNU_SOURCE", f"-I{ROOT / 'include'}"]
    if platform.machine() == "x86_64":
        flags.append("-mcx16")
    sources = (sorted((ROOT / "instances").glob("*.c")) + sorted((ROOT / "bench" / "baselines").glob("*.c"))
               + [pathlib.Path(f) for f in a.files])
    tags = set()
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources:
            pre = pathlib.Path(tmp) / (src.stem + ".i")
            subprocess.run([a.cc, "-E", *flags, str(src), "-o", str(pre)], check=True)
            where = source_lines(pre.read_text())
            for name, line in definitions(ctags, pre):
                file, src_line = (where[line] if line < len(where) else None) or (None, 0)
                # Only what the project defines: libc's declarations are not ours.
                if file and pathlib.Path(file).resolve().is_relative_to(ROOT):
                    rel = os.path.relpath(pathlib.Path(file).resolve(), pathlib.Path(a.output).resolve().parent)
                    tags.add((name, rel, src_line))
    with open(a.output, "w") as out:
        out.write("!_TAG_FILE_FORMAT\t2\t/extended format/\n")
        out.write("!_TAG_FILE_SORTED\t1\t/0=unsorted, 1=sorted/\n")
        for name, file, line in sorted(tags):
            out.write(f'{name}\t{file}\t{line};"\tf\n')
    print(f"tags.py: {len(tags)} definitions from {len(sources)} compositions -> {a.output}")


if __name__ == "__main__":
    main()
