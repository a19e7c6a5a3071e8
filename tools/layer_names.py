#!/usr/bin/env python3
"""The names of a layer's functions and state, as plain C names.

A layer header writes everything it defines under its default instance
name (slab_wf_alloc, mmap_heap_state), so that grep, ctags and a debugger
find each function by the name the program runs it under. An instance with
another name (`#define MT_NAME lower` before the header) must get its own
copies: for it the header includes include/mortise/names/LAYER.h first,
which maps every such name to MT_SELF(...) (lower_alloc), and again at the
end, which forgets the mapping. This tool writes those files from the
headers, and checks that they are up to date (ctest tools.layer_names).

    tools/layer_names.py --write     regenerate include/mortise/names/*.h
    tools/layer_names.py --check     fail if any is missing or stale
    tools/layer_names.py --convert   one-off: MT_SELF(x) -> LAYER_x in the
                                     headers that own a default name

The names of a layer are the identifiers LAYER_x its header (and the
fragments only it includes: layers/affinity/ for affinity_pool) mentions
outside comments, string literals and #define lines. Fragments shared by
several layers (layers/cache/, layers/segfit/, layers/glk/,
layers/safety/, os/granule_*.h, ...) keep writing MT_SELF(x).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include" / "mortise"
NAMES_DIR = INCLUDE / "names"
DEFAULT_NAME = re.compile(r"^#ifndef MT_NAME\n#define MT_NAME (\w+)\n#endif\n", re.M)
RENAMED = re.compile(r"^#ifdef MT_NAME[^\n]*\n#include \"\.\./names/(\w+)\.h\"\n#else\n#define MT_NAME (\w+)\n#endif\n",
                     re.M)
SELF_USE = re.compile(r"\bMT_SELF\((\w+)\)")
# fragments that belong to one layer only
PRIVATE_FRAGMENTS = {"affinity_pool": ["layers/affinity/*.h"]}


def layer_headers() -> dict[str, Path]:
    """Default instance name -> header, for every header that owns one."""
    out: dict[str, Path] = {}
    for path in sorted(INCLUDE.rglob("*.h")):
        if NAMES_DIR in path.parents:
            continue
        text = path.read_text()
        m = DEFAULT_NAME.search(text) or RENAMED.search(text)
        if m:
            out[m.group(m.lastindex or 1)] = path
    return out


def private_fragments(name: str) -> list[Path]:
    return [p for pattern in PRIVATE_FRAGMENTS.get(name, []) for p in sorted(INCLUDE.glob(pattern))]


def strip_c(text: str) -> str:
    """The text without comments, string and character literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: " " if m.group(0).startswith("/") else '""', text, flags=re.S)


def code_lines(text: str) -> list[str]:
    """Lines of C outside #define directives (continuations joined)."""
    joined = strip_c(text).replace("\\\n", " ")
    return [line for line in joined.split("\n") if not re.match(r"\s*#\s*define\b", line)]


def names_of(name: str, files: list[Path]) -> list[str]:
    pattern = re.compile(r"\b" + re.escape(name) + r"_(\w+)")
    found: set[str] = set()
    for path in files:
        for line in code_lines(path.read_text()):
            found.update(pattern.findall(line))
    return sorted(found)


def names_file(name: str, header: Path, members: list[str]) -> str:
    rel = header.relative_to(INCLUDE)
    lines = [
        f"/* mortise/names/{name}.h — written by tools/layer_names.py from {rel}; do not edit.",
        f" * {rel} writes its functions and state under the default instance",
        f" * name {name}; an instance with another MT_NAME includes this file",
        " * before them, so that each name becomes the instance's own (MT_SELF),",
        " * and again after them, to forget the mapping. (No include guard.) */",
        f"#ifndef MT_NAMES_{name}",
        f"#define MT_NAMES_{name}",
    ]
    lines += [f"#define {name}_{m} MT_SELF({m})" for m in members]
    lines += ["#else", f"#undef MT_NAMES_{name}"]
    lines += [f"#undef {name}_{m}" for m in members]
    lines += ["#endif", ""]
    return "\n".join(lines)


def expected_files() -> dict[Path, str]:
    out = {}
    for name, header in layer_headers().items():
        members = names_of(name, [header] + private_fragments(name))
        out[NAMES_DIR / f"{name}.h"] = names_file(name, header, members)
    return out


def convert_text(name: str, text: str, is_header: bool) -> str:
    """MT_SELF(x) -> name_x outside #define lines; the rename hooks."""
    out = []
    in_define = False
    for line in text.split("\n"):
        starts_define = bool(re.match(r"\s*#\s*define\b", line))
        if starts_define or in_define:
            out.append(line)
        else:
            out.append(SELF_USE.sub(lambda m: f"{name}_{m.group(1)}", line))
        in_define = (starts_define or in_define) and line.endswith("\\")
    text = "\n".join(out)
    if is_header:
        hook = (f"#ifdef MT_NAME /* another instance name: the names below become its own */\n"
                f"#include \"../names/{name}.h\"\n#else\n#define MT_NAME {name}\n#endif\n")
        if not RENAMED.search(text):  # (converted already: only MT_SELF uses added since)
            text, n = DEFAULT_NAME.subn(hook, text, count=1)
            assert n == 1, name
            text = text.rstrip("\n") + (f"\n#ifdef MT_NAMES_{name}\n#include \"../names/{name}.h\" /* forget them */\n"
                                        "#endif\n")
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--convert", action="store_true")
    a = ap.parse_args()
    if a.convert:
        for name, header in layer_headers().items():
            header.write_text(convert_text(name, header.read_text(), True))
            for frag in private_fragments(name):
                frag.write_text(convert_text(name, frag.read_text(), False))
        a.write = True
    want = expected_files()
    if a.write:
        NAMES_DIR.mkdir(exist_ok=True)
        for path, text in want.items():
            path.write_text(text)
        for path in NAMES_DIR.glob("*.h"):
            if path not in want:
                path.unlink()
        return 0
    bad = [str(p.relative_to(ROOT)) for p, t in want.items() if not p.exists() or p.read_text() != t]
    bad += [str(p.relative_to(ROOT)) for p in NAMES_DIR.glob("*.h") if p not in want]
    for p in bad:
        print(f"layer_names: {p} is stale or missing; run tools/layer_names.py --write", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
