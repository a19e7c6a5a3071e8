#!/usr/bin/env python3
"""Write out, as literal C, the functions the preprocessor makes for a composition.

A layer header defines its own operations on source lines; two macros make
the rest: core/layer_end.h forwards every operation a layer does not
implement (NAME_op(ctx, next) { return next(ctx); }), and MT_COMPOSE
(core/compose.h) links the layers (mt_link_*, mt_below_*, mt_at_*,
mt_chain_*). Neither grep, ctags nor a static call-graph walk sees a
function that only a macro expansion defines, so a ready allocator
(instances/NAME.c) includes instances/chains/NAME.inl instead: the same
expansion, written out by this tool and formatted with the repository's
.clang-format. The instance
  - defines MT_GLUE_WRITTEN_OUT before its first layer (layer_end.h then
    leaves the forwarders to the written-out file), and
  - names its composition in a comment right before the include:
        /* MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket), written out: */
        #include "chains/segfit.inl"
The macros stay the source of truth: the file is what they expand to, and
`--check` (ctest tools.compose_chain) fails when it is not. The work is
done by tools/mortise_lib/chain.py, which `mortise build --written-out`
uses for a user's composition.

    tools/compose_chain.py --write [FILE.c ...]   (default: instances/*.c)
    tools/compose_chain.py --check [FILE.c ...]
    tools/compose_chain.py --convert FILE.c       (a plain MT_COMPOSE(...) line
                                                   becomes the include)
Needs a C compiler (--cc, $CC) and clang-format (exit 77 without it on --check).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import shutil
import sys
from typing import List, Optional, Sequence

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from mortise_lib import chain  # noqa: E402


def flags() -> List[str]:
    """The flags cmake/Mortise.cmake gives every composition that change what
    the preprocessor makes of it."""
    out = ["-D_GNU_SOURCE", f"-I{ROOT / 'include'}"]
    if platform.machine() == "x86_64":
        out.append("-mcx16")
    return out


def header_path(src: pathlib.Path) -> pathlib.Path:
    return src.parent / "chains" / (src.stem + ".inl")


def expected(src: pathlib.Path, cc: str) -> str:
    return chain.chain_header(src.read_text(), os.path.relpath(src.resolve(), ROOT), [cc], flags(),
                              ROOT / "include", src.resolve().parent)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="(re)write chains/NAME.inl")
    mode.add_argument("--check", action="store_true", help="exit 1 when a chains/NAME.inl is stale")
    mode.add_argument("--convert", action="store_true",
                      help="make FILE.c include its written-out chain, then write it")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("files", nargs="*", type=pathlib.Path,
                    help="compositions (default: instances/*.c)")
    a = ap.parse_args(argv)
    if not shutil.which(a.cc):
        print(f"compose_chain.py: no C compiler '{a.cc}'", file=sys.stderr)
        return 2
    if not (shutil.which("clang-format") or shutil.which("clang-format-14")):
        print("SKIPPED: compose_chain.py needs clang-format", file=sys.stderr)
        return 77
    files: List[pathlib.Path] = a.files or sorted((ROOT / "instances").glob("*.c"))
    stale = 0
    for src in files:
        try:
            if a.convert:
                src.write_text(chain.written_form(src.read_text(), src.stem))
            text = expected(src, a.cc)
        except chain.ChainError as e:
            print(f"compose_chain.py: {src}: {e}", file=sys.stderr)
            return 1
        dst = header_path(src)
        if a.check:
            if not dst.exists() or dst.read_text() != text:
                print(f"compose_chain.py: {dst} is stale (tools/compose_chain.py --write {src})")
                stale += 1
            elif chain.CHAIN_INCLUDE.search(src.read_text()) is None:
                print(f"compose_chain.py: {src} does not include chains/{dst.name}")
                stale += 1
        else:
            dst.parent.mkdir(exist_ok=True)
            if not dst.exists() or dst.read_text() != text:
                dst.write_text(text)
                print(f"compose_chain.py: wrote {os.path.relpath(dst)}")
    if a.check:
        print(f"compose_chain.py: {len(files) - stale} of {len(files)} written-out chains up to date")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
